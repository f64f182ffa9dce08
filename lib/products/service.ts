import { randomUUID } from 'node:crypto';
import { slugFromName } from '../catalog/derive';
import { renderFile } from '../files/render';
import { BadRequestError, ConflictError, NotFoundError, WRITE_CONFLICT } from '../http/errors';
import { uuidv7 } from '../ids';
import { detachEverywhere } from '../nodes/service';
import type { PageRequest } from '../pagination/index';
import type { WriteCaller } from '../store/caller-check';
import { childRepository } from '../store/child-repository';
import { fileRepository } from '../store/file-repository';
import { backoff, settleAll } from '../store/items';
import { nodeRepository } from '../store/node-repository';
import {
  ExternalRefTakenError,
  type ProductAttributes,
  ProductChangedError,
  ProductNotFoundError,
  type ProductRecord,
  ProductWriteConflictError,
  productRepository,
  SkuTakenError,
  VariationMissingError,
} from '../store/product-repository';
import { MAX_PRODUCT_BYTES, type ProductInclude, ProductValidationError } from '../validation/product';
import { compileProductFilter, parseProductFilter, skusOf } from './filter';
import { componentProductIds, PAGE_BUDGET_BYTES, renderProduct, responseBytes } from './render';

/**
 * After how long a delete's mark, or a use record of a bundle write that has not landed, is taken as left
 * by a writer that stopped half-way: six times the functions' 10 s timeout, past which no write of theirs
 * can still land. Until then a bundle update that failed blocks deleting the components it named (409).
 */
const ABANDONED_MS = 60 * 1000;
const ATTEMPTS = 8;
/** Component products read at once for `include` (one BatchGetItem). */
const INCLUDE_BATCH = 100;
const COMPONENTS = 'data.attributes.components';

/** True when `at` (an ISO time, or a delete's mark, which begins with one) is older than ABANDONED_MS. */
const abandoned = (at: string | undefined) =>
  at !== undefined && Date.now() - Date.parse(at.slice(0, 24)) > ABANDONED_MS;

/** The product, or 404. */
export async function productOf(storeId: string, productId: string): Promise<ProductRecord> {
  const product = await productRepository.get(storeId, productId);
  if (!product) throw new NotFoundError('product not found');
  return product;
}

/** The platform's answers to a taken sku or external_ref, and to a write that kept losing races. */
function conflictOf(error: unknown): unknown {
  if (error instanceof SkuTakenError) {
    return new ConflictError('data.attributes.sku: Must be unique amongst products.', 'data.attributes.sku');
  }
  if (error instanceof ExternalRefTakenError) {
    return new ConflictError(
      'data.attributes.external_ref: Must be unique amongst products.',
      'data.attributes.external_ref',
    );
  }
  if (error instanceof ProductWriteConflictError) return new ConflictError(WRITE_CONFLICT);
  return error;
}

/**
 * A bundle's components must be products of the store (not itself, not one being deleted), and a bundle
 * may contain bundles one level deep only: a component bundle may not contain bundles, and a bundle that
 * contains bundles may not be a component of another. Runs after the bundle's use records are written, so
 * a concurrent delete of a component either sees the record or is seen here (its mark).
 */
async function checkComponents(storeId: string, bundle: ProductRecord): Promise<void> {
  const ids = componentProductIds(bundle);
  if (ids.length === 0) return;
  if (ids.includes(bundle.id)) {
    throw new ProductValidationError(`${COMPONENTS}: a bundle cannot contain itself`, COMPONENTS);
  }
  const found = new Map((await productRepository.getMany(storeId, ids)).map((p) => [p.id, p]));
  for (const id of ids) {
    const component = found.get(id);
    if (!component || (component.deleting !== undefined && !abandoned(component.deleting))) {
      throw new ProductValidationError(`${COMPONENTS}: product ${id} does not exist`, COMPONENTS);
    }
  }
  const isBundle = (p: ProductRecord) => componentProductIds(p).length > 0;
  const componentBundles = [...found.values()].filter(isBundle);
  const nested = componentBundles.flatMap(componentProductIds);
  if (nested.length > 0) {
    const deeper = (await productRepository.getMany(storeId, nested)).find(isBundle);
    if (deeper) {
      throw new ProductValidationError(
        `${COMPONENTS}: a bundle may contain bundles only one level deep; a component bundle contains bundle ${deeper.id}`,
        COMPONENTS,
      );
    }
  }
  if (componentBundles.length > 0) {
    const usedBy = await bundlesUsing(storeId, bundle.id);
    if (usedBy.length > 0) {
      throw new ProductValidationError(
        `${COMPONENTS}: the product is a component of bundle ${usedBy[0]}, so it may not contain bundles (one level deep only)`,
        COMPONENTS,
      );
    }
  }
}

/**
 * The bundles that use the product: those whose components name it, and those whose write naming it may
 * still be under way (its record is of a version the bundle has not reached, or of a bundle not created
 * yet, and younger than ABANDONED_MS). Other records are stale and removed, each on condition that no
 * write recorded it again meanwhile (if one did, that bundle counts as using it).
 */
async function bundlesUsing(storeId: string, productId: string): Promise<string[]> {
  const uses = await productRepository.usesOf(storeId, productId);
  const bundles = new Map(
    (
      await productRepository.getMany(
        storeId,
        uses.map((use) => use.bundle_id),
      )
    ).map((p) => [p.id, p]),
  );
  const using: string[] = [];
  for (const use of uses) {
    const bundle = bundles.get(use.bundle_id);
    const names = bundle !== undefined && componentProductIds(bundle).includes(productId);
    const pending = (bundle === undefined || bundle.version < use.version) && !abandoned(use.created_at);
    if (names || pending || !(await productRepository.removeUse(storeId, productId, use))) {
      using.push(use.bundle_id);
    }
  }
  return using;
}

/** The product without the files it names (they have their own bound: lib/products/files.ts). */
function assertSize(product: ProductRecord): void {
  const { main_image: _image, files: _files, ...rest } = product;
  const bytes = Buffer.byteLength(JSON.stringify(rest), 'utf8');
  if (bytes > MAX_PRODUCT_BYTES) {
    throw new ProductValidationError(
      `the product would take ${bytes} bytes, at most ${MAX_PRODUCT_BYTES} are allowed: shorten its attributes`,
      'data.attributes',
    );
  }
}

/**
 * Writes a product whose components may have changed: a use record of every component it names (of the
 * version it writes) first, then the checks, then the write. Records are never removed here (a concurrent
 * write of the same bundle may share them): those the bundle stops naming go stale and a delete of the
 * component removes them (`bundlesUsing`).
 */
async function writeWithComponents(
  storeId: string,
  after: ProductRecord,
  write: () => Promise<void>,
): Promise<void> {
  const ids = componentProductIds(after);
  await productRepository.addUses(storeId, after.id, ids, after.version, after.updated_at);
  await checkComponents(storeId, after);
  await write();
}

/** Attributes in the platform's order, without absent ones. */
export function ordered(attributes: Partial<ProductAttributes>): ProductAttributes {
  const order: (keyof ProductAttributes)[] = [
    'name',
    'sku',
    'slug',
    'description',
    'status',
    'commodity_type',
    'upc_ean',
    'mpn',
    'external_ref',
    'tags',
    'locales',
    'custom_inputs',
    'build_rules',
    'components',
    'extensions',
  ];
  const result: Record<string, unknown> = {};
  for (const key of order) if (attributes[key] !== undefined) result[key] = attributes[key];
  return result as unknown as ProductAttributes;
}

/** Creates a product, linking `variationIds` (in that order) in the same transaction. */
export async function createProduct(
  storeId: string,
  attributes: Partial<ProductAttributes> & { name: string },
  caller: WriteCaller | undefined,
  variationIds: string[] = [],
): Promise<ProductRecord> {
  const at = new Date().toISOString();
  const id = uuidv7();
  const links =
    variationIds.length === 0
      ? {}
      : {
          variations: variationIds.map((variationId) => ({ id: variationId, created_at: at })),
          variations_generation: 1,
          variations_changed_at: at,
        };
  const product: ProductRecord = {
    ...links,
    id,
    attributes: ordered({
      status: 'draft',
      commodity_type: 'physical',
      ...attributes,
      slug: attributes.slug ?? slugFromName(attributes.name, id),
    }),
    created_at: at,
    updated_at: at,
    version: 1,
  };
  assertSize(product);
  try {
    await writeWithComponents(storeId, product, () => productRepository.create(storeId, product, caller));
  } catch (error) {
    // A new id: no other write shares its use records, so a create refused before anything was written
    // takes them back at once (after any other failure the product may exist: they stay).
    const refused =
      error instanceof ProductValidationError ||
      error instanceof SkuTakenError ||
      error instanceof ExternalRefTakenError ||
      error instanceof ProductWriteConflictError;
    if (refused || error instanceof VariationMissingError) {
      await productRepository.removeUses(storeId, id, componentProductIds(product));
    }
    if (error instanceof VariationMissingError) {
      const source = `data.relationships.variations.data[${variationIds.indexOf(error.variationId)}].id`;
      throw new ProductValidationError(`${source}: variation ${error.variationId} not found`, source);
    }
    throw conflictOf(error);
  }
  return product;
}

/**
 * The product as read for a write: 404 when it is not there, 409 while a delete is checking it, undefined
 * when a delete that stopped half-way had marked it (the mark is removed: read it again).
 */
export async function writableProduct(
  storeId: string,
  productId: string,
): Promise<ProductRecord | undefined> {
  const before = await productOf(storeId, productId);
  if (before.deleting === undefined) return before;
  if (!abandoned(before.deleting)) throw new ConflictError('the product is being deleted');
  await productRepository.unmarkDeleting(storeId, productId);
  return undefined;
}

/** The product's next version as a write makes it (without a delete's mark), its content unchanged. */
export function nextVersion(before: ProductRecord): ProductRecord {
  const { deleting: _, ...rest } = before;
  return { ...rest, updated_at: new Date().toISOString(), version: before.version + 1 };
}

/**
 * Changes only the attributes sent: read, apply, write on condition that nothing changed since (else read
 * again and re-apply), so concurrent updates of different attributes all survive.
 */
export async function updateProduct(
  storeId: string,
  productId: string,
  changes: Partial<ProductAttributes>,
  caller: WriteCaller | undefined,
): Promise<ProductRecord> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    if (attempt > 1) await backoff(attempt);
    const before = await writableProduct(storeId, productId);
    if (before === undefined) continue;
    // A child edited directly is detached: builds leave it alone from then on.
    const after: ProductRecord = {
      ...nextVersion(before),
      attributes: ordered({ ...before.attributes, ...changes }),
      ...(before.parent_id === undefined ? {} : { detached: true }),
    };
    assertSize(after);
    try {
      const write = () => productRepository.replace(storeId, before, after, caller);
      if (changes.components === undefined) await write();
      else await writeWithComponents(storeId, after, write);
      return after;
    } catch (error) {
      if (error instanceof ProductNotFoundError) throw new NotFoundError('product not found');
      if (error instanceof ProductChangedError) continue;
      throw conflictOf(error);
    }
  }
  throw new ConflictError(WRITE_CONFLICT);
}

/** Deletes the product and frees its sku and external_ref: 409 while a bundle's components use it. */
export async function deleteProduct(storeId: string, productId: string, caller: WriteCaller): Promise<void> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    if (attempt > 1) await backoff(attempt);
    const product = await productOf(storeId, productId);
    const now = Date.now();
    const mark = `${new Date(now).toISOString()}#${randomUUID()}`;
    const staleBefore = new Date(now - ABANDONED_MS).toISOString();
    if (!(await productRepository.markDeleting(storeId, product, mark, staleBefore))) continue;
    // Marked first: a bundle write records its use of the product before it reads the mark, and a build
    // writing a child and an attach check the mark in their transaction, so nothing these reads look for
    // can appear unseen from now on. They go out together, and the delete goes on once all have settled
    // (nothing left in flight).
    const uses = bundlesUsing(storeId, productId);
    const children = childRepository.hasChildren(storeId, productId);
    const attachments = nodeRepository.attachmentsOfProduct(storeId, productId);
    await settleAll([uses, children, attachments]);
    const using = await uses;
    if (using.length > 0) {
      await productRepository.unmarkDeleting(storeId, productId);
      throw new ConflictError(
        `the product is a component of bundle ${using[0]}: remove it from the bundle's components (or delete the bundle) first`,
      );
    }
    if (await children) {
      await productRepository.unmarkDeleting(storeId, productId);
      throw new ConflictError(
        'the product has child products: unlink its variations and build again (which deletes the children it built), and delete children edited since, first',
      );
    }
    await detachEverywhere(storeId, productId, await attachments, caller);
    try {
      await productRepository.delete(storeId, product, mark, caller);
    } catch (error) {
      if (error instanceof ProductChangedError) continue;
      await productRepository.unmarkDeleting(storeId, productId);
      throw conflictOf(error);
    }
    await productRepository.removeUses(storeId, productId, componentProductIds(product));
    return;
  }
  throw new ConflictError(WRITE_CONFLICT);
}

/** A page of the store's products, in creation order; `filter` narrows the list and its total. */
export async function listProducts(
  storeId: string,
  page: PageRequest,
  filter: string | undefined,
): Promise<{ products: ProductRecord[]; total: number }> {
  if (filter === undefined) return productRepository.page(storeId, page);
  const parsed = parseProductFilter(filter);
  const matches = compileProductFilter(parsed);
  const skus = skusOf(parsed);
  let candidates: ProductRecord[];
  if (skus === undefined) candidates = await productRepository.all(storeId);
  else {
    const ids = await Promise.all(skus.map((sku) => productRepository.idOfSku(storeId, sku)));
    candidates = await productRepository.getMany(
      storeId,
      ids.filter((id): id is string => id !== undefined),
    );
    candidates.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
  const matched = candidates.filter(matches);
  return { products: matched.slice(page.offset, page.offset + page.limit), total: matched.length };
}

/** The distinct ids of `ids`, in the order first given. */
const distinct = (ids: string[]) => [...new Set(ids)];

/**
 * `included` for `include`: the component products of the products (rendered, in the order first named),
 * their main images (`main_images`) and their files (`files`), as `/v2/files` renders them (each once, in
 * the order first named). Undefined without include. Components are read 100 at a time and the reading
 * stops, with a 400 naming include, once they would be more than one response may carry (a page of
 * bundles may name 150,000 products); files are at most 49 a product.
 */
export async function includedFor(
  storeId: string,
  products: ProductRecord[],
  includes: Set<ProductInclude>,
  origin: string,
): Promise<Record<string, unknown> | undefined> {
  if (includes.size === 0) return undefined;
  const included: Record<string, unknown> = {};
  if (includes.has('component_products')) {
    const ids = distinct(products.flatMap(componentProductIds));
    const rendered: Record<string, unknown>[] = [];
    let bytes = 0;
    for (let start = 0; start < ids.length; start += INCLUDE_BATCH) {
      const batch = ids.slice(start, start + INCLUDE_BATCH);
      const found = new Map((await productRepository.getMany(storeId, batch)).map((p) => [p.id, p]));
      for (const id of batch) {
        const component = found.get(id);
        if (!component) continue;
        const resource = renderProduct(component);
        bytes += responseBytes(JSON.stringify(resource));
        if (bytes > PAGE_BUDGET_BYTES) {
          throw new BadRequestError(
            `the included component products would take more than the ${PAGE_BUDGET_BYTES} bytes one response may carry: leave out include and read them by id, or ask for fewer products`,
            'include',
          );
        }
        rendered.push(resource);
      }
    }
    included.component_products = rendered;
  }
  const images = includes.has('main_image')
    ? distinct(products.flatMap((product) => product.main_image ?? []))
    : [];
  const files = includes.has('files')
    ? distinct(products.flatMap((product) => (product.files ?? []).map((file) => file.id)))
    : [];
  if (includes.has('main_image') || includes.has('files')) {
    const found = new Map(
      (await fileRepository.byIds(storeId, distinct([...images, ...files]))).map((file) => [file.id, file]),
    );
    const render = (ids: string[]) =>
      ids.flatMap((id) => {
        const file = found.get(id);
        return file === undefined ? [] : [renderFile(file, origin)];
      });
    if (includes.has('main_image')) included.main_images = render(images);
    if (includes.has('files')) included.files = render(files);
  }
  return included;
}
