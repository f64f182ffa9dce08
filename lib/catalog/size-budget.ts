import { DEFAULT_MAX_LIMIT } from '../pagination/index';
import type { StoredNode } from './hierarchy-items';
import { renderProduct } from './render';
import type { FileResource, StoredProduct } from './types';
import type { ValidationIssue } from './validate-release';

/**
 * What one response of the catalog reads may take, checked when a release is published.
 *
 * A synchronous Lambda function returns at most 6,291,556 bytes, counted on its serialized result: the body is
 * a JSON string inside it, so every `"` and `\` of the body counts twice. A list page holds up to 100
 * resources (`page[limit]` at most 100) plus, with `include`, the files, main images and component products
 * they name; `GET /catalog/products?filter=in(id,…)` can put any 100 live products of a release on one page.
 * So the worst page of any product list is the 100 live products that weigh most with everything they can
 * include, and the worst node page the 100 heaviest nodes. The publisher refuses a release whose worst page is
 * over PAGE_BUDGET_BYTES, leaving the rest of Lambda's limit to `meta`, `links` (which repeat the request's
 * `filter`) and the headers.
 */

/** Lambda's limit on a synchronous function's serialized response. */
export const LAMBDA_RESPONSE_BYTES = 6_291_556;
/** The most one page's `data` and `included` may take, as Lambda counts them (see above). */
export const PAGE_BUDGET_BYTES = 5 * 1024 * 1024;
/** Resources on the largest page of any list (`page[limit]`'s maximum). */
export const PAGE_SIZE = DEFAULT_MAX_LIMIT;
/**
 * A product shown in the store's default locale carries that locale's tag in `attributes.language`; the
 * tag is not known at publish time, so this many bytes are counted for it (store locale tags are shorter).
 */
export const DEFAULT_LOCALE_TAG_BYTES = 64;

/** Bytes a JSON text takes inside Lambda's serialized response (where it is a JSON string). */
export function responseBytes(json: string): number {
  return Buffer.byteLength(JSON.stringify(json)) - 2;
}

/**
 * The largest a product renders to (`data` of any of its reads): in the locale whose name and description
 * weigh most (or the store's default locale, with the base text), in the display currency whose prices do.
 * Exact but for the default locale's tag, counted as DEFAULT_LOCALE_TAG_BYTES.
 */
export function productResponseBytes(stored: StoredProduct): number {
  const base = stored.resource.attributes;
  const textBytes = (name: unknown, description: unknown, tag: number) =>
    responseBytes(JSON.stringify([name, description])) + tag;
  const defaultTag = 'x'.repeat(DEFAULT_LOCALE_TAG_BYTES);
  let locale = defaultTag;
  let most = textBytes(base.name, base.description, DEFAULT_LOCALE_TAG_BYTES);
  for (const [tag, text] of Object.entries(stored.locales)) {
    const bytes = textBytes(text.name ?? base.name, text.description ?? base.description, tag.length);
    if (bytes > most) {
      most = bytes;
      locale = tag;
    }
  }
  let largest = 0;
  for (const currency of [undefined, ...Object.keys(stored.display ?? {})]) {
    const bytes = responseBytes(JSON.stringify(renderProduct(stored, locale, currency)));
    if (bytes > largest) largest = bytes;
  }
  return largest;
}

/** The ids a relationship of the product names (`data` an object or an array). */
export function relatedIds(stored: StoredProduct, relationship: string): string[] {
  const data = (stored.resource.relationships[relationship] as { data?: unknown } | undefined)?.data;
  if (Array.isArray(data)) return data.map((entry) => (entry as { id: string }).id);
  return data === undefined ? [] : [(data as { id: string }).id];
}

/** One resource of a page with its weight: what it adds to the page with everything it can include. */
export interface Weighed {
  /** Position in the document's `products` or `nodes`. */
  index: number;
  id: string;
  bytes: number;
}

/** The `n` heaviest of what is added, kept in a min-heap: memory holds `n` entries whatever is added. */
export class Heaviest {
  private readonly heap: Weighed[] = [];
  constructor(readonly n: number = PAGE_SIZE) {}

  add(entry: Weighed): void {
    const heap = this.heap;
    if (heap.length < this.n) {
      heap.push(entry);
      let i = heap.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if ((heap[parent] as Weighed).bytes <= entry.bytes) break;
        heap[i] = heap[parent] as Weighed;
        i = parent;
      }
      heap[i] = entry;
      return;
    }
    if (entry.bytes <= (heap[0] as Weighed).bytes) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child =
        right < heap.length && (heap[right] as Weighed).bytes < (heap[left] as Weighed).bytes ? right : left;
      if ((heap[child] as Weighed).bytes >= entry.bytes) break;
      heap[i] = heap[child] as Weighed;
      i = child;
    }
    heap[i] = entry;
  }

  /** The kept entries, heaviest first. */
  entries(): Weighed[] {
    return [...this.heap].sort((a, b) => b.bytes - a.bytes || a.index - b.index);
  }

  /** Their bytes together: the worst page. */
  total(): number {
    return this.heap.reduce((sum, entry) => sum + entry.bytes, 0);
  }
}

/** How a resource's bytes in a response are found: exactly, or bounded from the size of what is stored. */
export interface ProductMeasure {
  product(stored: StoredProduct, index: number): number;
  file(file: FileResource, index: number): number;
}

/** Exact sizes: every live product rendered in its heaviest locale and currency. */
export const EXACT: ProductMeasure = {
  product: (stored) => productResponseBytes(stored),
  file: (file) => responseBytes(JSON.stringify(file)),
};

/**
 * Upper bounds from the JSON text a release stores for each product and file (`chars` UTF-16 units each):
 * a rendering is made of what the stored product holds (its resource, one locale's text, one currency's
 * prices) plus the locale tag, and no UTF-16 unit of JSON text takes more than 3 bytes in Lambda's response
 * (a `"` or `\` 2, escaped; anything else at most 3 in UTF-8, a surrogate pair 4 for two units). Cheap: when
 * the worst page fits by these bounds, nothing needs rendering.
 */
export function boundedMeasure(
  productChars: readonly number[],
  fileChars: readonly number[],
): ProductMeasure {
  return {
    product: (_stored, index) => 3 * ((productChars[index] ?? 0) + DEFAULT_LOCALE_TAG_BYTES + 16),
    file: (_file, index) => 3 * (fileChars[index] ?? 0),
  };
}

/**
 * What each live product adds to a page, as `data` (its largest rendering) and, with every `include`, as
 * `included`: its main image and files, and its live component products at their largest, each counted
 * once per product (a page that shares them holds less). One comma per resource.
 */
export function productPageWeights(
  products: StoredProduct[],
  files: FileResource[],
  measure: ProductMeasure = EXACT,
): Weighed[] {
  const fileBytes = new Map<string, number>();
  files.forEach((file, index) => {
    fileBytes.set(file.id, measure.file(file, index) + 1);
  });
  const liveBytes = new Map<string, number>();
  products.forEach((stored, index) => {
    if (stored.live) liveBytes.set(stored.resource.id, measure.product(stored, index) + 1);
  });
  const weights: Weighed[] = [];
  products.forEach((stored, index) => {
    const own = liveBytes.get(stored.resource.id);
    if (own === undefined) return;
    let bytes = own;
    for (const id of new Set([...relatedIds(stored, 'main_image'), ...relatedIds(stored, 'files')])) {
      bytes += fileBytes.get(id) ?? 0;
    }
    for (const id of new Set(relatedIds(stored, 'component_products'))) bytes += liveBytes.get(id) ?? 0;
    weights.push({ index, id: stored.resource.id, bytes });
  });
  return weights;
}

/** The worst page's bytes: the `PAGE_SIZE` heaviest weights together. */
export function worstPageBytes(weights: Iterable<Weighed>): number {
  const heaviest = new Heaviest();
  for (const weight of weights) heaviest.add(weight);
  return heaviest.total();
}

/**
 * The issues of a release's product pages (see pageBudgetIssues): bounded from the stored sizes first, and
 * rendered exactly only when those bounds do not fit.
 */
export function productBudgetIssues(
  products: StoredProduct[],
  files: FileResource[],
  stored: { productChars: readonly number[]; fileChars: readonly number[] },
): ValidationIssue[] {
  const bounded = boundedMeasure(stored.productChars, stored.fileChars);
  if (worstPageBytes(productPageWeights(products, files, bounded)) <= PAGE_BUDGET_BYTES) return [];
  return pageBudgetIssues(productPageWeights(products, files, EXACT), 'products');
}

/** What each node adds to a node or hierarchy page: its larger rendering and a comma. */
export function nodePageWeights(nodeIds: string[], nodes: Map<string, StoredNode>): Weighed[] {
  return nodeIds.map((id, index) => {
    const stored = nodes.get(id);
    const node = stored?.node === undefined ? 0 : responseBytes(stored.node);
    const hierarchy = stored?.hierarchy === undefined ? 0 : responseBytes(stored.hierarchy);
    return { index, id, bytes: Math.max(node, hierarchy) + 1 };
  });
}

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The issues of a release whose worst page is over the budget: the heaviest resources of that page (up to
 * five, each with its own bytes and the page's), under `products[i]` or `nodes[i]`. Empty when it fits.
 */
export function pageBudgetIssues(weights: Iterable<Weighed>, kind: 'products' | 'nodes'): ValidationIssue[] {
  const heaviest = new Heaviest();
  for (const weight of weights) heaviest.add(weight);
  const total = heaviest.total();
  if (total <= PAGE_BUDGET_BYTES) return [];
  const what =
    kind === 'products'
      ? 'with its main image, files and component products, this product takes'
      : 'this node takes';
  const page = kind === 'products' ? `${PAGE_SIZE} live products` : `${PAGE_SIZE} nodes`;
  return heaviest
    .entries()
    .slice(0, 5)
    .map((entry) => ({
      path: `${kind}[${entry.index}]`,
      rule: 'response_size',
      message:
        `${what} ${count(entry.bytes)} bytes of a response; a page of the ${page} that weigh most ` +
        `(this one among them) would take ${count(total)} bytes, over the ${count(PAGE_BUDGET_BYTES)}-byte ` +
        `budget of one response (Lambda returns at most ${count(LAMBDA_RESPONSE_BYTES)} bytes): shorten its ` +
        `text${kind === 'products' ? ' or give it fewer files or components' : ''}`,
    }));
}
