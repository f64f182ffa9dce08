import {
  canonicalFilter,
  compileFilter,
  type FilterExpression,
  isIdLookup,
  NO_MATCH_FILTER,
} from '../filter/index';
import { NotFoundError, UnprocessableEntityError } from '../http/errors';
import { isUuid } from '../ids';
import { countMetric, METRIC } from '../metrics/index';
import type { PageRequest } from '../pagination/index';
import { type CatalogRegistry, catalogRepository, chunkId, postingsId } from '../store/catalog-repository';
import { chunkCache, currentRegistry, fileCache, positionCache, productCache, resultCache } from './cache';
import { chunkCount, chunksForPage, decodeChunkMeasured, HEAP_PER_SERIALIZED_CHAR } from './child-index';
import { FILTER_INDEX_VERSION, fixedBuckets, neededId, readMatchingPositions } from './filter-index';
import { productLocale, renderProductJson } from './render';
import { resolveCatalog, storeRules } from './rules';
import type { ChildIndexEntry, ReleaseLayout, StoredProduct } from './types';

export const NO_CATALOG = 'no catalog for this context';
export const PRODUCT_NOT_FOUND = 'product not found in the catalog';
export const NOT_A_BASE_PRODUCT = 'the product is not a base product, so it has no child products';

export interface ListChildrenRequest {
  storeId: string;
  /** The store's locale for text when `accept-language` matches none of a product's locales. */
  defaultLocale: string;
  productId: string;
  /** Undefined: the request sent none (only rules without channels can match). */
  channel: string | undefined;
  tag: string | undefined;
  acceptLanguage: string | undefined;
  filter: FilterExpression[];
  page: PageRequest;
  /** What `included` holds (none: no `included`). */
  include?: ReadonlySet<Include>;
  /** The display currency (a currency of the store); default: the one the release was published in. */
  currency?: string;
  now?: Date;
}

export interface ListChildrenResult {
  /** The page's products, each as JSON text (see `renderProductJson`). */
  data: string[];
  /** Live children matching the filter, over all pages. */
  total: number;
  /** `included` as JSON text, when anything was asked for. */
  included?: string;
}

/** What `include` may ask for on the child list. */
export const INCLUDES = ['main_image', 'files', 'component_products'] as const;
export type Include = (typeof INCLUDES)[number];

/** The release serving a shopper's context (the store's catalog rules); 404 when none applies. */
export function releaseFor(
  registry: CatalogRegistry | undefined,
  context: { channel: string | undefined; tag: string | undefined; now: Date },
): ReleaseLayout {
  const catalogs = Object.values(registry?.catalogs ?? {});
  const catalogId = resolveCatalog(
    registry === undefined ? [] : storeRules(registry),
    catalogs.map((catalog) => ({ id: catalog.id, created_at: catalog.created_at })),
    context,
  );
  const catalog = catalogId === undefined ? undefined : registry?.catalogs[catalogId];
  if (!catalog) throw new NotFoundError(NO_CATALOG);
  return catalog.release;
}

const productKey = (layout: ReleaseLayout, id: string) => `${layout.id}|${id}`;
const chunkKey = (layout: ReleaseLayout, parentId: string, n: number) =>
  `${layout.id}|${chunkId(parentId, n)}`;
/** Heap of a cached id list: a 36-character UUID string and its array slot (measured ~60 bytes). */
const ID_WEIGHT = 64;

interface Loaded {
  products: Map<string, StoredProduct | null>;
  /** Files as rendered JSON text (null when not in the release). */
  files: Map<string, string | null>;
  chunks: Map<number, ChildIndexEntry[]>;
}

/**
 * Products and files (null when not in the release) and child-index chunks of one parent (absent ones left
 * out), from the caches, reading whatever is missing in one round trip and caching it.
 */
export async function load(
  layout: ReleaseLayout,
  productIds: string[],
  parentId: string,
  chunks: number[],
  speculativeChunks = false,
  fileIds: string[] = [],
): Promise<Loaded> {
  const loaded: Loaded = { products: new Map(), files: new Map(), chunks: new Map() };
  const missingProducts: string[] = [];
  for (const id of productIds) {
    const cached = productCache.get(productKey(layout, id));
    if (cached === undefined) missingProducts.push(id);
    else loaded.products.set(id, cached);
  }
  const missingFiles: string[] = [];
  for (const id of fileIds) {
    const cached = fileCache.get(productKey(layout, id));
    if (cached === undefined) missingFiles.push(id);
    else loaded.files.set(id, cached);
  }
  const missingChunks: number[] = [];
  for (const n of chunks) {
    const cached = chunkCache.get(chunkKey(layout, parentId, n));
    if (cached === undefined) missingChunks.push(n);
    else loaded.chunks.set(n, cached);
  }
  const missing = missingProducts.length + missingFiles.length + missingChunks.length;
  countMetric(METRIC.catalogCacheHits, productIds.length + fileIds.length + chunks.length - missing);
  countMetric(METRIC.catalogCacheMisses, missing);
  if (missing === 0) return loaded;
  const read = await catalogRepository.readRelease(layout, {
    products: missingProducts,
    files: missingFiles,
    chunks: missingChunks.map((chunk) => ({ parentId, chunk })),
    speculativeChunks,
  });
  for (const id of missingFiles) {
    const json = read.files.get(id) ?? null;
    loaded.files.set(id, json);
    fileCache.set(
      productKey(layout, id),
      json,
      Math.ceil((json?.length ?? 0) * HEAP_PER_SERIALIZED_CHAR) + 100,
    );
  }
  for (const id of missingProducts) {
    const found = read.products.get(id);
    loaded.products.set(id, found?.stored ?? null);
    // Weight: the stored JSON's length times the measured heap ratio (see HEAP_PER_SERIALIZED_CHAR).
    productCache.set(
      productKey(layout, id),
      found?.stored ?? null,
      Math.ceil((found?.bytes ?? 0) * HEAP_PER_SERIALIZED_CHAR) + 100,
    );
  }
  for (const n of missingChunks) {
    const bytes = read.chunks.get(chunkId(parentId, n));
    if (!bytes) continue;
    // Charged by what the entries really take: their size varies 50-fold between valid catalogs.
    const { entries, heapBytes } = decodeChunkMeasured(bytes);
    loaded.chunks.set(n, entries);
    chunkCache.set(chunkKey(layout, parentId, n), entries, heapBytes);
  }
  return loaded;
}

function chunkOf(loaded: Loaded, layout: ReleaseLayout, parentId: string, n: number): ChildIndexEntry[] {
  const entries = loaded.chunks.get(n);
  if (!entries) throw new Error(`release ${layout.id} lacks chunk ${n} of the child index of ${parentId}`);
  return entries;
}

/** Ids at positions `offset..offset+limit-1` of the parent's live children in publish order. */
function unfilteredPage(
  loaded: Loaded,
  layout: ReleaseLayout,
  parentId: string,
  page: PageRequest,
  total: number,
): string[] {
  const ids: string[] = [];
  const end = Math.min(page.offset + page.limit, total);
  for (let position = page.offset; position < end; position += 1) {
    const n = Math.floor(position / layout.chunk_size);
    const entry = chunkOf(loaded, layout, parentId, n)[position - n * layout.chunk_size];
    if (!entry) throw new Error(`release ${layout.id}: child index of ${parentId} is shorter than its count`);
    ids.push(entry.id);
  }
  return ids;
}

/** `in(id,...)` order: oldest `updated_at` first, ties by id. */
export function oldestUpdateFirst(a: ChildIndexEntry, b: ChildIndexEntry): number {
  if (a.updated_at !== b.updated_at) return a.updated_at < b.updated_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * All live children of the parent matching the filter, ordered (publish order, or `updated_at` then id for
 * `in(id,...)` lookups): the whole index is read once per release and filter, then cached.
 */
async function filteredIds(
  layout: ReleaseLayout,
  parent: StoredProduct,
  filter: FilterExpression[],
): Promise<string[]> {
  const canonical = canonicalFilter(filter);
  if (canonical === NO_MATCH_FILTER) return [];
  const key = `${layout.id}|${parent.resource.id}|${canonical}`;
  const cached = resultCache.get(key);
  if (cached) return cached;
  const parentId = parent.resource.id;
  const all = Array.from({ length: chunkCount(parent.live_children, layout.chunk_size) }, (_, n) => n);
  const loaded = await load(layout, [], parentId, all);
  const matches = compileFilter(filter);
  const found: ChildIndexEntry[] = [];
  for (const n of all)
    for (const entry of chunkOf(loaded, layout, parentId, n)) if (matches(entry)) found.push(entry);
  if (isIdLookup(filter)) found.sort(oldestUpdateFirst);
  const ids = found.map((entry) => entry.id);
  resultCache.set(key, ids, ids.length * ID_WEIGHT + key.length * 2 + 64);
  return ids;
}

/** A list with a filter index: the child list of a parent, or the release-wide index of live products. */
export interface IndexedList {
  /** Its key in the release, for the positions cache: `<release>|<parent>`, `<release>|*`. */
  key: string;
  chunkSize: number;
  /** The ascending positions of the entries matching the filter (`readMatchingPositions`). */
  positions(filter: FilterExpression[]): Promise<number[]>;
  /** Index chunks by number (cached ones from the cache), in one round trip. */
  chunks(numbers: number[]): Promise<Map<number, ChildIndexEntry[]>>;
}

/**
 * A filtered page from a list's filter index: the buckets of the values the filter names give the matching
 * positions (cached per release, list and filter), and only the index chunks holding the page's positions
 * are read (for `in(id,...)`, ordered by `updated_at`, the chunks of every match: at most one per id asked
 * for).
 */
export async function indexedFilterPage(
  list: IndexedList,
  filter: FilterExpression[],
  page: PageRequest,
): Promise<{ total: number; ids: string[] }> {
  const canonical = canonicalFilter(filter);
  if (canonical === NO_MATCH_FILTER) return { total: 0, ids: [] };
  const key = `${list.key}|${canonical}`;
  let positions = positionCache.get(key);
  if (!positions) {
    positions = await list.positions(filter);
    positionCache.set(key, positions, positions.length * 8 + key.length * 2 + 64);
  }
  const idLookup = isIdLookup(filter);
  const shown = idLookup ? positions : positions.slice(page.offset, page.offset + page.limit);
  const size = list.chunkSize;
  const chunks = await list.chunks([...new Set(shown.map((p) => Math.floor(p / size)))]);
  const entries = shown.map((position) => {
    const n = Math.floor(position / size);
    const entry = chunks.get(n)?.[position - n * size];
    if (!entry) throw new Error(`the filter index of ${list.key} names a position its index lacks`);
    return entry;
  });
  if (!idLookup) return { total: positions.length, ids: entries.map((entry) => entry.id) };
  entries.sort(oldestUpdateFirst);
  return {
    total: positions.length,
    ids: entries.slice(page.offset, page.offset + page.limit).map((entry) => entry.id),
  };
}

/** A parent's live children as an indexed list: one segment, one bucket per 500 children an attribute. */
function childList(layout: ReleaseLayout, parent: StoredProduct): IndexedList {
  const parentId = parent.resource.id;
  return {
    key: `${layout.id}|${parentId}`,
    chunkSize: layout.chunk_size,
    positions: (filter) =>
      readMatchingPositions(
        filter,
        [{ start: 0, buckets: fixedBuckets(parent.live_children) }],
        async (needed) => {
          const read = await catalogRepository.readRelease(layout, {
            products: [],
            chunks: [],
            postings: needed.map(({ attribute, bucket }) => ({ parentId, attribute, bucket })),
          });
          const found = new Map<string, Uint8Array>();
          for (const each of needed) {
            const bytes = read.postings.get(postingsId(parentId, each.attribute, each.bucket));
            if (bytes) found.set(neededId(each), bytes);
          }
          return found;
        },
      ),
    chunks: async (numbers) => (await load(layout, [], parentId, numbers)).chunks,
  };
}

/**
 * `GET /catalog/products/{id}/relationships/children`: picks the catalog by the shopper's context,
 * finds the product in its current release (404 if absent or not live, 422 if not a base product), and
 * returns one page of its live children, rendered in the best locale. A bounded number of round trips:
 * the registry (cached for a few seconds), the parent with the page's index chunks, the page's products.
 */
export async function listChildProducts(request: ListChildrenRequest): Promise<ListChildrenResult> {
  const now = request.now ?? new Date();
  const registry = await currentRegistry(request.storeId, now.getTime());
  const layout = releaseFor(registry, { channel: request.channel, tag: request.tag, now });
  if (!isUuid(request.productId)) throw new NotFoundError(PRODUCT_NOT_FOUND);
  const parentId = request.productId.toLowerCase();
  const { page, filter } = request;
  // The page's chunks can be fetched with the parent: their numbers depend only on the offset.
  const speculative =
    filter.length === 0
      ? chunksForPage(page.offset, page.limit, Number.POSITIVE_INFINITY, layout.chunk_size)
      : [];
  const first = await load(layout, [parentId], parentId, speculative, true);
  const parent = first.products.get(parentId);
  if (!parent?.live) throw new NotFoundError(PRODUCT_NOT_FOUND);
  if (!parent.base_product) throw new UnprocessableEntityError(NOT_A_BASE_PRODUCT);

  let total: number;
  let ids: string[];
  if (filter.length === 0) {
    total = parent.live_children;
    // A page chunk that an eventually consistent read missed is read again, strongly.
    const needed = chunksForPage(page.offset, page.limit, total, layout.chunk_size);
    const missed = needed.filter((n) => !first.chunks.has(n));
    if (missed.length > 0) {
      for (const [n, entries] of (await load(layout, [], parentId, missed)).chunks)
        first.chunks.set(n, entries);
    }
    ids = unfilteredPage(first, layout, parentId, page, total);
  } else if (layout.filter_index === FILTER_INDEX_VERSION) {
    ({ total, ids } = await indexedFilterPage(childList(layout, parent), filter, page));
  } else {
    const matching = await filteredIds(layout, parent, filter);
    total = matching.length;
    ids = matching.slice(page.offset, page.offset + page.limit);
  }
  const { products } = await load(layout, ids, parentId, []);
  const data: string[] = [];
  const shown: StoredProduct[] = [];
  for (const id of ids) {
    const stored = products.get(id);
    if (stored === undefined || stored === null) {
      throw new Error(`release ${layout.id} lacks product ${id} listed in the child index of ${parentId}`);
    }
    // The index holds live children only; this check keeps a draft out even if an index were wrong.
    if (!stored.live) continue;
    shown.push(stored);
    data.push(render(stored, request));
  }
  if (request.include === undefined || request.include.size === 0) return { data, total };
  return { data, total, included: await includedJson(layout, shown, request.include, request) };
}

/** What rendering a product takes from a request: the shopper's languages and the display currency. */
export type RenderRequest = Pick<ListChildrenRequest, 'defaultLocale' | 'acceptLanguage' | 'currency'>;

export function render(stored: StoredProduct, request: RenderRequest): string {
  const locale = productLocale(stored, request.acceptLanguage, request.defaultLocale);
  return renderProductJson(stored, locale, request.currency);
}

/** Ids named by a relationship of the products (`data` an object or an array), each once, in page order. */
function relatedIds(products: StoredProduct[], relationship: string): string[] {
  const ids = new Set<string>();
  for (const product of products) {
    const data = (product.resource.relationships[relationship] as { data?: unknown } | undefined)?.data;
    if (Array.isArray(data)) for (const entry of data) ids.add((entry as { id: string }).id);
    else if (data !== undefined) ids.add((data as { id: string }).id);
  }
  return [...ids];
}

/**
 * `included` of a page as JSON text: the main images and files the page's products
 * name, and the live component products of its bundles (rendered like `data`), each once. Everything comes
 * from the release, through the same caches: at most one extra batched read when something is not cached.
 * A file the release does not hold is left out.
 */
export async function includedJson(
  layout: ReleaseLayout,
  products: StoredProduct[],
  include: ReadonlySet<Include>,
  request: RenderRequest,
): Promise<string> {
  const mainImages = include.has('main_image') ? relatedIds(products, 'main_image') : [];
  const files = include.has('files') ? relatedIds(products, 'files') : [];
  const components = include.has('component_products') ? relatedIds(products, 'component_products') : [];
  const fileIds = files.length === 0 ? mainImages : [...new Set([...mainImages, ...files])];
  const loaded = await load(layout, components, '', [], false, fileIds);
  const fileJson = (ids: string[]) =>
    ids.flatMap((id) => {
      const json = loaded.files.get(id);
      return json ? [json] : [];
    });
  const parts: string[] = [];
  if (include.has('main_image')) parts.push(`"main_images":[${fileJson(mainImages).join(',')}]`);
  if (include.has('files')) parts.push(`"files":[${fileJson(files).join(',')}]`);
  if (include.has('component_products')) {
    const rendered = components.flatMap((id) => {
      const stored = loaded.products.get(id);
      return stored?.live ? [render(stored, request)] : [];
    });
    parts.push(`"component_products":[${rendered.join(',')}]`);
  }
  return `{${parts.join(',')}}`;
}
