import { getConfig } from '../config/index';
import { deleteObject } from './object-urls';

/*
 * Where releases' delta files are kept in the documents bucket (written by lib/catalog/pipeline/delta-file.ts),
 * and deleting one: one request of lib/store/object-urls.ts, so that whatever deletes a release's items can
 * delete its file without bundling the object store.
 */

/**
 * Every delta file is under this prefix, apart from the documents, so that the bucket expires them
 * (infra/publishing.ts) and the functions that link them may read them and nothing else.
 */
export const DELTAS_ROOT = 'deltas/';

/** A catalog's delta files. */
export const deltasPrefix = (storeId: string, catalogId: string) => `${DELTAS_ROOT}${storeId}/${catalogId}/`;

/** Where a release's delta file is kept. */
export const deltaFileKey = (storeId: string, catalogId: string, releaseId: string): string =>
  `${deltasPrefix(storeId, catalogId)}${releaseId}.jsonl.gz`;

/** Deletes a release's delta file; idempotent (a release without one, or one deleted before, is fine). */
export async function deleteDeltaFile(storeId: string, catalogId: string, releaseId: string): Promise<void> {
  await deleteObject(getConfig().documentsBucket, deltaFileKey(storeId, catalogId, releaseId));
}
