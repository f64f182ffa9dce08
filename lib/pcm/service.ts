import { ConflictError, NotFoundError } from '../http/errors';
import { uuidv7 } from '../ids';
import { assertCallerExists, type WriteCaller } from '../store/caller-check';
import { catalogRepository } from '../store/catalog-repository';
import {
  CatalogBusyError,
  CatalogNotFoundError,
  type PcmCatalog,
  type PcmRelease,
  pcmRepository,
} from '../store/pcm-repository';
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

export async function createCatalog(
  storeId: string,
  attributes: CatalogAttributes & { name: string },
  caller: WriteCaller,
): Promise<PcmCatalog> {
  const at = new Date().toISOString();
  const catalog: PcmCatalog = {
    id: uuidv7(),
    name: attributes.name,
    description: attributes.description ?? '',
    hierarchy_ids: attributes.hierarchy_ids ?? [],
    pricebook_id: attributes.pricebook_id ?? null,
    created_at: at,
    updated_at: at,
  };
  await pcmRepository.createCatalog(storeId, catalog, caller);
  return catalog;
}

export async function updateCatalog(
  storeId: string,
  catalogId: string,
  changes: CatalogAttributes,
  caller: WriteCaller,
): Promise<PcmCatalog> {
  try {
    await pcmRepository.updateCatalog(storeId, catalogId, changes, new Date().toISOString(), caller);
  } catch (error) {
    if (error instanceof CatalogNotFoundError) throw new NotFoundError('catalog not found');
    throw error;
  }
  return catalogOf(storeId, catalogId);
}

/** Deletes a catalog that has no releases (409 otherwise: delete them first, which keeps the current one). */
export async function deleteCatalog(storeId: string, catalogId: string, caller: WriteCaller): Promise<void> {
  await catalogOf(storeId, catalogId);
  const releases = await catalogRepository.listReleases(storeId, catalogId);
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

/** The catalog's releases, newest first, and the id of its current one. */
export async function listReleases(
  storeId: string,
  catalogId: string,
): Promise<{ releases: PcmRelease[]; current: string | undefined }> {
  await catalogOf(storeId, catalogId);
  const [markers, registry] = await Promise.all([
    catalogRepository.listReleases(storeId, catalogId),
    catalogRepository.getRegistry(storeId),
  ]);
  const releases = (markers as PcmRelease[]).sort((a, b) =>
    a.release_id < b.release_id ? 1 : a.release_id > b.release_id ? -1 : 0,
  );
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
  if (!release) throw new NotFoundError('release not found');
  const registry = await catalogRepository.getRegistry(storeId);
  return { release, current: registry?.catalogs[catalogId]?.release.id === releaseId };
}

/**
 * Deletes a release with its items. The current release is never deleted (409: it serves shoppers until
 * another release replaces it), nor one being published (409).
 */
export async function deleteRelease(
  storeId: string,
  catalogId: string,
  releaseId: string,
  caller: WriteCaller,
): Promise<void> {
  const { release, current } = await getRelease(storeId, catalogId, releaseId);
  if (current) throw new ConflictError('the current release serves shoppers: publish another to replace it');
  const state = releaseState(release);
  if (state === 'PENDING' || state === 'IN_PROGRESS') {
    throw new ConflictError('the release is being published; wait until it is PUBLISHED or FAILED');
  }
  await assertCallerExists(caller);
  await catalogRepository.deleteRelease(release);
}

/** Deletes every release of the catalog that is neither current nor being published; returns how many. */
export async function deleteReleases(
  storeId: string,
  catalogId: string,
  caller: WriteCaller,
): Promise<number> {
  const { releases, current } = await listReleases(storeId, catalogId);
  await assertCallerExists(caller);
  let deleted = 0;
  for (const release of releases) {
    const state = releaseState(release);
    if (release.release_id === current || state === 'PENDING' || state === 'IN_PROGRESS') continue;
    await catalogRepository.deleteRelease(release);
    deleted += 1;
  }
  return deleted;
}
