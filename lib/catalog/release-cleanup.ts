import { catalogRepository, type ReleaseMarker } from '../store/catalog-repository';
import { ABANDONED_AFTER_MS, KEPT_REPLACED, RETAIN_REPLACED_MS } from './release-settings';

/**
 * The one cleanup of releases: run after every switch, by every DELETE of the catalog API and by
 * `npm run catalog -- cleanup`. Kept out of the publisher so that the catalog API's functions can run it
 * without bundling the release validation.
 */

export interface CleanupOptions {
  /** Only this catalog's releases (all of the store's otherwise). */
  catalogId?: string;
  now?: Date;
  abandonedAfterMs?: number;
  retainReplacedMs?: number;
  /** Replaced releases a catalog keeps, items and all, besides its current one (default KEPT_REPLACED). */
  keepReplaced?: number;
  /**
   * When to stop deleting (epoch ms): a request's cleanup must answer in time; what it leaves, the next
   * cleanup (after every switch, or `catalog cleanup`) finishes.
   */
  deadline?: number;
}

/**
 * Deletes releases no reader can reach any more and that a catalog does not keep: replaced releases past
 * the newest `keepReplaced` of their catalog once replaced more than RETAIN_REPLACED_MS ago, `writing`
 * releases whose publisher stopped sending heartbeats ABANDONED_AFTER_MS ago, `abandoned` ones (a failed
 * publish that could not delete them), and the records of `failed` ones past the newest `keepReplaced`.
 * A release the catalog API deleted (`deleted_at`) counts for no kept one, and goes under the same times:
 * at once when it never served, else RETAIN_REPLACED_MS after it was replaced. Current releases are never
 * touched.
 */
export async function cleanupReleases(
  storeId: string,
  options: CleanupOptions = {},
): Promise<{ releases: string[]; items: number }> {
  const now = (options.now ?? new Date()).getTime();
  const abandonedAfter = options.abandonedAfterMs ?? ABANDONED_AFTER_MS;
  const retainReplaced = options.retainReplacedMs ?? RETAIN_REPLACED_MS;
  const keep = options.keepReplaced ?? KEPT_REPLACED;
  // Read together, as they were one after the other: a release a rollback made current between the two
  // reads (it restores one without touching its marker) is the newest replaced one, which a catalog keeps.
  const [registry, markers] = await Promise.all([
    catalogRepository.getRegistry(storeId),
    catalogRepository.listReleases(storeId, options.catalogId),
  ]);
  const current = new Set(Object.values(registry?.catalogs ?? {}).map((catalog) => catalog.release.id));
  // Newest first (release ids are UUID v7): the first `keep` replaced (and failed) releases of each
  // catalog stay.
  markers.sort((a, b) => (a.release_id < b.release_id ? 1 : a.release_id > b.release_id ? -1 : 0));
  const seen = new Map<string, number>();
  const kept = (marker: ReleaseMarker): boolean => {
    const key = `${marker.catalog_id}#${marker.status}`;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    return count <= keep;
  };
  const doomed: ReleaseMarker[] = [];
  for (const marker of markers) {
    if (current.has(marker.release_id)) continue;
    // A release the catalog API deleted is kept for no one: it goes once no reader can hold it.
    const deleted = marker.deleted_at !== undefined;
    if (!deleted && (marker.status === 'complete' || marker.status === 'failed') && kept(marker)) continue;
    // An abandoned or failed release was never current and can no longer become so: nobody reads it.
    const since =
      marker.status === 'abandoned' || marker.status === 'failed'
        ? Number.NEGATIVE_INFINITY
        : marker.status === 'writing'
          ? Date.parse(marker.heartbeat_at) + abandonedAfter
          : Date.parse(marker.superseded_at ?? marker.activated_at ?? marker.heartbeat_at) + retainReplaced;
    if (Number.isNaN(since) || since > now) continue;
    doomed.push(marker);
  }
  // A release whose items another release shares (lib/catalog/pipeline/share.ts) stays, items and marker,
  // while that release may be read or is being written; a later cleanup reclaims it. Abandoned and failed
  // releases are never read, so they keep nothing.
  const going = new Set(doomed.map((marker) => marker.release_id));
  const shared = new Set<string>();
  for (const marker of markers) {
    if (going.has(marker.release_id) || marker.status === 'abandoned' || marker.status === 'failed') continue;
    for (const layer of marker.layers ?? []) shared.add(layer);
  }
  for (const catalog of Object.values(registry?.catalogs ?? {}))
    for (const layer of catalog.release.layers ?? []) shared.add(layer);
  // A release kept for another keeps what it shares in turn.
  for (let grew = true; grew; ) {
    grew = false;
    for (const marker of doomed) {
      if (!shared.has(marker.release_id)) continue;
      for (const layer of marker.layers ?? []) {
        if (!shared.has(layer)) {
          shared.add(layer);
          grew = true;
        }
      }
    }
  }
  const removed: string[] = [];
  let items = 0;
  for (const marker of doomed) {
    if (shared.has(marker.release_id)) continue;
    if (options.deadline !== undefined && Date.now() >= options.deadline) break;
    const deletion = await catalogRepository.deleteRelease(marker, { deadline: options.deadline });
    items += deletion.items;
    if (deletion.complete) removed.push(marker.release_id);
  }
  return { releases: removed, items };
}
