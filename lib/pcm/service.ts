import { cleanupReleases } from '../catalog/release-cleanup';
import { ConflictError, NotFoundError, WRITE_CONFLICT } from '../http/errors';
import { uuidv7 } from '../ids';
import { assertCallerExists, type WriteCaller } from '../store/caller-check';
import { catalogRepository } from '../store/catalog-repository';
import {
  CatalogBusyError,
  CatalogLimitError,
  CatalogNotFoundError,
  type PcmCatalog,
  type PcmRelease,
  pcmRepository,
  RegistryChangedError,
} from '../store/pcm-repository';
import type { CatalogAttributes } from '../validation/pcm-catalog';
import { releaseState } from './render';
import { rulesNaming } from './rules';

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
  const releases = (await catalogRepository.listReleases(storeId, catalogId)).filter(
    (release) => release.deleted_at === undefined,
  );
  if (releases.length > 0) {
    throw new ConflictError(
      `the catalog has ${releases.length} release${releases.length === 1 ? '' : 's'}; a catalog with releases cannot be deleted`,
    );
  }
  for (let attempt = 1; ; attempt += 1) {
    // Rules must be changed first (the platform's rule): the deletion holds only while the registry, which
    // holds the rules, is still the one read here.
    const registry = await catalogRepository.getRegistry(storeId);
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
