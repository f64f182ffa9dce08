import { BadRequestError } from '../http/errors';
import { type PageRequest, pageLinks, pageMeta, pageUrl } from '../pagination/index';
import type { ProductRecord } from '../store/product-repository';

/**
 * The platform's authored product (`type: "product"`), as `GET /pcm/products/{id}` answers it: the
 * attributes as stored, the relationships (their links without the `/pcm` prefix, as the platform writes
 * them) and `meta` with the product types the system assigns.
 */

/**
 * The most a response's body may take as Lambda counts it (inside its serialized result the body is a JSON
 * string, so every `"` and `\` counts twice): the budget of the catalog reads (lib/catalog/size-budget.ts,
 * which this module does not import: it brings the release validator along), leaving the rest of
 * Lambda's 6,291,556 bytes to the headers.
 */
export const PAGE_BUDGET_BYTES = 5 * 1024 * 1024;

/** Bytes a JSON text takes inside Lambda's serialized response. */
export const responseBytes = (json: string) => Buffer.byteLength(JSON.stringify(json)) - 2;

export const productUrl = (origin: string, productId: string) => `${origin}/pcm/products/${productId}`;

/** `child` for a built child, `parent` with linked variations, `bundle` with components, else `standard`. */
export function productTypes(product: ProductRecord): string[] {
  if (product.parent_id !== undefined) return ['child'];
  if ((product.variations ?? []).length > 0) return ['parent'];
  return Object.keys(product.attributes.components ?? {}).length > 0 ? ['bundle'] : ['standard'];
}

/** The distinct product ids a bundle's options name, in the order they first appear. */
export function componentProductIds(product: ProductRecord): string[] {
  const ids = new Set<string>();
  for (const component of Object.values(product.attributes.components ?? {})) {
    for (const option of component.options) ids.add(option.id.toLowerCase());
  }
  return [...ids];
}

/**
 * The product's files as its `files` relationship lists them: `{type: "file", id, meta}`, `meta.created_at`
 * when the product started naming the file and `meta.tags` when it was given some (the SDK's
 * `PcmFileRelationship`).
 */
export function fileIdentifiers(product: ProductRecord): Record<string, unknown>[] {
  return (product.files ?? []).map((file) => ({
    type: 'file',
    id: file.id,
    meta:
      file.tags === undefined
        ? { created_at: file.created_at }
        : { created_at: file.created_at, tags: file.tags },
  }));
}

/** The product's main image as its `main_image` relationship names it, or null. */
export const mainImageIdentifier = (product: ProductRecord) =>
  product.main_image === undefined ? null : { type: 'file', id: product.main_image };

const relation = (productId: string, name: string, data: unknown[] = []) => ({
  data,
  links: { self: `/products/${productId}/relationships/${name}` },
});

/**
 * The product resource. A parent's `meta.variations` and `meta.variation_matrix` come from its variations and
 * children (`parent`, read by the caller: lib/builds/links.ts `parentMeta`); without them they are empty.
 */
export function renderProduct(
  product: ProductRecord,
  parent?: { variations: unknown[]; variation_matrix: Record<string, unknown> },
): Record<string, unknown> {
  const components = componentProductIds(product).map((id) => ({ type: 'product', id }));
  const variations = (product.variations ?? []).map((link) => ({ type: 'product-variation', id: link.id }));
  const child = product.parent_id;
  return {
    id: product.id,
    type: 'product',
    attributes: product.attributes,
    relationships: {
      ...(child === undefined ? {} : { base_product: { data: { type: 'product', id: child } } }),
      children: { data: [], links: { self: `/products/${product.id}/children` } },
      component_products: relation(product.id, 'component_products', components),
      files: relation(product.id, 'files', fileIdentifiers(product)),
      main_image: { data: mainImageIdentifier(product) },
      templates: relation(product.id, 'templates'),
      variations: relation(product.id, 'variations', variations),
    },
    meta: {
      created_at: product.created_at,
      updated_at: product.updated_at,
      owner: 'store',
      product_types: productTypes(product),
      variations: parent?.variations ?? [],
      variation_matrix: parent?.variation_matrix ?? {},
      ...(product.child_variations === undefined ? {} : { child_variations: product.child_variations }),
      ...((product.price_modifiers ?? []).length === 0 ? {} : { price_modifiers: product.price_modifiers }),
    },
  };
}

/** A page of products in the platform's list shape: `data`, `links`, `meta.results.total` (and `meta.page`). */
export function renderProductPage(
  products: ProductRecord[],
  total: number,
  page: PageRequest,
  base: string,
  filter: string | undefined,
  included?: Record<string, unknown>,
): { data: unknown[]; included?: Record<string, unknown>; links: unknown; meta: unknown } {
  const extra: Record<string, string> = filter === undefined ? {} : { filter };
  return {
    data: products.map((product) => renderProduct(product)),
    ...(included === undefined ? {} : { included }),
    links: pageLinks(page, total, (offset, limit) => pageUrl(base, offset, limit, extra)),
    meta: { page: pageMeta(page, total), results: { total } },
  };
}

/**
 * The response body when it fits what one Lambda response may carry (PAGE_BUDGET_BYTES as Lambda counts
 * it, the catalog reads' budget): a product may take 300,000 bytes, so 100 of them, or a bundle's included
 * components, may not. Otherwise a 400 saying what fits: the largest `page[limit]` that does, or to leave
 * out `include`.
 */
export function fittingResponse<T extends { data: unknown; included?: unknown }>(body: T): T {
  const bytes = responseBytes(JSON.stringify(body));
  if (bytes <= PAGE_BUDGET_BYTES) return body;
  const { included, ...rest } = body;
  if (included !== undefined && responseBytes(JSON.stringify(rest)) <= PAGE_BUDGET_BYTES) {
    throw new BadRequestError(
      `with include the response would take ${bytes} bytes, more than the ${PAGE_BUDGET_BYTES} one response may carry: leave out include and read the included products by id, or ask for fewer products`,
      'include',
    );
  }
  const data = Array.isArray(body.data) ? body.data : [body.data];
  let used = responseBytes(JSON.stringify({ ...rest, data: [] }));
  let fit = 0;
  for (const resource of data) {
    used += responseBytes(JSON.stringify(resource)) + 1;
    if (used > PAGE_BUDGET_BYTES) break;
    fit += 1;
  }
  throw new BadRequestError(
    `this page would take ${bytes} bytes, more than the ${PAGE_BUDGET_BYTES} one response may carry: ask for at most ${Math.max(1, fit)} products (page[limit]=${Math.max(1, fit)})`,
    'page[limit]',
  );
}
