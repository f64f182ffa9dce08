import { cleanupReleases } from '../catalog/release-cleanup';
import { ApiError, ConflictError, NotFoundError } from '../http/errors';
import { uuidv7 } from '../ids';
import { assertCallerExists, type WriteCaller } from '../store/caller-check';
import { catalogRepository } from '../store/catalog-repository';
import { hierarchyRepository } from '../store/hierarchy-repository';
import {
  CatalogBusyError,
  CatalogLimitError,
  CatalogNotFoundError,
  CatalogSourceError,
  type PcmCatalog,
  type PcmRelease,
  pcmRepository,
} from '../store/pcm-repository';
import { pricebookRepository } from '../store/pricebook-repository';
import type { CatalogAttributes } from '../validation/pcm-catalog';
import { releaseState } from './render';

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
  await catalogOf(storeId, catalogId);
  const releases = (await catalogRepository.listReleases(storeId, catalogId)).filter(
    (release) => release.deleted_at === undefined,
  );
  if (releases.length > 0) {
    throw new ConflictError(
      `the catalog has ${releases.length} release${releases.length === 1 ? '' : 's'}; a catalog with releases cannot be deleted`,
    );
  }
  try {
    await pcmRepository.deleteCatalog(storeId, catalogId, caller);
  } catch (error) {
    if (error instanceof CatalogNotFoundError) throw new NotFoundError('catalog not found');
    if (error instanceof CatalogBusyError) throw new ConflictError(error.message);
    throw error;
  }
}

/** The catalog's releases, newest first (not those deleted), and the id of its current one. */
export async function listReleases(
  storeId: string,
  catalogId: string,
): Promise<{ releases: PcmRelease[]; current: string | undefined }> {
  await catalogOf(storeId, catalogId);
  const [markers, registry] = await Promise.all([
    catalogRepository.listReleases(storeId, catalogId),
    catalogRepository.getRegistry(storeId),
  ]);
  const releases = (markers as PcmRelease[])
    .filter((release) => release.deleted_at === undefined)
    .sort((a, b) => (a.release_id < b.release_id ? 1 : a.release_id > b.release_id ? -1 : 0));
  return { releases, current: registry?.catalogs[catalogId]?.release.id };
}

export async function getRelease(
  storeId: string,
  catalogId: string,
  releaseId: string,
): Promise<{ release: PcmRelease; current: boolean }> {
  if (releaseId === LATEST_PUBLISHED) {
    const { releases, current } = await listReleases(storeId, catalogId);
    const latest = releases.find((release) => releaseState(release) === 'PUBLISHED');
    if (!latest) throw new NotFoundError('the catalog has no published release');
    return { release: latest, current: latest.release_id === current };
  }
  await catalogOf(storeId, catalogId);
  const release = await pcmRepository.getRelease(storeId, catalogId, releaseId);
  if (!release || release.deleted_at !== undefined) throw new NotFoundError('release not found');
  const registry = await catalogRepository.getRegistry(storeId);
  return { release, current: registry?.catalogs[catalogId]?.release.id === releaseId };
}

/**
 * Deletes a release: at once for the API (it is no longer listed nor found), while its items stay until no
 * reader can still hold it: the cleanup after every switch (`cleanupReleases`) reclaims them, as it
 * reclaims replaced releases, RETAIN_REPLACED_MS after the release was replaced (at once for one that never
 * served). The current release is never deleted (409: it serves shoppers until another release replaces
 * it), nor one being published (409).
 */
export async function deleteRelease(
  storeId: string,
  catalogId: string,
  releaseId: string,
  caller: WriteCaller,
): Promise<void> {
  const { release, current } = await getRelease(storeId, catalogId, releaseId);
  if (current) throw new ConflictError('the current release serves shoppers: publish another to replace it');
  if (isPublishing(release)) {
    throw new ConflictError('the release is being published; wait until it is PUBLISHED or FAILED');
  }
  await assertCallerExists(caller);
  // False: deleted meanwhile by another request, which is what was asked.
  await catalogRepository.markReleaseDeleted(release, new Date().toISOString());
  await reclaimDeleted(storeId, catalogId);
}

/** Deletes every release of the catalog that is neither current nor being published; returns how many. */
export async function deleteReleases(
  storeId: string,
  catalogId: string,
  caller: WriteCaller,
): Promise<number> {
  const { releases, current } = await listReleases(storeId, catalogId);
  await assertCallerExists(caller);
  const at = new Date().toISOString();
  let deleted = 0;
  for (const release of releases) {
    if (release.release_id === current || isPublishing(release)) continue;
    if (await catalogRepository.markReleaseDeleted(release, at)) deleted += 1;
  }
  await reclaimDeleted(storeId, catalogId);
  return deleted;
}

const isPublishing = (release: PcmRelease) => {
  const state = releaseState(release);
  return state === 'PENDING' || state === 'IN_PROGRESS';
};

/**
 * Reclaims what of the catalog's deleted (and replaced) releases no reader can hold any more; the rest
 * waits for the next cleanup. The deletion is done whatever happens here.
 */
async function reclaimDeleted(storeId: string, catalogId: string): Promise<void> {
  await cleanupReleases(storeId, { catalogId }).catch(() => undefined);
}
