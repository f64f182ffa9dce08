import { getConfig } from '../../config/index';
import { emitReleaseEvent, integrationsOf } from '../../integrations/events';
import { applicationKeyExists } from '../../store/caller-check';
import { type CatalogRegistry, catalogRepository, mayHoldItems } from '../../store/catalog-repository';
import { reclaimDocument, releaseDocument } from '../../store/document-objects';
import type { IntegrationRecord } from '../../store/integration-repository';
import { type AskedFirst, settleAll, settleWorkers, startedEarly, withAskedFirst } from '../../store/items';
import { ObjectNotFoundError, objectStore } from '../../store/object-store';
import { DERIVED_PERCENT, type PcmRelease, pcmRepository } from '../../store/pcm-repository';
import { storeRepository } from '../../store/store-repository';
import { CHILD_CHUNK_SIZE } from '../child-index';
import {
  DERIVE_RANGE_BYTES,
  type DerivePlan,
  type DeriveRange,
  deriveRange,
  mergeRelease,
  planRelease,
  type RangePartial,
  type RangePicks,
  type ReleaseItem,
} from '../derive-stream';
import { DocumentReadError } from '../document-stream';
import { FILTER_INDEX_VERSION } from '../filter-index';
import { activate, cleanupReleases, type SwitchFacts, selectionWarnings, switchFacts } from '../publisher';
import { RegistryTooLargeError } from '../registry-size';
import type { ReleaseLayout, StoredProduct } from '../types';
import { ReleaseValidationError, type ValidationIssue } from '../validate-release';
import { validateReleaseStream } from '../validate-stream';
import { decodeItem, encodeItem, readBytes, readLines, readText, streamOf } from './codec';
import { type DeltaChange, deleteDeltaFile, writeDeltaFile } from './delta-file';
import {
  keepRange,
  memoObjects,
  memoTimes,
  type RangeBytes,
  RangeHasher,
  rangeKey,
  readRangeBytes,
  takeUpRange,
} from './derive-memo';
import { AuthoredSourceError } from './export';
import { exportObjects, planSplice, type SpliceFacts, writeExport } from './export-splice';
import { manifestEntry } from './item-manifest';
import {
  buildsOn,
  manifestPartKey,
  planSharing,
  readAhead,
  releaseObjects,
  type ShareChange,
  sweepReleaseObjects,
} from './share';
import {
  type KeptPlan,
  type KeptPlanMeta,
  planSpliced,
  SPLICED_CHECKS_VERSION,
  type SplicedPlanInput,
  validateSpliced,
} from './spliced-checks';
import type {
  AbandonInput,
  DeriveInput,
  DeriveOutput,
  PlanOutput,
  RangeLine,
  ReleaseExecutionInput,
  ReleaseIds,
  ValidateOutput,
  WriteChunk,
  WriteInput,
} from './workflow';
import { CHUNK_ITEMS, uploadRefused, WRITER_BATCHES_IN_FLIGHT } from './workflow';

/**
 * The publishing workflow's steps (functions/workflow.ts): each takes the state's JSON and answers JSON,
 * and keeps what is large (chunk files, the manifest, the facts the switch needs) in the documents bucket,
 * under `work/<store>/<release>/` (the plan among the release's own objects, kept for the next release's),
 * since a state's input and output are bounded (256 KB). The Step Functions
 * state machine (infra/publishing.ts) and the local harness (run-local.ts) run these same functions.
 */

/**
 * Progress shown while each phase runs: an authored catalog's export 5 %, validation to 10 %, the plan 12 %,
 * derivation to 20 %, writes to 99 %.
 */
const EXPORTED_PERCENT = 5;
const VALIDATED_PERCENT = 10;
const PLANNED_PERCENT = 12;
/** Ranges' picks written at once by Plan: small objects, one round trip each. */
const PICKS_IN_FLIGHT = 8;
/** Ranges' partials Merge reads ahead of the one it joins. */
const PARTIALS_READ_AHEAD = 4;

export const workKeys = {
  prefix: (input: Pick<ReleaseExecutionInput, 'store_id' | 'release_id'>) =>
    `work/${input.store_id}/${input.release_id}/`,
  chunk: (input: Pick<ReleaseExecutionInput, 'store_id' | 'release_id'>, part: string, n: number) =>
    `${workKeys.prefix(input)}items-${part}-${String(n).padStart(6, '0')}.jsonl`,
  /**
   * The plan, each range's picks, the ranges' list and the plan's settings: among the release's own objects,
   * kept with it for the next release's plan to build on (spliced-checks.ts).
   */
  plan: (input: Pick<ReleaseIds, 'store_id' | 'catalog_id' | 'release_id'>) =>
    `${planPrefix(input)}plan.json`,
  picks: (input: Pick<ReleaseIds, 'store_id' | 'catalog_id' | 'release_id'>, n: number) =>
    `${planPrefix(input)}picks-${String(n).padStart(4, '0')}.json`,
  ranges: (input: Pick<ReleaseIds, 'store_id' | 'catalog_id' | 'release_id'>) =>
    `${planPrefix(input)}ranges.jsonl`,
  planMeta: (input: Pick<ReleaseIds, 'store_id' | 'catalog_id' | 'release_id'>) =>
    `${planPrefix(input)}meta.json`,
  /** Where a spliced export says what it wrote again (export-splice.ts `SpliceFacts`). */
  splice: (input: Pick<ReleaseExecutionInput, 'store_id' | 'release_id'>) =>
    `${workKeys.prefix(input)}splice.json`,
  partial: (input: Pick<ReleaseExecutionInput, 'store_id' | 'release_id'>, n: number) =>
    `${workKeys.prefix(input)}partial-${String(n).padStart(4, '0')}.json`,
  manifest: (input: Pick<ReleaseExecutionInput, 'store_id' | 'release_id'>) =>
    `${workKeys.prefix(input)}manifest.jsonl`,
  switchFacts: (input: Pick<ReleaseExecutionInput, 'store_id' | 'release_id'>) =>
    `${workKeys.prefix(input)}switch.json`,
};

const planPrefix = (input: Pick<ReleaseIds, 'store_id' | 'catalog_id' | 'release_id'>) =>
  `${releaseObjects.prefix(input.store_id, input.catalog_id, input.release_id)}plan/`;

/** What Derive leaves for the switch. */
interface SwitchFile {
  facts: SwitchFacts;
  layout: ReleaseLayout;
  total_products: number;
  total_nodes: number;
}

/** A release's workflow failed for the caller's document: the issues are the release's errors. */
export class ReleaseInvalidError extends Error {
  override name = 'ReleaseInvalid';
}

const now = () => new Date().toISOString();

async function record(input: ReleaseIds, fields: Partial<PcmRelease>, add?: { written_items: number }) {
  return pcmRepository.updateRelease(
    input.store_id,
    input.catalog_id,
    input.release_id,
    { ...fields, updated_at: now(), heartbeat_at: now() },
    { ...(add ? { add } : {}), unlessState: ['FAILED', 'PUBLISHED'] },
  );
}

/** Records a release FAILED with its issues, deletes nothing (nothing was written yet), frees the catalog. */
async function fail(input: ReleaseExecutionInput, issues: ValidationIssue[], total: number): Promise<void> {
  // Whom the event goes to is read beside the record; the release it renders, once the record is written.
  const integrations = integrationsOf(input.store_id);
  await pcmRepository.updateRelease(
    input.store_id,
    input.catalog_id,
    input.release_id,
    { state: 'FAILED', status: 'failed', errors: issues, errors_total: total, updated_at: now() },
    { unlessState: ['FAILED', 'PUBLISHED'] },
  );
  await announceEnd(input, integrations);
}

/**
 * Once a release's end is recorded (PUBLISHED or FAILED): its `catalog-release.updated` event, to the
 * store's integrations its caller read beside the record (none: a step sent the event already), and the
 * catalog freed for its next release, together.
 */
function announceEnd(
  input: ReleaseExecutionInput,
  integrations: Promise<IntegrationRecord[]> | undefined,
): Promise<void> {
  return settleAll([
    integrations === undefined
      ? Promise.resolve()
      : emitReleaseEvent(
          input.store_id,
          input.catalog_id,
          input.release_id,
          'catalog-release.updated',
          integrations,
        ),
    endRelease(input),
  ]);
}

/**
 * Frees the catalog for its next release, then deletes the release's document unless the catalog still
 * needs it (lib/store/document-objects.ts): in this order, so that a document replaced while the release ran
 * is deleted either here or by the write that replaced it, which keeps it while the release holds the lock.
 * An authored release's document is its export, one of the release's own objects: it goes with the release.
 */
async function endRelease(input: ReleaseExecutionInput): Promise<void> {
  await pcmRepository.releaseLock(input.store_id, input.catalog_id, input.release_id);
  if (!input.export) await reclaimDocument(input.store_id, input.catalog_id, releaseDocument(input));
}

/**
 * An uploaded document copied to the release's document key (server-side, in parts past 5 GB), unless an
 * earlier release copied it; then the upload goes. False, with the release FAILED, when neither is there
 * (an upload is kept a day), or when the application key that asked for the upload was deleted since (its
 * URL may still work for whoever holds it): the upload is then deleted, and nothing is copied.
 */
async function takeInDocument(input: ReleaseExecutionInput, upload: string): Promise<boolean> {
  if ((await objectStore.head(input.document_key)) === undefined) {
    if ((await objectStore.head(upload)) === undefined) {
      const message =
        'the uploaded document is gone before a release took it in (uploads are kept a day): upload it again';
      await fail(input, [{ path: '', rule: 'document', message }], 1);
      return false;
    }
    const release = await pcmRepository.getRelease(input.store_id, input.catalog_id, input.release_id);
    const requestedBy = release?.upload_requested_by;
    if (requestedBy !== undefined && !(await applicationKeyExists(input.store_id, requestedBy))) {
      // The upload goes first: whoever sees the release FAILED finds it gone.
      await objectStore.deletePrefix(upload);
      await fail(input, [{ path: '', rule: 'upload', message: uploadRefused(requestedBy, 'upload') }], 1);
      return false;
    }
    await objectStore.copy(upload, input.document_key);
  }
  await pcmRepository.documentCopied(input.store_id, input.catalog_id, input.document_key);
  await objectStore.deletePrefix(upload).catch(() => undefined);
  return true;
}

/**
 * Export (authored catalogs only): the catalog's hierarchies, the live products attached to them (with their
 * children and components) and their prices, as the release recorded them at creation, written to the
 * release's document key as a document, streamed (lib/catalog/pipeline/export.ts); the steps that follow
 * publish it as any document. A hierarchy or price book deleted since: the release is FAILED.
 */
export async function exportStep(input: ReleaseExecutionInput): Promise<ValidateOutput> {
  const registryRead = startedEarly(catalogRepository.getRegistry(input.store_id));
  // The release's sources and time do not change with its state: read while the state is recorded.
  const [, release] = await Promise.all([
    record(input, { state: 'IN_PROGRESS', percent_completed: 0 }),
    pcmRepository.getRelease(input.store_id, input.catalog_id, input.release_id),
  ]);
  if (release?.authored === undefined) throw new Error(`release ${input.release_id} is not an authored one`);
  const startedAt = Date.now();
  const catalog = { id: input.catalog_id, name: release.name, sources: release.authored };
  const at = new Date(release.created_at);
  try {
    const registry = await registryRead;
    const plan =
      release.full_delta === true
        ? { whole: 'a full export was asked for (export_full_delta)' }
        : await planSplice({
            storeId: input.store_id,
            catalog,
            at,
            baseReleaseId: registry?.catalogs[input.catalog_id]?.release.id,
          }).catch((error: unknown) => {
            // The release before's export went while it was read (that release deleted): a whole export.
            if (!(error instanceof ObjectNotFoundError)) throw error;
            return { whole: "the release before's export was deleted while it was read" };
          });
    // The release records the export, and what was written again (for Validate and Plan to check only
    // that: spliced-checks.ts) is kept, beside the export's trailer. No release is published before its
    // Export has succeeded, and a retried Export records again.
    const written = await writeExport(
      input.document_key,
      { storeId: input.store_id, catalog, at, startedAt },
      plan,
      ({ facts, ...recorded }) =>
        settleAll([
          facts === undefined ? Promise.resolve() : putJson(workKeys.splice(input), facts),
          record(input, { percent_completed: EXPORTED_PERCENT, export: recorded }),
        ]),
    );
    // Validate and Plan learn here whether there are facts to read, and of which release's plan.
    return { ...input, valid: true, splice_base: written.facts?.base ?? null };
  } catch (error) {
    if (!(error instanceof AuthoredSourceError)) throw error;
    await fail(input, [{ path: '', rule: 'authored', message: error.message }], 1);
    return { ...input, valid: false };
  }
}

/** What a spliced export wrote again, when this release's was one (Export said none: not looked for). */
const spliceFactsOf = async (input: ReleaseExecutionInput): Promise<SpliceFacts | undefined> =>
  input.export && input.splice_base !== null
    ? unlessGone(readJson<SpliceFacts>(workKeys.splice(input)))
    : undefined;

/**
 * Whether a step reads the whole document whatever else it finds: a document catalog's release, and an
 * exported one whose Export wrote the whole catalog (it said so: no facts to check or plan by).
 */
const readsWholeDocument = (input: ReleaseExecutionInput) => !input.export || input.splice_base === null;

/** What `read` answers, or undefined when an object it reads is not there. */
async function unlessGone<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof ObjectNotFoundError) return undefined;
    throw error;
  }
}

/** The release before's objects went while a step read them (that release deleted): the whole document is read. */
function goneBefore(error: unknown): { why: string } {
  if (error instanceof ObjectNotFoundError)
    return { why: "the release before's objects went while they were read" };
  throw error;
}

/**
 * A spliced export's plan from the release before's, with every range's picks copied from it (the same
 * families in the same ranges); or why the whole document must be read.
 */
async function planFromBefore(
  input: ReleaseExecutionInput,
  facts: SpliceFacts,
  base: { id: string } | undefined,
  options: Pick<SplicedPlanInput, 'layout' | 'storeCurrencies' | 'meta' | 'times'>,
  keptOf: (releaseId: string) => Promise<KeptPlan | undefined>,
): Promise<Awaited<ReturnType<typeof planSpliced>>> {
  const kept = base?.id === facts.base ? await keptOf(facts.base) : undefined;
  if (kept === undefined) return { why: 'the release before kept no plan to build on' };
  const spliced = await planSpliced({
    ...options,
    facts,
    documentKey: input.document_key,
    baseDocumentKey: exportObjects.document(input.store_id, input.catalog_id, facts.base),
    kept,
    catalogId: input.catalog_id,
  }).catch(goneBefore);
  if (!('plan' in spliced)) return spliced;
  const from = { ...input, release_id: facts.base };
  let next = 0;
  return settleWorkers(PICKS_IN_FLIGHT, async (stop) => {
    while (!stop.failed && next < spliced.plan.ranges.length) {
      const n = next++;
      await objectStore.copy(workKeys.picks(from, n), workKeys.picks(input, n));
    }
  }).then(() => spliced, goneBefore);
}

/** The plan a release kept, when it kept one (spliced-checks.ts). */
async function keptPlan(ids: ReleaseIds, releaseId: string): Promise<KeptPlan | undefined> {
  const at = { ...ids, release_id: releaseId };
  return unlessGone(
    Promise.all([
      readJson<KeptPlanMeta>(workKeys.planMeta(at)),
      readJson<DerivePlan>(workKeys.plan(at)),
      readRanges(workKeys.ranges(at)),
    ]).then(([meta, plan, lines]) => ({ meta, plan, bytes: lines.map((line) => line.bytes) })),
  );
}

/**
 * `read` of the release a splice's facts name, for Validate and Plan: started at once for the release
 * Export named (`splice_base`), and that read answers when the facts name the same release.
 */
function readOfBase<T>(input: ReleaseExecutionInput, read: (releaseId: string) => Promise<T>) {
  const named = input.splice_base;
  const early = typeof named === 'string' ? startedEarly(read(named)) : undefined;
  return (releaseId: string): Promise<T> =>
    early !== undefined && releaseId === named ? early : read(releaseId);
}

/** The version a release's kept plan was made under, when it kept one. */
const keptVersion = async (ids: ReleaseIds, releaseId: string) =>
  (await unlessGone(readJson<KeptPlanMeta>(workKeys.planMeta({ ...ids, release_id: releaseId }))))?.version;

/** Validate: every check of the release validation, on the document as it streams from the bucket. */
export async function validateStep(input: ReleaseExecutionInput): Promise<ValidateOutput> {
  // A document catalog's release with nothing to copy in first, and a whole export, read the whole
  // document whatever else they find: the read goes out while the state is recorded.
  const documentRead =
    readsWholeDocument(input) && input.copy_from === undefined
      ? objectStore.read(input.document_key)
      : undefined;
  return withAskedFirst(documentRead, (document) => validateDocument(input, document));
}

async function validateDocument(
  input: ReleaseExecutionInput,
  document: AsyncIterable<Uint8Array> | undefined,
): Promise<ValidateOutput> {
  // What a spliced export wrote again (an object Export wrote) is read while the state is recorded, and
  // so is the version of the plan the release it names kept, when Export named it.
  const factsRead = startedEarly(spliceFactsOf(input));
  const versionOf = readOfBase(input, (releaseId) => keptVersion(input, releaseId));
  await record(input, { state: 'IN_PROGRESS', percent_completed: 0 });
  if (input.copy_from !== undefined && !(await takeInDocument(input, input.copy_from))) {
    return { ...input, valid: false };
  }
  // A spliced export is checked by what it wrote again when the release before's document was checked
  // under these rules (its kept plan says so: Plan runs only on a valid document).
  const facts = await factsRead;
  if (facts !== undefined) {
    const spliced =
      (await versionOf(facts.base)) === SPLICED_CHECKS_VERSION
        ? await validateSpliced(
            input.document_key,
            exportObjects.document(input.store_id, input.catalog_id, facts.base),
            facts,
          ).catch(goneBefore)
        : { why: "the release before's checks are of another version" };
    if ('families' in spliced) {
      await record(input, {
        percent_completed: VALIDATED_PERCENT,
        validation: { spliced: true, families: spliced.families },
      });
      return { ...input, valid: true };
    }
    await record(input, { validation: { spliced: false, why: spliced.why } });
  }
  let result: Awaited<ReturnType<typeof validateReleaseStream>>;
  try {
    result = await validateReleaseStream(document ?? objectStore.read(input.document_key));
  } catch (error) {
    if (!(error instanceof DocumentReadError)) throw error;
    const issue = { path: '', rule: error.rule, message: error.message };
    await fail(input, [issue], 1);
    return { ...input, valid: false };
  }
  if (!result.ok) {
    await fail(input, result.issues, result.total);
    return { ...input, valid: false };
  }
  await record(input, { percent_completed: VALIDATED_PERCENT });
  return { ...input, valid: true };
}

/**
 * The chunk files of one step's items, CHUNK_ITEMS each, named `name(n)`; `done` answers what it wrote
 * once all is stored, `finish` the same at once with the last file's upload still under way (`stored`),
 * `entries` every manifest part it wrote, in order, and `manifests` the same by chunk key.
 */
function chunkFiles(name: (n: number) => string, publishedAt: string) {
  const chunks: WriteChunk[] = [];
  const parts = new Map<string, Buffer>();
  let lines: string[] = [];
  let entries: Buffer[] = [];
  const flush = async () => {
    if (lines.length === 0) return;
    const key = name(chunks.length);
    const count = lines.length;
    const body = `${lines.join('\n')}\n`;
    const manifest = Buffer.concat(entries);
    lines = [];
    entries = [];
    // Listed at once: what is listed is stored once the flush has answered.
    if (manifest.length > 0) parts.set(key, manifest);
    chunks.push({ key, items: count });
    await Promise.all([
      objectStore.put(key, body, { contentType: 'application/x-ndjson' }),
      manifest.length > 0
        ? objectStore.put(manifestPartKey(key), manifest, { contentType: 'application/octet-stream' })
        : undefined,
    ]);
  };
  return {
    emit: async (item: ReleaseItem) => {
      lines.push(encodeItem(item));
      entries.push(manifestEntry(item, publishedAt));
      if (lines.length >= CHUNK_ITEMS) await flush();
    },
    /** An encoded item as it is, without a manifest entry (the changes a shared release writes). */
    emitLine: async (line: string) => {
      lines.push(line);
      if (lines.length >= CHUNK_ITEMS) await flush();
    },
    done: async () => {
      await flush();
      return chunks;
    },
    finish: () => ({ chunks, stored: startedEarly(flush()) }),
    entries: () => Buffer.concat([...parts.values()]),
    manifests: (): ReadonlyMap<string, Uint8Array> => parts,
  };
}

const putJson = (key: string, value: unknown) =>
  objectStore.put(key, JSON.stringify(value), { contentType: 'application/json' });
const readJson = async <T>(key: string) => JSON.parse(await readText(objectStore.read(key))) as T;

/** Records the release FAILED with a derivation's issues, and stops the workflow (ReleaseInvalid). */
async function invalid(input: ReleaseExecutionInput, error: ReleaseValidationError): Promise<never> {
  await fail(input, error.issues, error.total);
  throw new ReleaseInvalidError(error.message);
}

/**
 * Plan: what every range's derivation needs, and the ranges of products (lib/catalog/derive-stream.ts
 * `planRelease`: one pass over the document, a second only for parents and components the first did not
 * keep), into the bucket: the plan, each range's picks, and the ranges as JSON Lines for the derive map.
 */
export async function planStep(input: ReleaseExecutionInput): Promise<PlanOutput> {
  // A release with no splice's facts to plan by (a document catalog's, or a whole export) reads its whole
  // document: the read goes out beside the step's first reads.
  const documentRead = readsWholeDocument(input) ? objectStore.read(input.document_key) : undefined;
  return withAskedFirst(documentRead, (document) => planDocument(input, document));
}

async function planDocument(
  input: ReleaseExecutionInput,
  documentRead: AskedFirst<Uint8Array> | undefined,
): Promise<PlanOutput> {
  // The read started early serves the first opening; any other reads the document afresh.
  let primed: AsyncIterable<Uint8Array> | undefined = documentRead;
  const openDocument = () => {
    const body = primed ?? objectStore.read(input.document_key);
    primed = undefined;
    return body;
  };
  const registryRead = startedEarly(catalogRepository.getRegistry(input.store_id));
  // What a spliced export wrote again (an object) is read beside them, and so is the plan kept by the
  // release Export named.
  const factsRead = startedEarly(spliceFactsOf(input));
  const keptOf = readOfBase(input, (releaseId) => keptPlan(input, releaseId));
  const [release, store] = await Promise.all([
    pcmRepository.getRelease(input.store_id, input.catalog_id, input.release_id),
    storeRepository.get(input.store_id, true),
  ]);
  if (!release) throw new Error(`release ${input.release_id} is gone`);
  if (!store) throw new Error(`store ${input.store_id} is gone`);
  const layout: ReleaseLayout = {
    id: input.release_id,
    shards: release.shards,
    chunk_size: CHILD_CHUNK_SIZE,
    published_at: release.started_at,
    filter_index: FILTER_INDEX_VERSION,
  };
  // The release the ranges may be taken up from: the one this release will be compared with or built on
  // (the catalog's lock keeps it from changing while this release runs).
  const registry = await registryRead;
  const current = registry?.catalogs[input.catalog_id]?.release;
  const base =
    current && buildsOn(current, layout, release.full_delta === true, Date.now())
      ? { id: current.id, published_at: current.published_at }
      : undefined;
  // Each range's bytes hashed on the way (derive-memo.ts): Derive then reads only the ranges it derives.
  const times = memoTimes(layout.published_at, base);
  const meta: KeptPlanMeta = {
    version: SPLICED_CHECKS_VERSION,
    range_bytes: DERIVE_RANGE_BYTES,
    range_products: getConfig().deriveRangeProducts,
  };
  // A spliced export is planned from the release before's plan when it can be (spliced-checks.ts).
  const facts = await factsRead;
  const spliced =
    facts === undefined
      ? undefined
      : await planFromBefore(
          input,
          facts,
          base,
          { layout, storeCurrencies: store.currencies, meta, times },
          keptOf,
        );
  let plan: DerivePlan;
  let rangeBytes: (n: number) => RangeBytes | undefined;
  let writePicks: (n: number) => Promise<unknown>;
  if (spliced !== undefined && 'plan' in spliced) {
    const { bytes } = spliced;
    plan = spliced.plan;
    rangeBytes = (n) => bytes[n];
    writePicks = async () => undefined;
  } else {
    const hashers: RangeHasher[] = [];
    let planned: Awaited<ReturnType<typeof planRelease>>;
    try {
      planned = await planRelease({
        open: openDocument,
        catalogId: input.catalog_id,
        layout,
        storeCurrencies: store.currencies,
        rangeBytes: meta.range_bytes,
        rangeProducts: meta.range_products,
        onRangeBytes: (n, piece) => {
          hashers[n] ??= new RangeHasher(times);
          hashers[n].update(piece);
        },
      });
    } catch (error) {
      if (!(error instanceof ReleaseValidationError)) throw error;
      return invalid(input, error);
    }
    plan = planned.plan;
    const { picks } = planned;
    rangeBytes = (n) => hashers[n]?.done();
    writePicks = (n) => putJson(workKeys.picks(input, n), picks(n));
  }
  const named = plan.head.catalog.id;
  if (named !== undefined && named !== input.catalog_id) {
    const issue = {
      path: 'catalog.id',
      rule: 'catalog_id',
      message: `the document names catalog ${named}, but it is published as catalog ${input.catalog_id} (leave catalog.id out, or give the catalog's)`,
    };
    return invalid(input, new ReleaseValidationError([issue], 1));
  }
  // The plan, every range's picks (several at once: a million products are a hundred ranges) and the
  // ranges' list the derive map reads once this step has returned.
  const lines = plan.ranges.map((range) => {
    const bytes = rangeBytes(range.n);
    const line: RangeLine = {
      n: range.n,
      ...(base ? { base } : {}),
      ...(bytes ? { bytes } : {}),
      at: { offset: range.offset, length: range.length },
    };
    return `${JSON.stringify(line)}\n`;
  });
  // The release's progress is recorded beside them: the step answers once all have settled, and a write
  // that fails fails the step (Abandon then records the release FAILED over the progress).
  let next = 0;
  await settleAll([
    putJson(workKeys.plan(input), plan),
    putJson(workKeys.planMeta(input), meta),
    settleWorkers(PICKS_IN_FLIGHT, async (stop) => {
      while (!stop.failed && next < plan.ranges.length) await writePicks(next++);
    }),
    objectStore.put(workKeys.ranges(input), lines.join(''), { contentType: 'application/x-ndjson' }),
    record(input, {
      percent_completed: PLANNED_PERCENT,
      ...(spliced === undefined
        ? {}
        : {
            planning:
              'plan' in spliced
                ? { spliced: true, ranges_read: spliced.read }
                : { spliced: false, why: spliced.why },
          }),
    }),
  ]);
  return { ...input, ranges_key: workKeys.ranges(input), ranges: plan.ranges.length };
}

/**
 * What a range's derivation leaves in the bucket for the merge (a range taken up from the release before:
 * one chunk of entries only, `kept`).
 */
interface PartialFile {
  partial: RangePartial;
  chunks: WriteChunk[];
  /**
   * The range's key (derive-memo.ts), when it has one: its items' entries are then kept among the release's
   * objects, where the item manifest names them (share.ts).
   */
  range_key?: string;
}

/**
 * The last plan read, by its key: the local harness derives every range in one process, and a warm
 * Lambda may derive several ranges of one publish (the plan is the same object; its key is the release's).
 */
let lastPlan: { key: string; plan: Promise<DerivePlan> } | undefined;

async function planOf(input: DeriveInput): Promise<DerivePlan> {
  const key = workKeys.plan(input);
  if (lastPlan?.key !== key) {
    // The read itself is kept: ranges of one publish taken up at once share it (one parse, one copy).
    const plan = readJson<DerivePlan>(key);
    lastPlan = { key, plan };
    plan.catch(() => {
      if (lastPlan?.plan === plan) lastPlan = undefined;
    });
  }
  return lastPlan.plan;
}

/** A range's derivation: its plan, picks and place, and its chunk files' writer. */
async function rangeOf(input: DeriveInput) {
  // A range's picks are read beside the plan (ranges are numbered by their place in the plan), and so are
  // its bytes when it is derived whatever they hold (no base to take it up from) and its line says where.
  const picksRead = startedEarly(readJson<RangePicks>(workKeys.picks(input, input.range.n)));
  const at = input.range.base === undefined ? input.range.at : undefined;
  const rangeRead = (offset: number, length: number) =>
    readBytes(objectStore.read(input.document_key, { start: offset, end: offset + length - 1 }));
  const early = at === undefined ? undefined : startedEarly(rangeRead(at.offset, at.length));
  const plan = await planOf(input);
  const range = plan.ranges[input.range.n];
  if (!range) throw new Error(`the plan has no range ${input.range.n}`);
  if (range.n !== input.range.n) throw new Error(`the plan's range ${input.range.n} is numbered ${range.n}`);
  const picks = await picksRead;
  // Read once, when asked (a range is at most DERIVE_RANGE_BYTES): hashed for its key unless Plan hashed
  // it, then derived when not taken up. The read started early serves when it is the plan's range.
  let read: Promise<Uint8Array> | undefined;
  const bytes = () => {
    read ??=
      early !== undefined && at?.offset === range.offset && at.length === range.length
        ? early
        : rangeRead(range.offset, range.length);
    return read;
  };
  const derive = async () => {
    const files = chunkFiles(
      (n) => workKeys.chunk(input, `r${String(range.n).padStart(4, '0')}`, n),
      plan.layout.published_at,
    );
    const source = streamOf(await bytes());
    const partial = await deriveRange({ plan, picks, range, source, emit: files.emit });
    // The last chunk file's upload goes on beside what the caller writes next (`stored`).
    const { chunks, stored } = files.finish();
    return { partial, chunks, entries: files.entries(), stored };
  };
  return { plan, range, picks, bytes, derive };
}

/**
 * Derive (one item of the derive map): one range's products, read by a ranged GET, derived into chunk
 * files; what crosses the range's edges, and the chunks' list, into its partial for the merge. A range the
 * release it builds on derived from the same inputs is taken up instead (derive-memo.ts); every range is
 * kept for the releases after this one.
 */
export async function deriveStep(
  input: DeriveInput,
  options: DeriveStepOptions = {},
): Promise<{ items: number; kept?: true }> {
  const derivation = options.derivation ?? ((work) => work());
  // A range with no release to take it up from is derived: it waits its turn before it reads anything.
  if (input.range.base === undefined) return derivation(() => deriveOrTakeUp(input, (work) => work()));
  return deriveOrTakeUp(input, derivation);
}

/** How a process runs range derivations: `derivation` runs one (the local harness: one at a time). */
export interface DeriveStepOptions {
  derivation?: <T>(work: () => Promise<T>) => Promise<T>;
}

async function deriveOrTakeUp(
  input: DeriveInput,
  derivation: NonNullable<DeriveStepOptions['derivation']>,
): Promise<{ items: number; kept?: true }> {
  const { plan, range, picks, bytes, derive } = await rangeOf(input);
  const publishedAt = plan.layout.published_at;
  const base = input.range.base;
  const times = memoTimes(publishedAt, base);
  const hashed = input.range.bytes ?? (await readRangeBytes(streamOf(await bytes()), times));
  const key = rangeKey(plan, picks, range, hashed, times);
  const taken = key !== undefined && base !== undefined && (await takeUpRange(input, base, key, publishedAt));
  if (taken) {
    const file: PartialFile = { partial: taken.partial, chunks: [taken.chunk], range_key: key };
    await putJson(workKeys.partial(input, range.n), file);
    return { items: taken.partial.items, kept: true };
  }
  const { partial, chunks, entries, stored } = await derivation(derive);
  const file: PartialFile = { partial, chunks, ...(key === undefined ? {} : { range_key: key }) };
  // The partial and the kept range go beside the last chunk file's upload: the merge that reads the
  // partial runs only once this step has succeeded, and a later release takes the range up only once
  // this one is published.
  await settleAll([
    stored,
    key === undefined ? Promise.resolve() : keepRange(input, key, entries, partial, publishedAt),
    putJson(workKeys.partial(input, range.n), file),
  ]);
  return { items: partial.items };
}

/**
 * Merge: the ranges' partials joined (lib/catalog/derive-stream.ts `mergeRelease`) into the items they
 * complete and the rest of the release's items, in chunk files; then the manifest of every chunk (JSON
 * Lines) that the write map reads, and the facts the switch needs.
 */
export async function mergeStep(input: ReleaseExecutionInput): Promise<DeriveOutput> {
  // The release needs nothing the merge reads: read beside it.
  const releaseRead = startedEarly(
    pcmRepository.getRelease(input.store_id, input.catalog_id, input.release_id),
  );
  // Ranges are numbered by their place in the plan, so the first range's partial is read beside the plan
  // (a plan of no ranges has none: that read's ObjectNotFound is dropped unused).
  const firstPartial = startedEarly(readJson<PartialFile>(workKeys.partial(input, 0)));
  // So is the store (its default locale), which the delta file opens with after the comparison.
  const storeRead = startedEarly(storeRepository.get(input.store_id, true));
  const plan = await readJson<DerivePlan>(workKeys.plan(input));
  // Each range's chunks, then the merge's.
  const rangeChunks: WriteChunk[][] = [];
  const rangeKeys: (string | undefined)[] = [];
  const files = chunkFiles((n) => workKeys.chunk(input, 'merge', n), plan.layout.published_at);
  let derived: Awaited<ReturnType<typeof mergeRelease>>;
  try {
    derived = await mergeRelease({
      plan,
      partials: (async function* () {
        // A few read ahead: a million products are a hundred ranges, each partial one round trip.
        const partial = readAhead(plan.ranges.length, PARTIALS_READ_AHEAD, (n) => {
          const range = (plan.ranges[n] as DeriveRange).n;
          return range === 0 ? firstPartial : readJson<PartialFile>(workKeys.partial(input, range));
        });
        for (const n of plan.ranges.keys()) {
          const file = await partial(n);
          rangeChunks.push(file.chunks);
          rangeKeys.push(file.range_key);
          yield file.partial;
        }
      })(),
      allPicks: () =>
        Promise.all(plan.ranges.map((range) => readJson<RangePicks>(workKeys.picks(input, range.n)))),
      open: () => objectStore.read(input.document_key),
      emit: files.emit,
    });
  } catch (error) {
    if (!(error instanceof ReleaseValidationError)) throw error;
    return invalid(input, error);
  }
  // The registry names the release this one is compared with, which the comparison protects only once
  // read: read as late as before (a read long before could name a release reclaimed meanwhile), beside
  // the merge's last chunk files.
  const registryRead = startedEarly(catalogRepository.getRegistry(input.store_id));
  const mergeChunks = await files.done();
  const chunks = [...rangeChunks.flat(), ...mergeChunks];
  // Kept ranges derived again when their item lines are read (each is one chunk of entries): by the
  // chunk's index, the range's chunk files.
  const rangeAt = new Map<number, number>();
  for (const [n, list] of rangeChunks.entries()) {
    const at = rangeChunks.slice(0, n).reduce((sum, before) => sum + before.length, 0);
    if (list.length === 1 && list[0]?.kept) rangeAt.set(at, n);
  }
  let derivedAgain = 0;
  const materialize = async (which: ReadonlySet<number>) => {
    const replaced = new Map<number, WriteChunk[]>();
    for (const at of which) {
      const n = rangeAt.get(at);
      if (n === undefined) throw new Error(`chunk ${at} is no kept range`);
      const { derive } = await rangeOf({ ...input, range: { n } });
      const derivedRange = await derive();
      // Its chunk files are read next: stored first.
      await derivedRange.stored;
      replaced.set(at, derivedRange.chunks);
      derivedAgain += 1;
    }
    return replaced;
  };
  // Compared with the catalog's current release: what differs is written, the rest is shared.
  const [release, registry] = await Promise.all([releaseRead, registryRead]);
  if (!release) throw new Error(`release ${input.release_id} is gone`);
  const changes = chunkFiles((n) => workKeys.chunk(input, 'changes', n), plan.layout.published_at);
  const shared = await planSharing({
    ids: input,
    layout: plan.layout,
    chunks,
    ranges: rangeChunks.map((list, n) => {
      const key = rangeKeys[n];
      return key === undefined
        ? { chunks: list.length }
        : { chunks: list.length, key, manifest: memoObjects.manifest(input, input.release_id, key) };
    }),
    materialize,
    // The merge's own chunks' manifest parts are still in memory: not read back.
    held: files.manifests(),
    askedFullDelta: release.full_delta === true,
    ...(release.authored ? { authored: release.authored } : {}),
    base: registry?.catalogs[input.catalog_id]?.release,
    protect: (layers) => record(input, { layers }).then(() => undefined),
    emitLine: changes.emitLine,
    doneLines: changes.done,
  });
  const layout: ReleaseLayout = { ...plan.layout, layers: shared.layers };
  // The delta file (what changed against the release before, the whole catalog when full), the manifest
  // the write map reads and the switch's facts: three objects, written side by side. The release records
  // the merge (its items' total first of all, before any Write step: see `mayHoldItems`) once the delta
  // file's lines are counted, beside the file's upload; its link is given only once it is PUBLISHED, which
  // no release is before this step has succeeded, so the record may go first.
  const manifestKey = workKeys.manifest(input);
  const facts: SwitchFile = {
    facts: switchFacts(derived.head),
    layout,
    total_products: derived.counts.total,
    total_nodes: derived.totalNodes,
  };
  const written = {
    delta: writeDeltaFile({
      storeId: input.store_id,
      catalogId: input.catalog_id,
      releaseId: input.release_id,
      full: shared.full_delta,
      changes: deltaChanges(shared.changes()),
      store: storeRead,
      counted: (delta) =>
        record(input, {
          percent_completed: DERIVED_PERCENT,
          total_items: shared.items,
          release_items: derived.items,
          written_items: 0,
          total_products: derived.counts.total,
          total_nodes: derived.totalNodes,
          counts: derived.counts,
          layers: shared.layers,
          derivation: { ranges: plan.ranges.length, kept: rangeAt.size - derivedAgain },
          is_full_publish: shared.full_publish,
          delta: { key: delta.key, full: shared.full_delta, lines: delta.lines },
          sharing: {
            full_delta: shared.full_delta,
            changed_products: shared.changed_products,
            removed_products: shared.removed_products,
            ...(shared.whole === undefined ? {} : { whole: shared.whole }),
          },
        }),
    }),
    manifest: objectStore.put(
      manifestKey,
      shared.chunks.map((chunk) => `${JSON.stringify(chunk)}\n`).join(''),
      {
        contentType: 'application/x-ndjson',
      },
    ),
    facts: putJson(workKeys.switchFacts(input), facts),
    // The manifest's list of parts, sent once its merged part had answered.
    listed: shared.listed,
  };
  await settleAll(Object.values(written));
  return { ...input, manifest_key: manifestKey, chunks: shared.chunks.length, items: shared.items };
}

/** The comparison's changes as the delta file takes them: products from their items' lines. */
async function* deltaChanges(changes: AsyncIterable<ShareChange>): AsyncGenerator<DeltaChange> {
  for await (const change of changes) {
    if (change.type === 'delete') yield change;
    else {
      const item = decodeItem(change.line) as { d: string };
      yield { type: 'createupdate', stored: JSON.parse(item.d) as StoredProduct };
    }
  }
}

/** The ranges a plan's ranges list holds. */
export async function readRanges(key: string): Promise<RangeLine[]> {
  const ranges: RangeLine[] = [];
  for await (const line of readLines(objectStore.read(key))) ranges.push(JSON.parse(line) as RangeLine);
  return ranges;
}

/** The chunks a manifest lists. */
export async function readManifest(key: string): Promise<WriteChunk[]> {
  const chunks: WriteChunk[] = [];
  for await (const line of readLines(objectStore.read(key))) chunks.push(JSON.parse(line) as WriteChunk);
  return chunks;
}

/** Write: one chunk file's items, batched and retried; then the release's progress. */
export async function writeStep(input: WriteInput): Promise<{ written: number }> {
  const items: Parameters<typeof catalogRepository.writeItems>[0] = [];
  for await (const line of readLines(objectStore.read(input.chunk.key))) {
    items.push(decodeItem(line) as (typeof items)[number]);
  }
  await catalogRepository.writeItems(items, { concurrency: WRITER_BATCHES_IN_FLIGHT });
  // The progress is the share of the items written (progressOf): each Write adds its own, one request.
  await record(input, {}, { written_items: items.length });
  return { written: items.length };
}

/** Switch: the release becomes the catalog's current one in one transaction; older releases go. */
export async function switchStep(input: ReleaseExecutionInput): Promise<{ published: true }> {
  // The registry the switch conditions on is read beside the facts, not after them.
  const registryRead = startedEarly(catalogRepository.getRegistry(input.store_id));
  const file = JSON.parse(await readText(objectStore.read(workKeys.switchFacts(input)))) as SwitchFile;
  // What the switch makes unneeded is listed beside its transaction: the release's work files, deleted
  // once its PUBLISHED record is written (a retried switch reads its facts from them), and the objects of
  // the catalog's releases, swept once the cleanup after the switch has deleted their markers (the listing
  // only needs to come before the markers' read). A switch that does not happen deletes nothing; the step
  // answers once these have settled either way, so a Lambda freezes nothing in flight.
  let switched!: (underWay: SwitchUnderWay) => void;
  let notSwitched!: (error: unknown) => void;
  const outcome = new Promise<SwitchUnderWay>((resolve, reject) => {
    switched = resolve;
    notSwitched = reject;
  });
  const unneeded = settleAll([
    objectStore
      .deletePrefix(workKeys.prefix(input), { after: startedEarly(outcome.then((o) => o.recorded)) })
      .catch(() => undefined),
    sweepReleaseObjects(input.store_id, input.catalog_id, startedEarly(outcome.then((o) => o.cleanup))).catch(
      () => undefined,
    ),
  ]);
  let published: SwitchUnderWay;
  try {
    published = await publish(input, file, registryRead);
  } catch (error) {
    notSwitched(error);
    await unneeded;
    throw error;
  }
  switched(published);
  await settleAll([published.announced, published.cleanup, unneeded]);
  return { published: true };
}

/** What a switch that happened has under way: its PUBLISHED record, the event after it, the cleanup. */
interface SwitchUnderWay {
  recorded: Promise<unknown>;
  announced: Promise<unknown>;
  cleanup: Promise<unknown>;
}

/**
 * Switch's own work: the switch's transaction from the facts Merge wrote, then, started together, the
 * release's PUBLISHED record (its event and the catalog's lock follow it) and the cleanup of older releases
 * (it needs only the switch). Answers them unsettled: the step waits for the longest chain, not the sum.
 */
async function publish(
  input: ReleaseExecutionInput,
  file: SwitchFile,
  registryRead: Promise<CatalogRegistry | undefined>,
): Promise<SwitchUnderWay> {
  let registry: Awaited<ReturnType<typeof activate>>;
  try {
    registry = await activate(
      input.store_id,
      file.facts,
      input.catalog_id,
      file.layout,
      () => new Date(),
      registryRead,
    );
  } catch (error) {
    if (!(error instanceof RegistryTooLargeError)) throw error;
    // The release's error says why (Abandon keeps it), not DynamoDB's bare ValidationException.
    return invalid(
      input,
      new ReleaseValidationError([{ path: 'rules', rule: 'registry_size', message: error.message }], 1),
    );
  }
  const at = now();
  // A switch whose response was lost left no registry here: read the one it wrote.
  registry ??= await catalogRepository.getRegistry(input.store_id);
  const cleanup = cleanupReleases(input.store_id, { catalogId: input.catalog_id }).catch(() => undefined);
  // The store's integrations (whom the event goes to) are read beside the record too; the event itself,
  // the release as it is now, is read once the record is written.
  const integrations = integrationsOf(input.store_id);
  const recorded = startedEarly(
    pcmRepository.updateRelease(input.store_id, input.catalog_id, input.release_id, {
      state: 'PUBLISHED',
      percent_completed: 100,
      published_at: at,
      updated_at: at,
      warnings: selectionWarnings(registry, input.catalog_id, new Date(at)),
    }),
  );
  return {
    recorded,
    cleanup,
    announced: startedEarly(recorded.then(() => announceEnd(input, integrations))),
  };
}

/**
 * Abandon (the failure branch): fences the release so no switch can happen, deletes what it wrote, and
 * records it FAILED (keeping the validation issues when a step recorded them). The previous release keeps
 * serving throughout. A switch that happened although its step then failed counts as published.
 */
export async function abandonStep(input: AbandonInput): Promise<{ state: 'FAILED' | 'PUBLISHED' }> {
  // The fence needs only the release's ids, and changes nothing of its record but its status: the two go
  // together. The release's objects are listed meanwhile, and deleted once the fence holds on a release
  // that is there and no switch published.
  const fenced = catalogRepository.abandonRelease(input);
  const releaseRead = pcmRepository.getRelease(input.store_id, input.catalog_id, input.release_id);
  const unpublished = fenced.then((status) => {
    if (status === undefined || status === 'complete') throw new Error(`the release is ${status ?? 'gone'}`);
  });
  const objects = objectStore
    .deletePrefix(releaseObjects.prefix(input.store_id, input.catalog_id, input.release_id), {
      after: unpublished,
    })
    .then(() => undefined);
  try {
    await settleAll([releaseRead, fenced]);
  } catch (error) {
    await objects.catch(() => undefined);
    throw error;
  }
  const [release, status] = [await releaseRead, await fenced];
  if (!release || status === 'complete') await objects.catch(() => undefined);
  if (!release) return { state: 'FAILED' };
  if (status === 'complete') {
    const integrations = integrationsOf(input.store_id);
    await pcmRepository.updateRelease(input.store_id, input.catalog_id, input.release_id, {
      state: 'PUBLISHED',
      percent_completed: 100,
      published_at: release.published_at ?? now(),
      updated_at: now(),
    });
    await announceEnd(input, integrations);
    return { state: 'PUBLISHED' };
  }
  // Items are written only by Write steps, which start after Merge recorded the release's total: a release
  // without one has none to query for (a release has 64 shards to query).
  await settleAll([
    mayHoldItems(release) ? catalogRepository.deleteReleaseItems(release) : Promise.resolve(),
    objects,
    deleteDeltaFile(input.store_id, input.catalog_id, input.release_id),
  ]);
  const recorded = release.errors !== undefined && release.errors.length > 0;
  const cause = input.error?.Error ?? 'Error';
  // A release a step recorded FAILED (`fail`) had its event then; another's integrations are read beside
  // its FAILED record.
  const integrations = release.state === 'FAILED' ? undefined : integrationsOf(input.store_id);
  const failed = pcmRepository.updateRelease(input.store_id, input.catalog_id, input.release_id, {
    state: 'FAILED',
    status: 'failed',
    updated_at: now(),
    ...(recorded
      ? {}
      : {
          errors: [
            {
              path: '',
              rule: 'publish',
              message: `the release could not be published (${cause}); publish again`,
            },
          ],
          errors_total: 1,
        }),
  });
  // After the FAILED record: the event, the lock, and the work files' deletion (listed meanwhile).
  await settleAll([
    failed.then(() => announceEnd(input, integrations)),
    objectStore.deletePrefix(workKeys.prefix(input), { after: failed }).catch(() => undefined),
  ]);
  return { state: 'FAILED' };
}
