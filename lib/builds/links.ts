import { ConflictError, NotFoundError, UnprocessableEntityError, WRITE_CONFLICT } from '../http/errors';
import { enqueueJob } from '../jobs/service';
import type { PageRequest } from '../pagination/index';
import { productOf } from '../products/service';
import { assertCallerExists, type WriteCaller } from '../store/caller-check';
import { childRepository } from '../store/child-repository';
import { backoff, besideParent } from '../store/items';
import type { JobRecord } from '../store/job-repository';
import {
  ProductChangedError,
  ProductNotFoundError,
  type ProductRecord,
  productRepository,
  type VariationLink,
  VariationMissingError,
} from '../store/product-repository';
import { variationRepository } from '../store/variation-repository';
import { ProductValidationError } from '../validation/product';
import { MAX_LINKED_VARIATIONS } from '../validation/variation';

/**
 * A product's linked variations (`/pcm/products/{id}/relationships/variations`, docs/child-products.md):
 * POST adds, PUT replaces, DELETE removes the variations listed. The link order is the order of the
 * variation matrix; any change of the set or its order starts a new generation of children (the next build
 * replaces every child).
 */

export type LinkChange = 'add' | 'replace' | 'remove';

const ATTEMPTS = 8;

/** The links after the change, or a 422 naming what cannot be done. */
function linksAfter(
  current: VariationLink[],
  change: LinkChange,
  ids: string[],
  at: string,
): VariationLink[] {
  const linked = new Map(current.map((link) => [link.id, link]));
  let next: VariationLink[];
  if (change === 'add') {
    next = [...current, ...ids.filter((id) => !linked.has(id)).map((id) => ({ id, created_at: at }))];
  } else if (change === 'replace') {
    next = ids.map((id) => linked.get(id) ?? { id, created_at: at });
  } else {
    ids.forEach((id, index) => {
      if (!linked.has(id)) {
        throw new ProductValidationError(
          `data[${index}].id: variation ${id} is not linked to the product`,
          `data[${index}].id`,
        );
      }
    });
    next = current.filter((link) => !ids.includes(link.id));
  }
  if (next.length > MAX_LINKED_VARIATIONS) {
    throw new ProductValidationError(
      `a product may link at most ${MAX_LINKED_VARIATIONS} variations; this would link ${next.length}`,
      'data',
    );
  }
  return next;
}

/** Links, replaces or unlinks variations of the product: 404 for no such product, 422 for no such variation. */
export async function changeVariationLinks(
  storeId: string,
  productId: string,
  change: LinkChange,
  ids: string[],
  caller: WriteCaller,
): Promise<void> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    if (attempt > 1) await backoff(attempt);
    const before = await productOf(storeId, productId);
    if (before.deleting !== undefined) throw new ConflictError('the product is being deleted');
    if (before.parent_id !== undefined) {
      throw new UnprocessableEntityError(
        `product ${productId} is a child product: a child cannot have variations`,
      );
    }
    const at = new Date().toISOString();
    const current = before.variations ?? [];
    const next = linksAfter(current, change, ids, at);
    const order = (links: VariationLink[]) => links.map((link) => link.id).join();
    if (order(current) === order(next)) {
      await assertCallerExists(caller);
      return;
    }
    const after: ProductRecord = {
      ...before,
      variations: next,
      variations_generation: (before.variations_generation ?? 0) + 1,
      variations_changed_at: at,
      updated_at: at,
      version: before.version + 1,
    };
    const added = next.filter((link) => !current.some((c) => c.id === link.id)).map((link) => link.id);
    const removed = current.filter((link) => !next.some((n) => n.id === link.id)).map((link) => link.id);
    try {
      await productRepository.setVariationLinks(storeId, before, after, { added, removed }, caller);
      return;
    } catch (error) {
      if (error instanceof VariationMissingError) {
        const index = ids.indexOf(error.variationId);
        throw new ProductValidationError(
          `data[${index}].id: variation ${error.variationId} not found`,
          `data[${index}].id`,
        );
      }
      if (error instanceof ProductNotFoundError) throw new NotFoundError('product not found');
      if (error instanceof ProductChangedError) continue;
      throw error;
    }
  }
  throw new ConflictError(WRITE_CONFLICT);
}

/** `GET …/relationships/variations`: the linked variations in link order. */
export function renderVariationLinks(product: ProductRecord): { data: unknown[] } {
  return {
    data: (product.variations ?? []).map((link) => ({
      type: 'product-variation',
      id: link.id,
      meta: { created_at: link.created_at },
    })),
  };
}

/**
 * A parent's `meta.variations` (each linked variation, in link order, with its options) and
 * `meta.variation_matrix` (option ids nested in link order, leaves the child ids of the current generation).
 */
export async function parentMeta(
  storeId: string,
  product: ProductRecord,
): Promise<{ variations: unknown[]; variation_matrix: Record<string, unknown> }> {
  const links = product.variations ?? [];
  if (links.length === 0) return { variations: [], variation_matrix: {} };
  const [variations, entries] = await Promise.all([
    Promise.all(links.map((link) => variationRepository.getVariation(storeId, link.id))),
    childRepository.entries(storeId, product.id),
  ]);
  const generation = product.variations_generation ?? 0;
  const matrix: Record<string, unknown> = {};
  for (const entry of entries) {
    if (entry.generation !== generation) continue;
    let level = matrix;
    entry.options.forEach((optionId, index) => {
      if (index === entry.options.length - 1) level[optionId] = entry.child_id;
      else {
        level[optionId] ??= {};
        level = level[optionId] as Record<string, unknown>;
      }
    });
  }
  return {
    variations: variations.flatMap((found) =>
      found === undefined
        ? []
        : [
            {
              id: found.variation.id,
              name: found.variation.name,
              ...(found.variation.sort_order === undefined ? {} : { sort_order: found.variation.sort_order }),
              options: found.options.map((option) => ({
                id: option.id,
                name: option.name,
                description: option.description,
              })),
            },
          ],
    ),
    variation_matrix: matrix,
  };
}

/** A page of the parent's children (in combination order) and how many it has: 404 for no such product. */
export async function childrenOf(
  storeId: string,
  productId: string,
  page: PageRequest,
): Promise<{ products: ProductRecord[]; total: number }> {
  const { entries, total } = await besideParent(
    productOf(storeId, productId),
    childRepository.page(storeId, productId, page),
  );
  const found = new Map(
    (
      await productRepository.getMany(
        storeId,
        entries.map((entry) => entry.child_id),
      )
    ).map((p) => [p.id, p]),
  );
  const products = entries.flatMap((entry) => {
    const child = found.get(entry.child_id);
    return child === undefined ? [] : [child];
  });
  return { products, total };
}

/**
 * Starts a build of the product's children: a `child-products` job (lib/jobs), run later by the jobs
 * worker (`runChildProductsBuild`). 404 for no such product, 422 for a child product.
 */
export async function startChildProductsBuild(
  storeId: string,
  productId: string,
  requestId: string,
  caller: WriteCaller,
): Promise<JobRecord> {
  const product = await productOf(storeId, productId);
  if (product.parent_id !== undefined) {
    throw new UnprocessableEntityError(
      `product ${productId} is a child product: only a base product's children are built`,
    );
  }
  return enqueueJob(storeId, 'child-products', {}, requestId, { input: { product_id: productId }, caller });
}
