import { errorFields, log } from '../http/log';
import { deltasPrefix } from './delta-objects';
import { objectStore } from './object-store';
import { type PcmCatalog, pcmRepository } from './pcm-repository';

/*
 * Which of a catalog's objects in the documents bucket are still needed, and deleting the others
 * (docs/catalog-api.md, "What is kept in object storage"). A document object is needed while it is the
 * catalog's document, and while the release being published (the catalog's `publishing`, which a stalled
 * execution keeps until a new release takes it over, so that a redrive finds its document) reads it. A
 * published or failed release needs none: its items are in the products table. What a request cannot
 * delete (an upload URL used after its catalog or its upload request was replaced, a multipart upload never
 * completed, the workflow's files of an execution that died) the bucket's lifecycle rules reclaim
 * (infra/publishing.ts).
 */

/** Where a catalog's documents are kept: one immutable object per stored document. */
export const documentsPrefix = (storeId: string, catalogId: string) => `documents/${storeId}/${catalogId}/`;

/** Where a catalog's pre-signed uploads go; the bucket expires them after a day. */
export const uploadsPrefix = (storeId: string, catalogId: string) => `uploads/${storeId}/${catalogId}/`;

/** The objects of a document: its key, and the upload it is still to be copied from, if any. */
export interface DocumentObjects {
  key: string;
  copy_from?: string | undefined;
}

/** The objects of the document a release reads. */
export const releaseDocument = (release: {
  document_key: string;
  copy_from?: string | undefined;
}): DocumentObjects => ({ key: release.document_key, copy_from: release.copy_from });

/**
 * Deletes the objects of `document`, a document of the catalog that something stopped using (a newer
 * document replaced it, or the release that read it ended), unless the catalog still needs it: it is the
 * catalog's document, or the release being published reads it (that release's end calls this again).
 *
 * Called after the write that stopped the use (the document replaced, the release's lock freed): a release
 * is created only with the catalog's document at that moment (its transaction checks it), so a document
 * neither current nor read by the release being published is needed by nothing, now or later. Best effort:
 * a failure is logged, and the object stays (the request that got here has succeeded). `catalogRead`: the
 * caller's read of the catalog, made after that write (one request where the caller reads it anyway).
 */
export async function reclaimDocument(
  storeId: string,
  catalogId: string,
  document: DocumentObjects,
  catalogRead?: Promise<PcmCatalog | undefined>,
): Promise<void> {
  try {
    // The caller's read of the catalog, when it made one after that write, serves.
    const catalog = await (catalogRead ?? pcmRepository.getCatalog(storeId, catalogId));
    if (catalog?.document?.key === document.key) return;
    if (catalog?.publishing !== undefined) {
      const release = await pcmRepository.getRelease(storeId, catalogId, catalog.publishing);
      if (release?.document_key === document.key) return;
    }
    const keys = [document.key, document.copy_from].filter((key): key is string => key !== undefined);
    // Each key is one object: a DeleteObject each, at once (a prefix's list and delete would be two trips).
    await Promise.all(keys.map((key) => objectStore.delete(key)));
  } catch (error) {
    log('warn', 'a document no longer used could not be deleted', {
      catalog_id: catalogId,
      key: document.key,
      error: errorFields(error),
    });
  }
}

/**
 * Deletes every document, upload and delta file of a catalog whose record was deleted; answers how many
 * objects went.
 */
export async function deleteCatalogObjects(storeId: string, catalogId: string): Promise<number> {
  const counts = await Promise.all(
    [documentsPrefix, uploadsPrefix, deltasPrefix].map((prefix) =>
      objectStore.deletePrefix(prefix(storeId, catalogId)),
    ),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}
