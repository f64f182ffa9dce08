import { randomUUID } from 'node:crypto';
import { startReleaseWorkflow } from '../catalog/pipeline/start';
import { authoredDocumentKey, type ReleaseExecutionInput, uploadRefused } from '../catalog/pipeline/workflow';
import { ABANDONED_AFTER_MS, RELEASE_SHARDS } from '../catalog/release-settings';
import { ConflictError, NotFoundError } from '../http/errors';
import { uuidv7 } from '../ids';
import { applicationKeyExists, type WriteCaller } from '../store/caller-check';
import {
  deleteCatalogObjects,
  documentsPrefix,
  reclaimDocument,
  releaseDocument,
  uploadsPrefix,
} from '../store/document-objects';
import { objectStore } from '../store/object-store';
import {
  type AuthoredSources,
  CatalogBusyError,
  CatalogNotFoundError,
  CatalogSourceError,
  NoDocumentError,
  type PcmCatalog,
  type PcmRelease,
  type PendingUpload,
  pcmRepository,
} from '../store/pcm-repository';
import { firstRoundRead } from '../store/transact-retrying';
import { releaseState } from './render';
import { catalogOf, deleteCatalog } from './service';

/**
 * What of the catalog API touches the documents bucket or starts the publishing workflow: storing a
 * document, issuing an upload URL, creating a release. Kept apart from lib/pcm/service.ts so that the
 * other catalog functions' bundles carry neither the object store nor the Step Functions client (about
 * 170 KiB minified with the AWS SDK's core; docs/performance.md).
 */

/** Where a catalog's documents are kept: one immutable object per `PUT …/document`. */
export const documentKey = (storeId: string, catalogId: string) =>
  `${documentsPrefix(storeId, catalogId)}${randomUUID()}.json`;

/** Where a pre-signed upload goes: under `uploads/`, which the bucket expires after a day. */
export const uploadKey = (storeId: string, catalogId: string, id: string) =>
  `${uploadsPrefix(storeId, catalogId)}${id}.json`;

/** How many times a document write is tried again when another write changed the document meanwhile. */
const REPLACE_ATTEMPTS = 5;

/** How long a pre-signed upload URL works: long enough to start sending a gigabyte, short if it leaks. */
export const UPLOAD_URL_SECONDS = 900;

/** The media type an upload is signed for: the uploader must send it. */
export const UPLOAD_CONTENT_TYPE = 'application/json';

/** Stores a document (already checked as JSON) as the catalog's current one. */
export async function putDocument(
  storeId: string,
  catalogId: string,
  bytes: Uint8Array,
  caller: WriteCaller,
): Promise<PcmCatalog> {
  const key = documentKey(storeId, catalogId);
  // The catalog is read while the object is stored (a new key: nothing reads it yet); a catalog that is
  // missing, or authored, deletes it again (replaceDocument).
  const [read, stored] = await Promise.allSettled([
    catalogOf(storeId, catalogId),
    objectStore.put(key, bytes, { contentType: 'application/json' }),
  ]);
  if (read.status === 'rejected' || stored.status === 'rejected') {
    if (stored.status === 'fulfilled') await objectStore.delete(key).catch(() => undefined);
    throw read.status === 'rejected' ? read.reason : (stored as PromiseRejectedResult).reason;
  }
  return replaceDocument(storeId, catalogId, { key, bytes: bytes.byteLength }, caller, read.value);
}

/**
 * Makes the object at `document.key` (stored by the caller under documentKey) the catalog's document, and
 * deletes the document it replaces unless a release being published still reads it (`reclaimDocument`).
 * Each write names the document it replaces, so that exactly one writer deletes it even when two store a
 * document at once (the other reads the catalog again and replaces the winner's). When the catalog is gone
 * (404) or the write fails, the new object is deleted.
 */
export async function replaceDocument(
  storeId: string,
  catalogId: string,
  document: { key: string; bytes: number },
  caller?: WriteCaller,
  read?: PcmCatalog,
): Promise<PcmCatalog> {
  let replaced: PcmCatalog['document'];
  const readCatalog = firstRoundRead(read, () => catalogOf(storeId, catalogId));
  try {
    for (let attempt = 1; ; attempt += 1) {
      const catalog = await readCatalog();
      if (catalog.hierarchy_ids.length > 0)
        throw new ConflictError(new CatalogSourceError('authored').message);
      replaced = catalog.document;
      const stored = { ...document, updated_at: new Date().toISOString() };
      if (await pcmRepository.setDocument(storeId, catalogId, stored, caller, replaced?.key ?? null)) break;
      if (attempt === REPLACE_ATTEMPTS) throw new ConflictError('the catalog document changed; try again');
    }
  } catch (error) {
    await objectStore.deletePrefix(document.key).catch(() => undefined);
    if (error instanceof CatalogNotFoundError) throw new NotFoundError('catalog not found');
    throw error;
  }
  // The catalog as written, read once: the answer, and whether the replaced document is still read.
  const after = pcmRepository.getCatalog(storeId, catalogId);
  const [catalog] = await Promise.all([
    after,
    replaced === undefined ? undefined : reclaimDocument(storeId, catalogId, replaced, after),
  ]);
  if (!catalog) throw new NotFoundError('catalog not found');
  return catalog;
}

/**
 * Deletes a catalog without releases (lib/pcm/service.ts `deleteCatalog`), then every object it kept in the
 * documents bucket: its documents and uploads.
 */
export async function deleteCatalogWithObjects(
  storeId: string,
  catalogId: string,
  caller: WriteCaller,
): Promise<void> {
  await deleteCatalog(storeId, catalogId, caller);
  await deleteCatalogObjects(storeId, catalogId);
}

/**
 * A pre-signed URL to PUT a document of any size (up to S3's 5 GB for one PUT) straight to the documents
 * bucket, for UPLOAD_URL_SECONDS. The catalog remembers it as its pending upload (replacing an earlier one),
 * with the application key that asked for it; the next release takes the uploaded object in as the catalog's
 * document (`createRelease`), unless that key was deleted meanwhile (the URL itself is object storage's and
 * cannot be revoked: the upload is refused where it is taken in).
 */
export async function createDocumentUpload(
  storeId: string,
  catalogId: string,
  caller: WriteCaller,
): Promise<{ id: string; upload_url: string; expires_at: string }> {
  const id = randomUUID();
  const key = uploadKey(storeId, catalogId, id);
  // Before signing: nothing can be stored at the key before this time (createRelease relies on it).
  const createdAt = new Date().toISOString();
  const { url, expires_at } = await objectStore.presignPut(key, {
    expiresInSeconds: UPLOAD_URL_SECONDS,
    contentType: UPLOAD_CONTENT_TYPE,
  });
  try {
    const upload = { key, created_at: createdAt, expires_at, requested_by: caller.keyId };
    await pcmRepository.setUpload(storeId, catalogId, upload, caller);
  } catch (error) {
    if (error instanceof CatalogNotFoundError) throw new NotFoundError('catalog not found');
    if (error instanceof CatalogSourceError) throw new ConflictError(error.message);
    throw error;
  }
  return { id, upload_url: url, expires_at };
}

/**
 * The catalog with its pending upload taken in, when there is one stored after the current document: the
 * object becomes the catalog's document at a `documents/` key (uploads/ expire after a day; a document is
 * kept), which the release's workflow copies it to first (`copy_from`), and becomes the
 * catalog's document. An upload never PUT, or stored before the current document, leaves the document as it
 * is (and is forgotten once its URL has lapsed). What the upload holds is not read here: the release's
 * validation reads it (invalid JSON fails the release with the reader's line and column).
 */
async function takeInUpload(
  storeId: string,
  catalog: PcmCatalog,
  caller: WriteCaller | undefined,
): Promise<PcmCatalog> {
  const upload: PendingUpload | undefined = catalog.upload;
  if (upload === undefined) return catalog;
  const stored = await objectStore.head(upload.key);
  // S3 keeps whole seconds, and nothing was stored before the URL was issued: the upload is newer than the
  // document when the later of the two is. Within the same second as a document PUT after the URL was
  // issued, that document is kept.
  const current = catalog.document;
  const newer =
    stored !== undefined &&
    (current === undefined ||
      Math.max(Date.parse(stored.last_modified), Date.parse(upload.created_at)) >
        Date.parse(current.updated_at));
  if (!newer) {
    // Its URL has lapsed: nothing can arrive at the key any more, and what did is older than the document.
    if (Date.parse(upload.expires_at) <= Date.now()) {
      await pcmRepository.dropUpload(storeId, catalog.id, upload.key, caller);
      if (stored !== undefined) await objectStore.deletePrefix(upload.key);
    }
    return catalog;
  }
  // The URL outlives its request: once the key that asked for it is deleted, whoever still holds the URL
  // must not replace the catalog's document. The workflow checks again before it copies (the key may go
  // between now and then).
  if (upload.requested_by !== undefined && !(await applicationKeyExists(storeId, upload.requested_by))) {
    await pcmRepository.dropUpload(storeId, catalog.id, upload.key, caller);
    await objectStore.deletePrefix(upload.key);
    throw new ConflictError(uploadRefused(upload.requested_by, 'pending upload'));
  }
  // The copy (a gigabyte takes longer than an API function may run) is the workflow's: its first step copies
  // the upload to the document's key (lib/catalog/pipeline/steps.ts `takeInDocument`).
  const document = {
    key: documentKey(storeId, catalog.id),
    bytes: stored.bytes,
    updated_at: new Date().toISOString(),
    copy_from: upload.key,
    ...(upload.requested_by === undefined ? {} : { upload_requested_by: upload.requested_by }),
  };
  let taken: boolean;
  try {
    taken = await pcmRepository.takeUpload(
      storeId,
      catalog.id,
      upload.key,
      document,
      caller,
      current?.key ?? null,
    );
  } catch (error) {
    if (error instanceof CatalogNotFoundError) throw new NotFoundError('catalog not found');
    throw error;
  }
  // Not taken: a newer upload was issued, or a document stored, meanwhile; the catalog stays as that request
  // left it.
  if (!taken) return catalogOf(storeId, catalog.id);
  if (current !== undefined) await reclaimDocument(storeId, catalog.id, current);
  const { upload: _taken, ...rest } = catalog;
  return { ...rest, document };
}

/**
 * Creates a release of the catalog's current document (201 PENDING) and starts its workflow; a pending
 * upload stored after that document becomes the catalog's document first. A second release while one is
 * being published is refused (409), unless the first stalled (no progress for ABANDONED_AFTER_MS), which is
 * then failed and replaced.
 */
export async function createRelease(
  storeId: string,
  catalogId: string,
  /** Absent for a trusted local tool (the catalog CLI), which writes with the table's own credentials. */
  caller: WriteCaller | undefined,
  /** The body's `export_full_delta` (`meta.is_full_delta`). */
  options: { fullDelta?: boolean } = {},
): Promise<PcmRelease> {
  let catalog = await catalogOf(storeId, catalogId);
  let takeOver: string | undefined;
  let stalledRelease: PcmRelease | undefined;
  if (catalog.publishing !== undefined) {
    const running = await pcmRepository.getRelease(storeId, catalogId, catalog.publishing);
    const stalled =
      running === undefined ||
      Date.parse(running.heartbeat_at) + ABANDONED_AFTER_MS < Date.now() ||
      releaseState(running) === 'FAILED' ||
      releaseState(running) === 'PUBLISHED';
    if (!stalled) throw busy(catalog.publishing);
    takeOver = catalog.publishing;
    stalledRelease = running;
  }
  const authored = catalog.hierarchy_ids.length > 0 ? authoredSources(catalog) : undefined;
  if (authored === undefined) catalog = await takeInUpload(storeId, catalog, caller);
  if (authored === undefined && catalog.document === undefined) {
    throw new ConflictError(
      'the catalog has no document and names no hierarchies: set its hierarchy_ids, or PUT /pcm/catalogs/{catalog_id}/document (or upload one: POST /pcm/catalogs/{catalog_id}/document-uploads), first',
    );
  }
  const at = new Date();
  const releaseId = uuidv7(at.getTime());
  const release: PcmRelease = {
    store_id: storeId,
    catalog_id: catalogId,
    release_id: releaseId,
    shards: RELEASE_SHARDS,
    status: 'writing',
    started_at: at.toISOString(),
    heartbeat_at: at.toISOString(),
    state: 'PENDING',
    name: catalog.name,
    full_delta: options.fullDelta === true,
    ...(authored !== undefined || catalog.document === undefined
      ? {
          document_key: authoredDocumentKey({
            store_id: storeId,
            catalog_id: catalogId,
            release_id: releaseId,
          }),
          authored,
        }
      : {
          document_key: catalog.document.key,
          ...(catalog.document.copy_from === undefined ? {} : { copy_from: catalog.document.copy_from }),
          ...(catalog.document.copy_from === undefined || catalog.document.upload_requested_by === undefined
            ? {}
            : { upload_requested_by: catalog.document.upload_requested_by }),
        }),
    created_at: at.toISOString(),
    updated_at: at.toISOString(),
    percent_completed: 0,
  };
  try {
    await pcmRepository.createRelease(release, { caller, ...(takeOver === undefined ? {} : { takeOver }) });
  } catch (error) {
    if (error instanceof CatalogNotFoundError) throw new NotFoundError('catalog not found');
    if (error instanceof CatalogBusyError) throw busy(error.releaseId);
    if (error instanceof NoDocumentError) throw new ConflictError('the catalog document changed; try again');
    throw error;
  }
  if (takeOver !== undefined) {
    await pcmRepository.updateRelease(
      storeId,
      catalogId,
      takeOver,
      {
        state: 'FAILED',
        errors: [{ path: '', rule: 'stalled', message: 'the release made no progress and was replaced' }],
        errors_total: 1,
      },
      { unlessState: ['FAILED', 'PUBLISHED'] },
    );
  }
  // The stalled release no longer holds the catalog: its document goes unless it is this release's too.
  if (stalledRelease !== undefined)
    await reclaimDocument(storeId, catalogId, releaseDocument(stalledRelease));
  const input: ReleaseExecutionInput = {
    store_id: storeId,
    catalog_id: catalogId,
    release_id: release.release_id,
    document_key: release.document_key,
    ...(release.copy_from === undefined ? {} : { copy_from: release.copy_from }),
    export: release.authored !== undefined,
  };
  await startReleaseWorkflow(input);
  return release;
}

/** What an authored catalog's release publishes: its hierarchies, its price books highest priority first. */
function authoredSources(catalog: PcmCatalog): AuthoredSources {
  const books =
    (catalog.pricebook_ids ?? []).length > 0
      ? [...(catalog.pricebook_ids ?? [])].sort((a, b) => b.priority - a.priority).map((book) => book.id)
      : catalog.pricebook_id === null
        ? []
        : [catalog.pricebook_id];
  return { hierarchy_ids: [...catalog.hierarchy_ids], pricebook_ids: books };
}

function busy(releaseId: string): ConflictError {
  return new ConflictError(
    `release ${releaseId} of this catalog is being published; wait until it is PUBLISHED or FAILED`,
  );
}
