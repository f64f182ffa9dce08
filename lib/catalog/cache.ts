import { getConfig } from '../config/index';
import { type CatalogRegistry, catalogRepository } from '../store/catalog-repository';
import type { PcmRelease } from '../store/pcm-repository';
import type { StoredNode } from './hierarchy-items';
import { LruCache } from './lru';
import type { ChildIndexEntry, StoredProduct } from './types';

/**
 * Per-container caches of catalog data (module scope: one set per Lambda container). Everything derived
 * from a release is keyed by the release id, and releases are immutable, so these entries never go stale;
 * a republish is a new release id. Only the registry (which release is current) can change: it is reused
 * for at most RELEASE_CACHE_SECONDS (config, default 2 s, 0 = read on every request).
 */

/** Budgets in approximate bytes; a 256 MB Lambda keeps ~80 MB for them at most. */
export const CACHE_BUDGETS = {
  products: 48 * 1024 * 1024,
  chunks: 16 * 1024 * 1024,
  results: 16 * 1024 * 1024,
  files: 8 * 1024 * 1024,
  lookups: 8 * 1024 * 1024,
  summaries: 1024 * 1024,
  /** Published releases' records as `GET /catalog` shows them, with their delta file's signed link. */
  releaseRecords: 256 * 1024,
  nodes: 4 * 1024 * 1024,
  registries: 1000,
} as const;

/** Stored products by `release|product`; `null` records a product that is not in the release. */
export const productCache = new LruCache<StoredProduct | null>(CACHE_BUDGETS.products);
/** Files as rendered JSON text by `release|file`; `null` records a file that is not in the release. */
export const fileCache = new LruCache<string | null>(CACHE_BUDGETS.files);
/** Decoded child-index chunks by `release|parent#n`. */
export const chunkCache = new LruCache<ChildIndexEntry[]>(CACHE_BUDGETS.chunks);
/** A release's summary (JSON text) by release id (see lib/catalog/product-lookups.ts). */
export const summaryCache = new LruCache<string>(CACHE_BUDGETS.summaries);

/**
 * A published release's record fields `GET /catalog` shows (fixed once it is PUBLISHED: Merge records the
 * delta file before the switch), by release id, with its delta file's signed link and until when that link
 * is handed out again.
 */
export const releaseRecordCache = new LruCache<{
  record: Pick<PcmRelease, 'delta' | 'full_delta' | 'is_full_publish'>;
  link: string | undefined;
  linkUntil: number;
}>(CACHE_BUDGETS.releaseRecords);
/**
 * Index entries of the products with one slug, sku or id, by `release|attribute#value` (empty: none; null:
 * too many to keep in one item, see lib/catalog/product-lookups.ts).
 */
export const lookupCache = new LruCache<(ChildIndexEntry & { pos: number })[] | null>(CACHE_BUDGETS.lookups);
/** Stored nodes by `release|node` (null: not in the release) and node id list chunks by `release|list`. */
export const nodeCache = new LruCache<StoredNode | null>(CACHE_BUDGETS.nodes);
export const nodeListCache = new LruCache<string[]>(CACHE_BUDGETS.nodes);
/** A parent's ordered matching child ids by `release|parent|canonical filter`. */
export const resultCache = new LruCache<string[]>(CACHE_BUDGETS.results);
/** A parent's ascending matching child-index positions by `release|parent|canonical filter` (filter index). */
export const positionCache = new LruCache<number[]>(CACHE_BUDGETS.results);
/**
 * The store's registry (as a promise, so concurrent callers share one read) with the time the read
 * started; weight 1 each, so this bounds the number of stores.
 */
const registryCache = new LruCache<{ registry: Promise<CatalogRegistry | undefined>; readAt: number }>(
  CACHE_BUDGETS.registries,
);

/** The store's catalog registry, read at most every RELEASE_CACHE_SECONDS per container. */
export function currentRegistry(storeId: string, nowMs = Date.now()): Promise<CatalogRegistry | undefined> {
  const maxAgeMs = getConfig().releaseCacheSeconds * 1000;
  const cached = registryCache.get(storeId);
  if (cached && nowMs - cached.readAt < maxAgeMs) return cached.registry;
  const registry = catalogRepository.getRegistry(storeId);
  if (maxAgeMs > 0) {
    registryCache.set(storeId, { registry, readAt: nowMs }, 1);
    registry.catch(() => registryCache.delete(storeId));
  }
  return registry;
}

/**
 * Starts reading the registry of the store a bearer token names while the token is being checked, so
 * a cold request does not wait for the two one after the other. Nothing is returned to anyone until
 * the token is valid; a forged store id only warms that store's registry in this container.
 */
export function prefetchRegistry(storeId: string | undefined): void {
  if (storeId === undefined || getConfig().releaseCacheSeconds === 0) return;
  currentRegistry(storeId).catch(() => undefined);
}

/** Empties every catalog cache: a cold container (tests and benchmarks). */
export function clearCatalogCaches(): void {
  productCache.clear();
  fileCache.clear();
  chunkCache.clear();
  resultCache.clear();
  positionCache.clear();
  summaryCache.clear();
  releaseRecordCache.clear();
  lookupCache.clear();
  nodeCache.clear();
  nodeListCache.clear();
  registryCache.clear();
}
