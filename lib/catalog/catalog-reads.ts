import {
  canonicalFilter,
  compileFilter,
  type FilterExpression,
  isIdLookup,
  NO_MATCH_FILTER,
} from '../filter/index';
import { NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import { type PageRequest, pageLinks, pageMeta, pageUrl } from '../pagination/index';
import { deltaLink } from '../pcm/delta-link';
import { deltaFields, releaseState } from '../pcm/render';
import { type PcmRelease, pcmRepository } from '../store/pcm-repository';
import { currentRegistry, releaseRecordCache, resultCache } from './cache';
import { chunkCount, chunksForPage } from './child-index';
import { readMatchingPositions, storedBuckets } from './filter-index';
import {
  type Include,
  type IndexedList,
  includedJson,
  indexedFilterPage,
  load,
  oldestUpdateFirst,
  PRODUCT_NOT_FOUND,
  type RenderRequest,
  releaseFor,
  render,
} from './list-children';
import {
  type LookupEntry,
  loadIndexes,
  lookupTerm,
  type ReleaseFilterIndex,
  type ReleaseSummary,
} from './product-lookups';
import type { ChildIndexEntry, ReleaseLayout, StoredProduct } from './types';

/**
 * The storefront's catalog reads besides the child list: the selected release (`GET /catalog`), one product
 * (`GET /catalog/products/{id}`) and the product list (`GET /catalog/products`). The release is selected as
 * the child list selects it; products are loaded and rendered by the child list's code (same caches, same
 * rendering, same `included`); the list reads the publish-time indexes of lib/catalog/product-lookups.ts.
 */

export interface ShopperRequest extends RenderRequest {
  storeId: string;
  /** Undefined: the request sent none (only rules without channels can match). */
  channel: string | undefined;
  tag: string | undefined;
  include?: ReadonlySet<Include>;
  now?: Date;
}

/** The release the request's context selects, and its catalog's id. */
async function selectCatalog(request: ShopperRequest): Promise<{ layout: ReleaseLayout; catalogId: string }> {
  const now = request.now ?? new Date();
  const registry = await currentRegistry(request.storeId, now.getTime());
  const layout = releaseFor(registry, { channel: request.channel, tag: request.tag, now });
  const catalog = Object.values(registry?.catalogs ?? {}).find((each) => each.release.id === layout.id);
  if (!catalog) throw new Error(`release ${layout.id} is not in the registry it was selected from`);
  return { layout, catalogId: catalog.id };
}

async function selectRelease(request: ShopperRequest): Promise<ReleaseLayout> {
  return (await selectCatalog(request)).layout;
}

/**
 * `GET /catalog`: the selected release in the platform's `catalog-release` shape, as JSON text. Its record
 * (for the delta file and the kind of publish) is read beside its summary, in the same round trip's time.
 */
export async function getCatalogRelease(request: ShopperRequest): Promise<string> {
  const { layout, catalogId } = await selectCatalog(request);
  const [{ summary }, { record, link }] = await Promise.all([
    loadIndexes(layout, { summary: true }),
    releaseRecord(request.storeId, catalogId, layout.id, request.now ?? new Date()),
  ]);
  return JSON.stringify({ data: releaseResource(layout, summary as ReleaseSummary, record, link) });
}

/**
 * How long a container hands out the same signed link of a delta file: a link it gives stays valid for
 * the hour less this (55 minutes at least), and the release's record is read once.
 */
const LINK_REUSE_MS = 5 * 60 * 1000;

/** The release's record and its delta file's link: cached per release once it is PUBLISHED. */
async function releaseRecord(storeId: string, catalogId: string, releaseId: string, now: Date) {
  const cached = releaseRecordCache.get(releaseId);
  if (cached !== undefined && now.getTime() < cached.linkUntil) return cached;
  const found = await pcmRepository.getRelease(storeId, catalogId, releaseId);
  const record: Pick<PcmRelease, 'delta' | 'full_delta' | 'is_full_publish'> = {
    ...(found?.delta === undefined ? {} : { delta: found.delta }),
    ...(found?.full_delta === undefined ? {} : { full_delta: found.full_delta }),
    ...(found?.is_full_publish === undefined ? {} : { is_full_publish: found.is_full_publish }),
  };
  const entry = {
    record,
    link: found === undefined ? undefined : await deltaLink(found, now),
    linkUntil: now.getTime() + LINK_REUSE_MS,
  };
  // The switch names a release before its record says PUBLISHED: until then, read it again.
  if (found !== undefined && releaseState(found) === 'PUBLISHED')
    releaseRecordCache.set(releaseId, entry, 512 + (entry.link?.length ?? 0));
  return entry;
}

/**
 * The `catalog-release` resource of a release: `record` is its release record (`is_full_publish`, the
 * delta file), `deltaLink` its delta file's pre-signed URL when it has one.
 */
export function releaseResource(
  layout: ReleaseLayout,
  summary: ReleaseSummary,
  record: Pick<PcmRelease, 'delta' | 'full_delta' | 'is_full_publish'>,
  deltaLink?: string,
): Record<string, unknown> {
  const { relationships, is_full_publish, is_full_delta } = deltaFields(record, deltaLink);
  return {
    id: layout.id,
    type: 'catalog-release',
    attributes: {
      name: summary.name,
      description: summary.description,
      catalog_id: summary.catalog_id,
      pricebook_id: summary.pricebook_id,
      published_at: summary.published_at,
      hierarchies: summary.hierarchies,
    },
    relationships: {
      hierarchies: { links: { related: '/catalog/hierarchies' } },
      products: { links: { related: '/catalog/products' } },
      ...relationships,
    },
    meta: {
      created_at: summary.published_at,
      started_at: summary.published_at,
      updated_at: summary.published_at,
      release_status: 'PUBLISHED',
      is_full_publish,
      is_full_delta,
      owner: 'store',
      percent_completed: 100,
      total_products: summary.live_products,
      total_nodes: summary.total_nodes,
    },
    links: { self: '/catalog' },
  };
}

/**
 * `GET /catalog/products/{id}`: one live product of the selected release as JSON text (`data`, and
 * `included` when asked for). 404 for an id that is not a live product of that release (a draft, an unknown
 * id, another store's product). Two round trips when cold: the registry, the product (plus one for
 * `included`).
 */
export async function getCatalogProduct(request: ShopperRequest & { productId: string }): Promise<string> {
  const layout = await selectRelease(request);
  if (!isUuid(request.productId)) throw new NotFoundError(PRODUCT_NOT_FOUND);
  const id = request.productId.toLowerCase();
  const stored = (await load(layout, [id], '', [])).products.get(id);
  if (!stored?.live) throw new NotFoundError(PRODUCT_NOT_FOUND);
  const data = render(stored, request);
  if (request.include === undefined || request.include.size === 0) return `{"data":${data}}`;
  return `{"data":${data},"included":${await includedJson(layout, [stored], request.include, request)}}`;
}

export interface ProductListResult {
  data: string[];
  total: number;
  included?: string;
}

/** Publish order: the position in the release-wide index. */
const byPosition = (a: LookupEntry, b: LookupEntry) => a.pos - b.pos;

/**
 * The ids of a filtered page and the total. A filter with an `id`, `slug` or `sku` term is answered from
 * that term's lookups (one small item per value, however large the release); any other filter (and a slug
 * too common for its lookup) from the filter index of the release-wide index: the buckets its values hash
 * to in every segment, then the chunks of the page. A release published before that index is scanned
 * (read once per release and filter, in steps of SCAN_STEP_CHUNKS chunks, then cached). Order: publish
 * order, or `updated_at` then id when the filter has `in(id,…)`.
 */
async function filteredPage(
  layout: ReleaseLayout,
  filter: FilterExpression[],
  page: PageRequest,
): Promise<{ total: number; ids: string[] }> {
  const canonical = canonicalFilter(filter);
  if (canonical === NO_MATCH_FILTER) return { total: 0, ids: [] };
  const key = `${layout.id}|*|${canonical}`;
  const pageOf = (ids: string[]) => ({
    total: ids.length,
    ids: ids.slice(page.offset, page.offset + page.limit),
  });
  const cached = resultCache.get(key);
  if (cached) return pageOf(cached);
  const term = lookupTerm(filter);
  const looked = term === undefined ? undefined : await loadIndexes(layout, { lookup: term });
  let found: ChildIndexEntry[];
  if (looked !== undefined && looked.overflow !== true) {
    const matches = compileFilter(filter);
    const seen = new Set<string>();
    const kept = looked.lookups.filter((entry) => {
      if (seen.has(entry.id) || !matches(entry)) return false;
      seen.add(entry.id);
      return true;
    });
    found = kept.sort(byPosition);
  } else {
    const summary = (await loadIndexes(layout, { summary: true })).summary as ReleaseSummary;
    if (summary.filter_index !== undefined) {
      return indexedFilterPage(releaseList(layout, summary.filter_index), filter, page);
    }
    found = await scanIndex(layout, summary.live_products, compileFilter(filter));
  }
  if (isIdLookup(filter)) found.sort(oldestUpdateFirst);
  const ids = found.map((entry) => entry.id);
  resultCache.set(key, ids, ids.length * 64 + key.length * 2 + 64);
  return pageOf(ids);
}

/** The release-wide index of live products as an indexed list: a segment per RELEASE_SEGMENT products. */
function releaseList(layout: ReleaseLayout, index: ReleaseFilterIndex): IndexedList {
  const segments = index.buckets.map((counts, n) => ({
    start: n * index.segment,
    buckets: storedBuckets(counts),
  }));
  return {
    key: `${layout.id}|*`,
    chunkSize: layout.chunk_size,
    positions: (filter) =>
      readMatchingPositions(
        filter,
        segments,
        async (needed) => (await loadIndexes(layout, { postings: needed })).postings,
      ),
    chunks: async (numbers) => {
      const { chunks } = await loadIndexes(layout, { chunks: numbers });
      return chunks;
    },
  };
}

/**
 * Index chunks read and decoded per step of a scan: a step holds at most this many chunks in memory
 * (2,000 entries), whatever the release's size, and reads them in one `BatchGetItem`.
 */
export const SCAN_STEP_CHUNKS = 20;

/**
 * The entries of the release-wide index that match, in publish order: the index is read in steps of
 * `stepChunks` chunks, each step's entries dropped once tested, so memory holds one step and the matches.
 */
export async function scanIndex(
  layout: ReleaseLayout,
  liveProducts: number,
  matches: (entry: ChildIndexEntry) => boolean,
  stepChunks = SCAN_STEP_CHUNKS,
): Promise<ChildIndexEntry[]> {
  const total = chunkCount(liveProducts, layout.chunk_size);
  const found: ChildIndexEntry[] = [];
  for (let first = 0; first < total; first += stepChunks) {
    const step = Array.from({ length: Math.min(stepChunks, total - first) }, (_, i) => first + i);
    const { chunks } = await loadIndexes(layout, { chunks: step });
    for (const n of step) {
      const entries = chunks.get(n);
      if (!entries) throw new Error(`release ${layout.id} lacks chunk ${n} of its product index`);
      for (const entry of entries) if (matches(entry)) found.push(entry);
    }
  }
  return found;
}

/**
 * `GET /catalog/products`: one page of the selected release's live products, filtered, rendered like the
 * child list. A bounded number of round trips: the registry, the summary with the page's index chunks (or
 * the filter's lookups; or the summary, the filter index's buckets, the page's chunks), the page's
 * products, and `included`.
 */
export async function listCatalogProducts(
  request: ShopperRequest & { filter: FilterExpression[]; page: PageRequest },
): Promise<ProductListResult> {
  const layout = await selectRelease(request);
  const { page, filter } = request;
  let total: number;
  let ids: string[];
  if (filter.length === 0) {
    // The page's chunks can be fetched with the summary: their numbers depend only on the offset.
    const speculative = chunksForPage(page.offset, page.limit, Number.POSITIVE_INFINITY, layout.chunk_size);
    const first = await loadIndexes(layout, { summary: true, chunks: speculative, speculativeChunks: true });
    total = (first.summary as ReleaseSummary).live_products;
    const needed = chunksForPage(page.offset, page.limit, total, layout.chunk_size);
    const missed = needed.filter((n) => !first.chunks.has(n));
    if (missed.length > 0) {
      for (const [n, entries] of (await loadIndexes(layout, { chunks: missed })).chunks)
        first.chunks.set(n, entries);
    }
    ids = [];
    const end = Math.min(page.offset + page.limit, total);
    for (let position = page.offset; position < end; position += 1) {
      const n = Math.floor(position / layout.chunk_size);
      const entry = first.chunks.get(n)?.[position - n * layout.chunk_size];
      if (!entry) throw new Error(`release ${layout.id}: its product index is shorter than its count`);
      ids.push(entry.id);
    }
  } else {
    ({ total, ids } = await filteredPage(layout, filter, page));
  }
  const { products } = await load(layout, ids, '', []);
  const data: string[] = [];
  const shown: StoredProduct[] = [];
  for (const id of ids) {
    const stored = products.get(id);
    if (stored === undefined || stored === null) {
      throw new Error(`release ${layout.id} lacks product ${id} listed in its product index`);
    }
    if (!stored.live) continue;
    shown.push(stored);
    data.push(render(stored, request));
  }
  if (request.include === undefined || request.include.size === 0) return { data, total };
  return { data, total, included: await includedJson(layout, shown, request.include, request) };
}

/** The query parameters a product list's links keep, as the request sent them. */
export interface ProductListQuery {
  filter?: string;
  include?: string;
}

/** The product list's 200 body as JSON text: `data`, `included`, `meta` and `links` as the child list's. */
export function productListJson(
  query: ProductListQuery,
  page: PageRequest,
  result: ProductListResult,
): string {
  const extra: Record<string, string> = {};
  if (query.filter !== undefined) extra.filter = query.filter;
  if (query.include !== undefined) extra.include = query.include;
  const links = pageLinks(
    page,
    result.total,
    (offset, limit) => pageUrl('/catalog/products', offset, limit, extra),
    { nullLastWhenSinglePage: true },
  );
  const meta = { results: { total: result.total }, page: pageMeta(page, result.total) };
  const included = result.included === undefined ? '' : `,"included":${result.included}`;
  return `{"data":[${result.data.join(',')}]${included},"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`;
}
