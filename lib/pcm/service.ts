import { loadIndexes } from '../catalog/product-lookups';
import { cleanupReleases } from '../catalog/release-cleanup';
import { ApiError, ConflictError, NotFoundError, WRITE_CONFLICT } from '../http/errors';
import { uuidv7 } from '../ids';
import { assertCallerExists, type WriteCaller } from '../store/caller-check';
import { type CatalogRegistry, catalogRepository } from '../store/catalog-repository';
import { hierarchyRepository } from '../store/hierarchy-repository';
import { settleAll, startedEarly } from '../store/items';
import {
  CatalogBusyError,
  CatalogLimitError,
  CatalogNotFoundError,
  CatalogSourceError,
  type PcmCatalog,
  type PcmRelease,
  pcmRepository,
  RegistryChangedError,
} from '../store/pcm-repository';
import { pricebookRepository } from '../store/pricebook-repository';
import type { CatalogAttributes } from '../validation/pcm-catalog';
import { type ReleaseTexts, releaseState } from './render';
import { rulesNaming } from './rules';

/** The release id that names a catalog's newest published release (`GET …/releases/latestPublished`). */
export const LATEST_PUBLISHED = 'latestPublished';

/** The catalog, or 404. */
export async function catalogOf(storeId: string, catalogId: string): Promise<PcmCatalog> {
  const catalog = await pcmRepository.getCatalog(storeId, catalogId);
  if (!catalog) throw new NotFoundError('catalog not found');
  return catalog;
}

/**
 * 422 when a hierarchy or price book the attributes name is not the store's (`data.attributes.<field>[i]`).
 * A hierarchy or book deleted later fails the next release instead (lib/catalog/pipeline/export.ts).
 */
async function checkSources(storeId: string, attributes: CatalogAttributes): Promise<void> {
  const at = 'data.attributes';
  const hierarchies = attributes.hierarchy_ids ?? [];
  const found = await Promise.all(hierarchies.map((id) => hierarchyRepository.get(storeId, id)));
  const missing = found.indexOf(undefined);
  if (missing >= 0) {
    throw new ApiError(422, 'names no hierarchy of the store', { source: `${at}.hierarchy_ids[${missing}]` });
  }
  const books = [
    ...(attributes.pricebook_id ? [{ id: attributes.pricebook_id, source: `${at}.pricebook_id` }] : []),
    ...(attributes.pricebook_ids ?? []).map((book, i) => ({
      id: book.id,
      source: `${at}.pricebook_ids[${i}].id`,
    })),
  ];
  const booksFound = await Promise.all(books.map((book) => pricebookRepository.get(storeId, book.id)));
  const absent = booksFound.indexOf(undefined);
  if (absent >= 0) {
    throw new ApiError(422, 'names no price book of the store', { source: books[absent]?.source as string });
  }
}

/** A catalog takes one price book or several by priority: setting either clears the other. */
function pricebookChanges(attributes: CatalogAttributes): Partial<PcmCatalog> {
  if (attributes.pricebook_ids !== undefined && attributes.pricebook_ids.length > 0)
    return { pricebook_ids: attributes.pricebook_ids, pricebook_id: null };
  if (attributes.pricebook_id !== undefined && attributes.pricebook_id !== null)
    return { pricebook_id: attributes.pricebook_id, pricebook_ids: [] };
  return {
    ...(attributes.pricebook_id === undefined ? {} : { pricebook_id: null }),
    ...(attributes.pricebook_ids === undefined ? {} : { pricebook_ids: [] }),
  };
}

export async function createCatalog(
  storeId: string,
  attributes: CatalogAttributes & { name: string },
  caller: WriteCaller,
): Promise<PcmCatalog> {
  await checkSources(storeId, attributes);
  const at = new Date().toISOString();
  const catalog: PcmCatalog = {
    id: uuidv7(),
    name: attributes.name,
    description: attributes.description ?? '',
    hierarchy_ids: attributes.hierarchy_ids ?? [],
    pricebook_id: null,
    pricebook_ids: [],
    ...pricebookChanges(attributes),
    created_at: at,
    updated_at: at,
  };
  try {
    await pcmRepository.createCatalog(storeId, catalog, caller);
  } catch (error) {
    if (error instanceof CatalogLimitError) throw new ConflictError(error.message);
    throw error;
  }
  return catalog;
}

export async function updateCatalog(
  storeId: string,
  catalogId: string,
  changes: CatalogAttributes,
  caller: WriteCaller,
): Promise<PcmCatalog> {
  await checkSources(storeId, changes);
  const { pricebook_id: _one, pricebook_ids: _several, ...rest } = changes;
  try {
    await pcmRepository.updateCatalog(
      storeId,
      catalogId,
      { ...rest, ...pricebookChanges(changes) },
      new Date().toISOString(),
      caller,
    );
  } catch (error) {
    if (error instanceof CatalogNotFoundError) throw new NotFoundError('catalog not found');
    if (error instanceof CatalogSourceError) {
      throw new ConflictError(error.message, 'data.attributes.hierarchy_ids');
    }
    throw error;
  }
  return catalogOf(storeId, catalogId);
}

/** Deletes a catalog that has no releases (409 otherwise: delete them first, which keeps the current one). */
export async function deleteCatalog(storeId: string, catalogId: string, caller: WriteCaller): Promise<void> {
  // The three reads at once; the catalog's absence answers first.
  const [, markers, firstRegistry] = await Promise.all([
    catalogOf(storeId, catalogId),
    catalogRepository.listReleases(storeId, catalogId),
    catalogRepository.getRegistry(storeId),
  ]);
  const releases = markers.filter((release) => release.deleted_at === undefined);
  if (releases.length > 0) {
    throw new ConflictError(
      `the catalog has ${releases.length} release${releases.length === 1 ? '' : 's'}; a catalog with releases cannot be deleted`,
    );
  }
  for (let attempt = 1; ; attempt += 1) {
    // Rules must be changed first (the platform's rule): the deletion holds only while the registry, which
    // holds the rules, is still the one read here.
    const registry = attempt === 1 ? firstRegistry : await catalogRepository.getRegistry(storeId);
    const naming = rulesNaming(registry, catalogId);
    if (naming.length > 0) {
      throw new ConflictError(
        `catalog rules give shoppers this catalog (${naming.map((rule) => rule.id).join(', ')}): change or delete them first`,
      );
    }
    try {
      await pcmRepository.deleteCatalog(storeId, catalogId, caller, { version: registry?.version });
      return;
    } catch (error) {
      if (error instanceof CatalogNotFoundError) throw new NotFoundError('catalog not found');
      if (error instanceof CatalogBusyError) throw new ConflictError(error.message);
      if (!(error instanceof RegistryChangedError)) throw error;
      if (attempt >= 5) throw new ConflictError(WRITE_CONFLICT);
    }
  }
}

/** How many releases of a catalog the API shows: the platform keeps a catalog's last three. */
export const LISTED_RELEASES = 3;

/**
 * The catalog's releases as the API shows them, newest first: its newest LISTED_RELEASES (being published,
 * published or failed) that were not deleted, the current one always among them (in place of the third
 * when it is older, after a rollback); the id of its current one; and the registry's version read.
 */
export async function listReleases(
  storeId: string,
  catalogId: string,
): Promise<{ releases: PcmRelease[]; current: string | undefined; version: number | undefined }> {
  const { releases, current, version } = await readReleases(storeId, catalogId);
  return { releases, current, version };
}

/** What one read of a catalog's releases gives: the releases listed (as `listReleases`), and what writes need. */
interface ReleasesRead {
  releases: PcmRelease[];
  current: string | undefined;
  version: number | undefined;
  /** Every marker of the catalog's releases, deleted ones included. */
  markers: PcmRelease[];
  registry: CatalogRegistry | undefined;
}

/**
 * The catalog's releases (`listReleases`) with every marker and the registry as read: the catalog, its
 * markers and the registry read at once, one round trip (the catalog's 404 first; what was read of a
 * catalog that is not there is dropped).
 */
async function readReleases(storeId: string, catalogId: string): Promise<ReleasesRead> {
  const markersRead = startedEarly(catalogRepository.listReleases(storeId, catalogId));
  const registryRead = startedEarly(catalogRepository.getRegistry(storeId));
  await catalogOf(storeId, catalogId);
  const [markers, registry] = [(await markersRead) as PcmRelease[], await registryRead];
  const current = registry?.catalogs[catalogId]?.release.id;
  const all = markers.filter((release) => release.deleted_at === undefined).sort(newestFirst);
  let releases = all.slice(0, LISTED_RELEASES);
  const serving = all.find((release) => release.release_id === current);
  if (serving && !releases.includes(serving)) {
    releases = [...releases.slice(0, LISTED_RELEASES - 1), serving].sort(newestFirst);
  }
  return { releases, current, version: registry?.version, markers, registry };
}

/**
 * A release's name, description and hierarchies from its summary, the item the shopper's `GET /catalog`
 * renders them from, so both routes show the same; for a release with no items (not published, or
 * published before its layout was recorded) the name it was created with, no description, no hierarchies.
 */
export async function releaseTexts(release: PcmRelease): Promise<ReleaseTexts> {
  const fallback = { name: release.name ?? '', description: '', hierarchies: [] };
  if (release.layout === undefined || releaseState(release) !== 'PUBLISHED') return fallback;
  const { summary } = await loadIndexes(release.layout, { summary: true });
  if (summary === undefined) return fallback;
  return { name: summary.name, description: summary.description, hierarchies: summary.hierarchies };
}

const newestFirst = (a: PcmRelease, b: PcmRelease) =>
  a.release_id < b.release_id ? 1 : a.release_id > b.release_id ? -1 : 0;

export async function getRelease(
  storeId: string,
  catalogId: string,
  releaseId: string,
): Promise<{ release: PcmRelease; current: boolean; version: number | undefined; read: ReleasesRead }> {
  const read = await readReleases(storeId, catalogId);
  const { releases, current, version } = read;
  const release =
    releaseId === LATEST_PUBLISHED
      ? releases.find((each) => releaseState(each) === 'PUBLISHED')
      : releases.find((each) => each.release_id === releaseId);
  if (!release) {
    throw new NotFoundError(
      releaseId === LATEST_PUBLISHED ? 'the catalog has no published release' : 'release not found',
    );
  }
  return { release, current: release.release_id === current, version, read };
}

/**
 * Deletes a release: at once for the API (it is no longer listed nor found), while its items stay until no
 * reader can still hold it: the cleanup after every switch (`cleanupReleases`) reclaims them, as it
 * reclaims replaced releases, RETAIN_REPLACED_MS after the release was replaced (at once for one that never
 * served). Deleting the current release rolls the catalog back to the newest published release before it
 * (in the same transaction as the registry), or unpublishes the catalog when there is none. A release being
 * published is never deleted (409). The caller then reclaims what it can at once (`reclaimDeleted`).
 */
export async function deleteRelease(
  storeId: string,
  catalogId: string,
  releaseId: string,
  caller: WriteCaller,
): Promise<void> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const { release, current, version, read } = await getRelease(storeId, catalogId, releaseId);
    if (isPublishing(release)) {
      throw new ConflictError('the release is being published; wait until it is PUBLISHED or FAILED');
    }
    const done = current
      ? await replaceCurrent(storeId, catalogId, release.release_id, caller, read)
      : await markDeleted(release, version, caller);
    if (done) return;
  }
  throw new ConflictError(WRITE_CONFLICT);
}

/**
 * Deletes every release of the catalog but one being published, and so unpublishes it (shoppers get what
 * the store's other catalogs and rules give them); returns the ids of those deleted. The caller then
 * reclaims what it can at once (`reclaimDeleted`).
 */
export async function deleteReleases(
  storeId: string,
  catalogId: string,
  caller: WriteCaller,
): Promise<string[]> {
  const deleted: string[] = [];
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    // The first round checks the caller beside its reads (a catalog with nothing to delete writes nothing,
    // so no transaction checks it); a caller refused answers before the catalog's 404.
    const reading = readReleases(storeId, catalogId);
    await settleAll([attempt === 1 ? assertCallerExists(caller) : Promise.resolve(), reading]);
    const read = await reading;
    const { current, version, markers } = read;
    let changed = false;
    for (const release of markers) {
      if (release.deleted_at !== undefined || isPublishing(release) || release.release_id === current)
        continue;
      if (await markDeleted(release, version, caller)) deleted.push(release.release_id);
      else changed = true;
    }
    if (!changed && current !== undefined) {
      if (await replaceCurrent(storeId, catalogId, current, caller, read, { unpublish: true }))
        deleted.push(current);
      else changed = true;
    }
    if (!changed) return deleted;
  }
  throw new ConflictError(WRITE_CONFLICT);
}

const ATTEMPTS = 5;

/** Marks a release that is not current deleted, while the registry is still at `version`: false otherwise. */
async function markDeleted(
  release: PcmRelease,
  version: number | undefined,
  caller: WriteCaller,
): Promise<boolean> {
  // False when the registry changed (the release may have become current) or it was deleted meanwhile.
  const at = new Date().toISOString();
  if (await catalogRepository.markReleaseDeleted(release, at, version, caller)) return true;
  const marker = await pcmRepository.getRelease(release.store_id, release.catalog_id, release.release_id);
  return marker === undefined || marker.deleted_at !== undefined;
}

/**
 * Deletes the catalog's current release `releaseId`, making the newest complete release before it that the
 * API still shows current again (one whose layout was recorded), or unpublishing the catalog when there is
 * none (or with `unpublish`). False when the registry or the releases changed meanwhile: read them again.
 */
async function replaceCurrent(
  storeId: string,
  catalogId: string,
  releaseId: string,
  caller: WriteCaller,
  read: ReleasesRead,
  options: { unpublish?: boolean } = {},
): Promise<boolean> {
  // The registry and the releases as this round read them: the transaction conditions on the registry's
  // version, so a change since refuses it and the caller reads again.
  const { registry, releases } = read;
  const entry = registry?.catalogs[catalogId];
  if (!registry || entry?.release.id !== releaseId) return false;
  const previous = options.unpublish
    ? undefined
    : releases.find(
        (release) =>
          release.release_id < releaseId && release.status === 'complete' && release.layout !== undefined,
      );
  const { [catalogId]: _replaced, ...others } = registry.catalogs;
  const next: CatalogRegistry = {
    ...registry,
    version: registry.version + 1,
    catalogs:
      previous?.layout === undefined
        ? others
        : { ...registry.catalogs, [catalogId]: { ...entry, release: previous.layout } },
  };
  const codes = await catalogRepository.replaceCurrentRelease({
    storeId,
    catalogId,
    releaseId,
    expectedVersion: registry.version,
    registry: next,
    restore: previous?.release_id,
    at: new Date().toISOString(),
    caller,
  });
  return codes === undefined;
}

const isPublishing = (release: PcmRelease) => {
  const state = releaseState(release);
  return state === 'PENDING' || state === 'IN_PROGRESS';
};

/**
 * How long a deletion request spends reclaiming items: a release of a million products is four million
 * items, minutes of deletes, and the request must answer within its function's 10 s (API Gateway's 30).
 */
export const RECLAIM_BUDGET_MS = 3000;

/**
 * Reclaims, for at most RECLAIM_BUDGET_MS, what of the catalog's deleted (and replaced) releases no reader
 * can hold any more; the rest waits for the next cleanup (after the catalog's next switch, or `catalog
 * cleanup`). The deletion is done whatever happens here.
 */
export async function reclaimDeleted(storeId: string, catalogId: string): Promise<void> {
  await cleanupReleases(storeId, { catalogId, deadline: Date.now() + RECLAIM_BUDGET_MS }).catch(
    () => undefined,
  );
}
