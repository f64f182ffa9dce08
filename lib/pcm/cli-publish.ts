import type { ReleaseCounts } from '../catalog/derive';
import { DocumentReadError, readReleaseDocument } from '../catalog/document-stream';
import type { ReleaseSummary } from '../catalog/product-lookups';
import { StoreNotFoundError, selectionWarnings } from '../catalog/publisher';
import { ABANDONED_AFTER_MS } from '../catalog/release-settings';
import { ConflictError } from '../http/errors';
import { isUuid, uuidv7 } from '../ids';
import { emitReleaseEvent } from '../integrations/events';
import { catalogLookupRepository } from '../store/catalog-lookup-repository';
import { catalogRepository } from '../store/catalog-repository';
import { reclaimDocument, releaseDocument } from '../store/document-objects';
import { objectStore } from '../store/object-store';
import { type PcmCatalog, type PcmRelease, pcmRepository, progressOf } from '../store/pcm-repository';
import { storeRepository } from '../store/store-repository';
import { createRelease, documentKey, replaceDocument } from './publishing';
import { releaseState } from './render';

/*
 * `npm run catalog -- publish` as a client of the publishing workflow (one pipeline for every source: docs/publishing.md):
 * what `PUT /pcm/catalogs/{id}/document` and `POST /pcm/catalogs/{id}/releases` do, for a trusted local
 * tool. The document is streamed into the documents bucket as the catalog's document, a release is created
 * (the catalog's lock, PENDING, the workflow started) and followed to PUBLISHED or FAILED. The records are
 * the API's: the release shows in `GET /pcm/catalogs/{id}/releases`, and a release of the API in progress
 * refuses the CLI's as it refuses the API's.
 */

export { DocumentReadError, StoreNotFoundError };

/** What a document says of its catalog: the record a publish of it goes to. */
export interface DocumentCatalog {
  /** `catalog.id`, in lower case (the validation stores ids so, and the API's paths name them so). */
  id?: string;
  name: string;
  description?: string;
  pricebook_id?: string;
}

/** How often the release is read while it is published (the platform's tools poll every 3 s). */
export const POLL_MS = 200;

/** Failures that are not the document's: the workflow's own error, or a stalled release taken over. */
const WORKFLOW_RULES = new Set(['publish', 'stalled', 'interrupted']);

/** The document could not be stored in the documents bucket (`cause`: the object store's error). */
export class DocumentNotStored extends Error {
  override name = 'DocumentNotStored';
}

/** A catalog publishes one release at a time: another is being published (by the API or another tool). */
export class CatalogBusy extends Error {
  override name = 'CatalogBusy';
}

/**
 * The document's `catalog`, read as a stream: undefined when it names no catalog a record can be made for
 * (no object, no name, a `catalog.id` that is no UUID: the document is invalid then). The whole source is
 * read, so a document that is not JSON throws DocumentReadError before anything is stored.
 */
export async function readDocumentCatalog(
  source: AsyncIterable<Uint8Array>,
): Promise<DocumentCatalog | undefined> {
  let found: DocumentCatalog | undefined;
  for await (const parts of readReleaseDocument(source)) {
    for (const part of parts) {
      if (part.kind === 'value' && part.key === 'catalog') found = documentCatalog(part.value);
    }
  }
  return found;
}

function documentCatalog(value: unknown): DocumentCatalog | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { id, name, description, pricebook_id } = value as Record<string, unknown>;
  // The release schema's text: 1-255 characters, not only white space.
  if (typeof name !== 'string' || name.length > 255 || !/\S/.test(name)) return undefined;
  if (id !== undefined && (typeof id !== 'string' || !isUuid(id))) return undefined;
  return {
    name,
    ...(typeof id === 'string' ? { id: id.toLowerCase() } : {}),
    ...(typeof description === 'string' ? { description } : {}),
    ...(typeof pricebook_id === 'string' ? { pricebook_id } : {}),
  };
}

/**
 * The store's catalog record (`PCM#`) a document publishes to: the one of its `catalog.id` (created with
 * that id when missing), else the store's only catalog of its name (a record of the API, or a catalog the
 * CLI published before the API kept records), else a new one. Re-publishing a file without `catalog.id`
 * therefore updates its catalog instead of adding one.
 */
export async function ensureCatalogForDocument(
  storeId: string,
  document: DocumentCatalog,
): Promise<PcmCatalog> {
  const registry = await catalogRepository.getRegistry(storeId);
  let id = document.id;
  if (id === undefined) {
    const records = await pcmRepository.listCatalogs(storeId);
    const named = new Set(
      [...records, ...Object.values(registry?.catalogs ?? {})]
        .filter((catalog) => catalog.name === document.name)
        .map((catalog) => catalog.id),
    );
    if (named.size === 1) id = [...named][0];
  }
  if (id !== undefined) {
    const found = await pcmRepository.getCatalog(storeId, id);
    if (found) return found;
  }
  const at = new Date().toISOString();
  const catalog: PcmCatalog = {
    id: id ?? uuidv7(),
    name: document.name,
    description: document.description ?? '',
    hierarchy_ids: [],
    pricebook_id: document.pricebook_id ?? null,
    // A catalog published before records were kept is as old as its first publish.
    created_at: (id === undefined ? undefined : registry?.catalogs[id]?.created_at) ?? at,
    updated_at: at,
  };
  try {
    await pcmRepository.createCatalog(storeId, catalog);
  } catch (error) {
    // Another publish of the same document made it meanwhile.
    const made = await pcmRepository.getCatalog(storeId, catalog.id);
    if (made) return made;
    throw error;
  }
  return catalog;
}

/**
 * `createRelease` for trusted local tools, which write with the tables' own credentials and hold no token:
 * without a caller the repository adds no caller check (`withCallerChecks`). No route reaches this.
 */
export function createToolRelease(storeId: string, catalogId: string): Promise<PcmRelease> {
  return createRelease(storeId, catalogId, undefined);
}

/** The catalog's release being published, unless it stalled (what makes `createRelease` refuse). */
async function releaseInProgress(storeId: string, catalog: PcmCatalog): Promise<PcmRelease | undefined> {
  if (catalog.publishing === undefined) return undefined;
  const running = await pcmRepository.getRelease(storeId, catalog.id, catalog.publishing);
  if (!running) return undefined;
  const state = releaseState(running);
  const alive = Date.parse(running.heartbeat_at) + ABANDONED_AFTER_MS >= Date.now();
  return alive && (state === 'PENDING' || state === 'IN_PROGRESS') ? running : undefined;
}

function busy(catalogId: string, running: PcmRelease): CatalogBusy {
  return new CatalogBusy(
    `catalog ${catalogId} is being published: release ${running.release_id} is ${releaseState(running)} (${progressOf(running)}%). A catalog publishes one release at a time; publish again once that one is PUBLISHED or FAILED (GET /pcm/catalogs/${catalogId}/releases/${running.release_id}); one that makes no progress for 5 minutes is taken over. Nothing was stored.`,
  );
}

export interface PublishOptions {
  /** Called once the release exists (PENDING), before its workflow runs. */
  onCreated?: (release: PcmRelease) => void;
  /** Called with the release as read at each poll. */
  onProgress?: (release: PcmRelease) => void;
  /**
   * The local workflow's run of the release, when it runs in this process: waited for before the result
   * is read (the switch's cleanup runs after PUBLISHED is recorded), and its end without a PUBLISHED or
   * FAILED release is an error rather than a wait forever.
   */
  localRun?: () => Promise<unknown> | undefined;
}

export interface PublishOutcome {
  catalog_id: string;
  release_id: string;
  /** The release when it was PUBLISHED or FAILED (its `errors` then). */
  release: PcmRelease;
  /** Products of the release: `live` (and `draft`) from the release's summary, when it is readable. */
  products: Partial<ReleaseCounts> & { total: number };
  /** Items the release wrote. */
  items: number;
  /** Releases of the catalog the switch's cleanup removed. */
  cleaned_up: string[];
  /** Why shoppers can never be given the catalog (see `unselectableReason`); empty when they can. */
  warnings: string[];
}

/**
 * Publishes a document for a store through the workflow: the catalog record (`ensureCatalogForDocument`),
 * the document streamed into the documents bucket from `open()` (a multipart upload: never held whole) and
 * made the catalog's, a release created and polled every POLL_MS until PUBLISHED or FAILED. Throws
 * StoreNotFoundError, or CatalogBusy (before anything is stored) while another release of the catalog is
 * being published.
 */
export async function publishDocument(
  storeId: string,
  document: DocumentCatalog,
  open: () => AsyncIterable<Uint8Array>,
  options: PublishOptions = {},
): Promise<PublishOutcome> {
  if (!(await storeRepository.get(storeId, true))) throw new StoreNotFoundError(storeId);
  const catalog = await ensureCatalogForDocument(storeId, document);
  const running = await releaseInProgress(storeId, catalog);
  if (running) throw busy(catalog.id, running);
  await storeDocument(storeId, catalog.id, open());
  const before = await catalogRepository.listReleases(storeId, catalog.id);
  let created: PcmRelease;
  try {
    created = await createToolRelease(storeId, catalog.id);
  } catch (error) {
    // A release started between the check above and this one (the document is stored, not published).
    if (error instanceof ConflictError) throw new CatalogBusy(`catalog ${catalog.id}: ${error.message}`);
    throw error;
  }
  // As the API's POST …/releases does: webhooks observing releases hear of it.
  await emitReleaseEvent(storeId, catalog.id, created.release_id, 'catalog-release.created');
  options.onCreated?.(created);
  const release = await follow(created, options);
  // The run's own failure is the release's (FAILED); here it only has to be over.
  await options.localRun?.()?.catch(() => undefined);
  return outcome(
    storeId,
    release,
    before.map((marker) => marker.release_id),
  );
}

/** Streams the document into the bucket and makes it the catalog's current document. */
async function storeDocument(
  storeId: string,
  catalogId: string,
  source: AsyncIterable<Uint8Array>,
): Promise<void> {
  const key = documentKey(storeId, catalogId);
  let bytes = 0;
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const chunk of source) {
      bytes += chunk.byteLength;
      yield chunk;
    }
  }
  try {
    await objectStore.put(key, counted(), { contentType: 'application/json' });
  } catch (error) {
    // The SDK's errors carry `$metadata`; a failure to read the source is the caller's to report as it is.
    if ((error as { $metadata?: unknown }).$metadata === undefined) throw error;
    throw new DocumentNotStored(`the document could not be stored: ${(error as Error).message}`, {
      cause: error,
    });
  }
  await replaceDocument(storeId, catalogId, { key, bytes });
}

const settled = (state: string) => state === 'PUBLISHED' || state === 'FAILED';

/** Reads the release every POLL_MS until it is PUBLISHED or FAILED. */
async function follow(created: PcmRelease, options: PublishOptions): Promise<PcmRelease> {
  const { store_id: storeId, catalog_id: catalogId, release_id: releaseId } = created;
  let stopped = false;
  const run = options.localRun?.();
  const ended = run?.then(
    () => {
      stopped = true;
    },
    () => {
      stopped = true;
    },
  );
  for (;;) {
    const wasStopped = stopped;
    const release = await pcmRepository.getRelease(storeId, catalogId, releaseId);
    if (!release) throw new Error(`release ${releaseId} of catalog ${catalogId} is gone`);
    options.onProgress?.(release);
    if (settled(releaseState(release))) return release;
    if (wasStopped) {
      throw new Error(
        `the publishing workflow stopped before release ${releaseId} of catalog ${catalogId} was PUBLISHED or FAILED`,
      );
    }
    await Promise.race([new Promise((resolve) => setTimeout(resolve, POLL_MS)), ...(ended ? [ended] : [])]);
  }
}

/** What a settled release published, from its record, the registry and its summary. */
async function outcome(storeId: string, release: PcmRelease, before: string[]): Promise<PublishOutcome> {
  const catalogId = release.catalog_id;
  const [after, registry] = await Promise.all([
    catalogRepository.listReleases(storeId, catalogId),
    catalogRepository.getRegistry(storeId),
  ]);
  const remaining = new Set(after.map((marker) => marker.release_id));
  const result: PublishOutcome = {
    catalog_id: catalogId,
    release_id: release.release_id,
    release,
    products: release.counts ?? { total: release.total_products ?? 0 },
    items: release.total_items ?? 0,
    cleaned_up: before.filter((id) => !remaining.has(id)),
    warnings: [],
  };
  if (releaseState(release) !== 'PUBLISHED') return result;
  const layout = registry?.catalogs[catalogId]?.release;
  if (layout?.id === release.release_id) {
    const read = await catalogLookupRepository.read(layout, { summary: true });
    if (read.summary !== undefined) {
      const live = (JSON.parse(read.summary) as ReleaseSummary).live_products;
      result.products = { ...result.products, live, draft: result.products.total - live };
    }
  }
  result.warnings.push(...selectionWarnings(registry, catalogId, new Date()));
  return result;
}

/** Whether a failed release failed for its document (validation issues) rather than for the workflow. */
export function failedForDocument(release: PcmRelease): boolean {
  return (release.errors ?? []).some((issue) => !WORKFLOW_RULES.has(issue.rule));
}

/**
 * Settles a release whose publisher was interrupted (Ctrl-C) at once, rather than leaving the catalog
 * locked until the release is taken over as stalled (ABANDONED_AFTER_MS): fenced so that no switch can
 * follow, recorded FAILED (`interrupted`) and the catalog's lock freed. What it wrote stays for a cleanup
 * (which removes an abandoned release at once). A release already switched is recorded PUBLISHED. Returns
 * the release's state now (undefined: it is gone).
 */
export async function interruptRelease(
  release: PcmRelease,
  signal: string,
): Promise<'FAILED' | 'PUBLISHED' | undefined> {
  const { store_id: storeId, catalog_id: catalogId, release_id: releaseId } = release;
  const status = await catalogRepository.abandonRelease(release);
  if (status === undefined) return undefined;
  const at = new Date().toISOString();
  const published = status === 'complete';
  await pcmRepository.updateRelease(
    storeId,
    catalogId,
    releaseId,
    published
      ? { state: 'PUBLISHED', percent_completed: 100, published_at: at, updated_at: at }
      : {
          state: 'FAILED',
          updated_at: at,
          errors: [
            {
              path: '',
              rule: 'interrupted',
              message: `the publish was interrupted (${signal}) before the release went live; publish again`,
            },
          ],
          errors_total: 1,
        },
    { unlessState: ['FAILED', 'PUBLISHED'] },
  );
  await pcmRepository.releaseLock(storeId, catalogId, releaseId);
  await reclaimDocument(storeId, catalogId, releaseDocument(release));
  return published ? 'PUBLISHED' : 'FAILED';
}
