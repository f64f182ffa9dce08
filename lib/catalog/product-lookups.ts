import type { FilterExpression } from '../filter/index';
import { countMetric, METRIC } from '../metrics/index';
import {
  type CatalogReadResult,
  catalogLookupRepository,
  type LookupAttribute,
} from '../store/catalog-lookup-repository';
import { chunkCache, lookupCache, summaryCache } from './cache';
import { decodeChunkMeasured, HEAP_PER_SERIALIZED_CHAR } from './child-index';
import { buildFittedPostings, type NeededBucket } from './filter-index';
import type { ChildIndexEntry, ReleaseDocument, ReleaseLayout, StoredProduct } from './types';

/**
 * Publish-time indexes of a release's live products, for the storefront's product reads, and their
 * cached loading:
 *
 * - a summary (catalog name, description, counts, root nodes) for `GET /catalog` and the list's count;
 * - the release-wide index of live products in publish order, chunked like a parent's child index: the
 *   product list pages through it, and filters that no lookup answers are evaluated over it (read once
 *   per release and filter, then cached, as the child list does);
 * - lookups by `slug`, `sku` and `id`: one item per value holding the index entries (with their positions
 *   in publish order) of the live products that carry it, so `eq(slug,…)`, `eq(sku,…)` and `in(id,…)`
 *   read one small item per value however large the release is;
 * - the filter index of the release-wide index, per segment of RELEASE_SEGMENT products (the child list's
 *   filter index, lib/catalog/filter-index.ts, with bucket counts fitted to the segment and recorded in the
 *   summary): any other filter reads the buckets its values hash to in every segment, then only the chunks
 *   of its page.
 */

/** The release summary as stored (and as `GET /catalog` renders it). */
export interface ReleaseSummary {
  catalog_id: string;
  name: string;
  description: string;
  pricebook_id: string | null;
  published_at: string;
  /** Live products: the length of the release-wide index. */
  live_products: number;
  total_nodes: number;
  /**
   * The release-wide index's filter index: RELEASE_SEGMENT products a segment, and each segment's bucket
   * counts in FILTER_ATTRIBUTES order. Absent: a release published before it (filters scan the index).
   */
  filter_index?: ReleaseFilterIndex;
  /** The root nodes (nodes without a parent), in document order, as many as fit in MAX_SUMMARY_BYTES. */
  hierarchies: { id: string; name: string }[];
}

export interface ReleaseFilterIndex {
  segment: number;
  buckets: number[][];
}

/**
 * Live products per segment of the release-wide filter index (a multiple of the chunk size). A filter reads
 * one bucket per value and segment: 10 for 100,000 products, in one round trip; a segment's bucket counts
 * follow its size, and a publish holds one segment's entries at a time (two across a range's edges).
 */
export const RELEASE_SEGMENT = 10_000;

/** The filter-index items of segment `n` of the release-wide index, and its bucket counts for the summary. */
export function releasePostings(
  layout: ReleaseLayout,
  n: number,
  entries: readonly ChildIndexEntry[],
): { items: ReturnType<typeof catalogLookupRepository.postingsItem>[]; counts: number[] } {
  const { counts, buckets } = buildFittedPostings(entries);
  const items = buckets.map(({ attribute, bucket, bytes }) =>
    catalogLookupRepository.postingsItem(layout, n, attribute, bucket, bytes),
  );
  return { items, counts };
}

/** A live product's entry in a lookup: its index entry and its position in publish order. */
export interface LookupEntry extends ChildIndexEntry {
  pos: number;
}

export const LOOKUP_ATTRIBUTES: readonly LookupAttribute[] = ['id', 'slug', 'sku'];

/**
 * Largest lookup item kept (UTF-8 bytes of its entries; DynamoDB holds 400 KB an item). Ids and SKUs are
 * unique, so their lookups hold one entry; derived slugs (from names) may repeat, and a value shared by
 * more products than fit is stored as OVERFLOW: a filter naming it is evaluated over the release-wide
 * index instead, as any other filter is.
 */
export const MAX_LOOKUP_BYTES = 256 * 1024;
const OVERFLOW = '"overflow"';
/** Largest release summary (UTF-8 bytes): the root nodes it lists stop where the next would not fit. */
export const MAX_SUMMARY_BYTES = 256 * 1024;

/** The filterable attributes of a stored product, as the child index holds them. */
export function indexEntryOf(stored: StoredProduct): ChildIndexEntry {
  const a = stored.resource.attributes as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return {
    id: stored.resource.id,
    name: text(a.name),
    sku: text(a.sku),
    slug: text(a.slug),
    manufacturer_part_num: text(a.manufacturer_part_num),
    upc_ean: text(a.upc_ean),
    product_types: (a.product_types as string[] | undefined) ?? [],
    tags: (a.tags as string[] | undefined) ?? [],
    updated_at: text(a.updated_at),
  };
}

/** The release summary item: the catalog, its counts, its filter index's layout and as many root nodes as fit. */
export function releaseSummaryItem(
  document: Pick<ReleaseDocument, 'catalog' | 'nodes'>,
  context: { catalogId: string; layout: ReleaseLayout },
  liveProducts: number,
  filterIndex: ReleaseFilterIndex,
): ReturnType<typeof catalogLookupRepository.summaryItem> {
  const summary: ReleaseSummary = {
    catalog_id: context.catalogId,
    name: document.catalog.name,
    description: document.catalog.description,
    pricebook_id: document.catalog.pricebook_id,
    published_at: context.layout.published_at,
    live_products: liveProducts,
    total_nodes: document.nodes.length,
    filter_index: filterIndex,
    hierarchies: [],
  };
  // The root nodes, as many as fit in one item (a document may have any number of them; the hierarchy
  // routes list them all).
  let bytes = Buffer.byteLength(JSON.stringify(summary));
  for (const node of document.nodes) {
    if (node.parent_id !== null) continue;
    const root = { id: node.id, name: node.name };
    bytes += Buffer.byteLength(JSON.stringify(root)) + 1;
    if (bytes > MAX_SUMMARY_BYTES) break;
    summary.hierarchies.push(root);
  }
  return catalogLookupRepository.summaryItem(context.layout, JSON.stringify(summary));
}

/** The lookup item of one value: its live products' entries, or OVERFLOW when they do not fit. */
export function lookupItem(
  layout: ReleaseLayout,
  attribute: LookupAttribute,
  value: string,
  list: LookupEntry[],
): ReturnType<typeof catalogLookupRepository.lookupItem> {
  const json = JSON.stringify(list);
  const kept = json.length * 3 <= MAX_LOOKUP_BYTES || Buffer.byteLength(json) <= MAX_LOOKUP_BYTES;
  return catalogLookupRepository.lookupItem(layout, attribute, value, kept ? json : OVERFLOW);
}

/** A lookup term of a filter: `eq`/`in` on `id`, `slug` or `sku`. */
export interface LookupTerm {
  attribute: LookupAttribute;
  values: string[];
}

/** The filter's lookup term with the fewest values (the narrowest candidates), if it has one. */
export function lookupTerm(filter: FilterExpression[]): LookupTerm | undefined {
  let best: LookupTerm | undefined;
  for (const expression of filter) {
    const attribute = expression.attribute as string;
    if (!(LOOKUP_ATTRIBUTES as readonly string[]).includes(attribute)) continue;
    const values = [...new Set(expression.values)];
    if (best === undefined || values.length < best.values.length) {
      best = { attribute: attribute as LookupAttribute, values };
    }
  }
  return best;
}

/** What to read of a release's product indexes; whatever is cached is not read again. */
export interface IndexLoadRequest {
  summary?: boolean;
  chunks?: number[];
  /** Chunks fetched before the count is known: a chunk past the end is simply absent. */
  speculativeChunks?: boolean;
  lookup?: LookupTerm;
  /** Filter-index buckets (never cached: the positions a filter gives are). */
  postings?: NeededBucket[];
}

export interface IndexLoaded {
  summary?: ReleaseSummary;
  chunks: Map<number, ChildIndexEntry[]>;
  /** Entries of the lookup's values, each value's in publish order; values nothing carries add none. */
  lookups: LookupEntry[];
  /** A value of the lookup is carried by more products than its item holds: use the release-wide index. */
  overflow?: boolean;
  /** Found filter-index buckets by `neededId`. */
  postings: Map<string, Uint8Array>;
}

const indexChunkKey = (layout: ReleaseLayout, n: number) => `${layout.id}|index#${n}`;
const lookupKey = (layout: ReleaseLayout, attribute: string, value: string) =>
  `${layout.id}|${attribute}#${value}`;

/**
 * Loads summary, index chunks and lookups from the caches, reading what is missing (and the filter-index
 * buckets asked for) in one round trip.
 */
export async function loadIndexes(layout: ReleaseLayout, request: IndexLoadRequest): Promise<IndexLoaded> {
  const loaded: IndexLoaded = { chunks: new Map(), lookups: [], postings: new Map() };
  let wantSummary = false;
  if (request.summary) {
    const cached = summaryCache.get(layout.id);
    if (cached === undefined) wantSummary = true;
    else loaded.summary = JSON.parse(cached) as ReleaseSummary;
  }
  const missingChunks: number[] = [];
  for (const n of request.chunks ?? []) {
    const cached = chunkCache.get(indexChunkKey(layout, n));
    if (cached === undefined) missingChunks.push(n);
    else loaded.chunks.set(n, cached);
  }
  const lookup = request.lookup;
  const missingValues: string[] = [];
  const byValue = new Map<string, LookupEntry[] | null>();
  for (const value of lookup?.values ?? []) {
    const cached = lookupCache.get(lookupKey(layout, lookup?.attribute ?? '', value));
    if (cached === undefined) missingValues.push(value);
    else byValue.set(value, cached);
  }
  const postings = request.postings ?? [];
  const asked = (request.summary ? 1 : 0) + (request.chunks?.length ?? 0) + (lookup?.values.length ?? 0);
  const missing = (wantSummary ? 1 : 0) + missingChunks.length + missingValues.length;
  countMetric(METRIC.catalogCacheHits, asked - missing);
  countMetric(METRIC.catalogCacheMisses, missing);
  let read: CatalogReadResult | undefined;
  if (missing > 0 || postings.length > 0) {
    read = await catalogLookupRepository.read(layout, {
      summary: wantSummary,
      chunks: missingChunks,
      speculativeChunks: request.speculativeChunks === true,
      ...(lookup === undefined
        ? {}
        : { lookups: missingValues.map((value) => ({ attribute: lookup.attribute, value })) }),
      postings,
    });
    loaded.postings = read.postings;
  }
  if (wantSummary) {
    const json = read?.summary;
    if (json === undefined) throw new Error(`release ${layout.id} lacks its summary`);
    summaryCache.set(layout.id, json, json.length * 2 + 64);
    loaded.summary = JSON.parse(json) as ReleaseSummary;
  }
  for (const n of missingChunks) {
    const bytes = read?.chunks.get(n);
    if (!bytes) continue;
    const { entries, heapBytes } = decodeChunkMeasured(bytes);
    loaded.chunks.set(n, entries);
    chunkCache.set(indexChunkKey(layout, n), entries, heapBytes);
  }
  if (lookup !== undefined) {
    for (const value of missingValues) {
      const json = read?.lookups.get(`${lookup.attribute}#${value}`);
      const parsed = json === undefined ? [] : (JSON.parse(json) as LookupEntry[] | string);
      const entries = Array.isArray(parsed) ? parsed : null;
      byValue.set(value, entries);
      const weight = Math.ceil((json?.length ?? 0) * HEAP_PER_SERIALIZED_CHAR) + value.length * 2 + 100;
      lookupCache.set(lookupKey(layout, lookup.attribute, value), entries, weight);
    }
    for (const value of lookup.values) {
      const entries = byValue.get(value);
      if (entries === null) loaded.overflow = true;
      else loaded.lookups.push(...(entries ?? []));
    }
  }
  return loaded;
}
