import type { TableRole } from '../../store/schema';

/** How a step uses a table (the route table's `TableAccess`). */
type TableAccess = 'read' | 'readwrite';

/**
 * The publishing workflow (docs/publishing.md): one table for the CDK stack, which
 * makes a Step Functions state machine and one Lambda per step from it, and for the local harness, which
 * runs the same step handlers in the same order with the same chunking and concurrency
 * (lib/catalog/pipeline/run-local.ts). `functions/workflow.ts` re-exports it for the stack.
 *
 *   (authored catalogs: Export -> (failed: ReleaseInvalid) ->) Validate -> (invalid: ReleaseInvalid) -> Plan -> Derive (Distributed Map over the ranges) -> Merge
 *     -> Write (Distributed Map over the chunk manifest) -> Switch
 *   any error in a step -> Abandon -> ReleaseFailed (or ReleasePublished when the switch had happened)
 */
export interface WorkflowStepDefinition {
  /** The tables the step touches and how (least privilege, as for the API functions). */
  tables: Partial<Record<TableRole, TableAccess>>;
  /** What it does with the documents bucket. */
  bucket: 'read' | 'readwrite';
  /** Lambda memory, MB. */
  memoryMb: number;
  /** Lambda timeout, seconds. */
  timeoutSeconds: number;
  /** `emit`: it records a release PUBLISHED or FAILED, which emits `catalog-release.updated` (docs/webhooks.md). */
  integrations?: 'emit';
  description: string;
}

export const WORKFLOW_STEPS = {
  'release-export': {
    // products: the authored catalog (hierarchies, nodes, products, prices) and the release; keys: the
    // store's currencies.
    tables: { products: 'readwrite', keys: 'read' },
    integrations: 'emit',
    bucket: 'readwrite',
    // One full vCPU (Lambda gives one at 1,769 MB): the step parses and writes every product of the
    // catalog in one process, about 30 s of CPU for a million; its memory holds the attached products' ids
    // and nodes (about 150 bytes a product) and the pages read ahead (PAGES_IN_FLIGHT).
    memoryMb: 1769,
    timeoutSeconds: 900,
    description:
      "Publishing workflow: writes an authored catalog's hierarchies, products and prices out as a document",
  },
  'release-validate': {
    // keys: read: whether the application key that asked for an upload it copies in still exists.
    tables: { products: 'readwrite', keys: 'read' },
    // readwrite: it copies an uploaded document to its key first (and deletes the upload).
    integrations: 'emit',
    bucket: 'readwrite',
    memoryMb: 1024,
    timeoutSeconds: 900,
    description: 'Publishing workflow: validates the release document as it streams from S3',
  },
  'release-plan': {
    // keys: read: the store's currencies, when the document gives none (its items' prices need them).
    tables: { products: 'readwrite', keys: 'read' },
    integrations: 'emit',
    bucket: 'readwrite',
    memoryMb: 3008,
    timeoutSeconds: 900,
    description:
      "Publishing workflow: plans the release's derivation (parents, families, ranges of products)",
  },
  'release-derive': {
    tables: {},
    bucket: 'readwrite',
    memoryMb: 2048,
    timeoutSeconds: 900,
    description: "Publishing workflow: derives one range of the release's products into chunk files",
  },
  'release-merge': {
    // keys: read: the store's default locale, which the delta file's products are rendered in.
    tables: { products: 'readwrite', keys: 'read' },
    integrations: 'emit',
    bucket: 'readwrite',
    memoryMb: 1024,
    timeoutSeconds: 900,
    description:
      "Publishing workflow: joins the ranges' edges, derives the rest and writes the chunk manifest",
  },
  'release-write': {
    tables: { products: 'readwrite' },
    bucket: 'read',
    memoryMb: 512,
    timeoutSeconds: 300,
    description: 'Publishing workflow: writes one chunk of the release items with batched, retried writes',
  },
  'release-switch': {
    // keys: readwrite: a document's `currencies` become the store's in the switch's transaction (an
    // authored catalog's release carries the store's /v2/currencies, when it has any).
    tables: { products: 'readwrite', keys: 'readwrite' },
    integrations: 'emit',
    bucket: 'readwrite',
    memoryMb: 512,
    timeoutSeconds: 300,
    description: 'Publishing workflow: makes the release current and removes releases past the kept three',
  },
  'release-abandon': {
    tables: { products: 'readwrite' },
    integrations: 'emit',
    bucket: 'readwrite',
    memoryMb: 512,
    timeoutSeconds: 900,
    description: 'Publishing workflow: marks a failed release FAILED and deletes what it wrote',
  },
} as const satisfies Record<string, WorkflowStepDefinition>;

export type WorkflowStepName = keyof typeof WORKFLOW_STEPS;

/**
 * Range derivations at once in the local harness: one. Its ranges share one process's heap and core (the
 * API's, with its object store), so a second at once gains nothing but a second plan in memory: at a
 * million products, two at once took the API process to 421 MB of RSS under its 320 MB heap limit.
 */
export const DERIVE_CONCURRENCY = 1;
/**
 * Ranges in flight at once in the local harness: a range the release before derived from the same inputs
 * is taken up (derive-memo.ts), a few object-store round trips, about 50 ms; four overlap them. Only
 * DERIVE_CONCURRENCY of them derive at once: a range waiting for its turn holds only its bytes.
 */
export const RANGES_AT_ONCE = 4;
/**
 * Range derivations at once in AWS: the derive Distributed Map's MaxConcurrency. Each range is about
 * DERIVE_RANGE_PRODUCTS (10,000) products or DERIVE_RANGE_BYTES (32 MiB), a million 1 KB products about 100
 * ranges: two waves of about a second each (and a publish that changes few products derives few of them).
 */
export const AWS_DERIVE_CONCURRENCY = 64;
/** Items a chunk file holds: one writer invocation's work (DynamoDB batches of 25 in flight, below). */
export const CHUNK_ITEMS = 5000;
/** Writer invocations at once in the local harness's pool (one machine, one DynamoDB Local). */
export const WRITE_CONCURRENCY = 4;
/**
 * Writer invocations at once in AWS: the Distributed Map's MaxConcurrency (infra/publishing.ts). The ceiling is
 * the products table, not Lambda: a release's items spread over RELEASE_SHARDS (64) partitions of at most
 * 1,000 WCU/s each, and an on-demand table serves 4,000 WCU/s new, 40,000 warmed (docs/publishing.md, the
 * arithmetic: 1.53 WCU an item). 16 writers with WRITER_BATCHES_IN_FLIGHT batches of 25 each keep 6,400 items
 * in flight, about 40,000 items/s at 150 ms a batch; more would only be throttled (and retried), and would
 * take more of the account's 1,000 concurrent Lambda executions from the API.
 */
export const AWS_WRITE_CONCURRENCY = 16;
/** BatchWriteItem calls in flight inside one writer. */
export const WRITER_BATCHES_IN_FLIGHT = 16;

/** What every step is told of the release: its ids and its document. */
export interface ReleaseIds {
  store_id: string;
  catalog_id: string;
  release_id: string;
  /** The object key of the document the release publishes (immutable). */
  document_key: string;
}

/** The execution's input, made by `POST /pcm/catalogs/{id}/releases` (and the CLI). */
export interface ReleaseExecutionInput extends ReleaseIds {
  /**
   * An upload Validate copies to `document_key` first (when nothing is there yet): the catalog's document
   * was uploaded, and a gigabyte's copy takes longer than the API's request may.
   */
  copy_from?: string;
  /**
   * An authored catalog's release: Export writes its hierarchies, products and prices to `document_key`
   * first. Always present (the state machine's Choice reads it, and a missing path is an error there).
   */
  export: boolean;
  /**
   * What Export said of the facts a spliced export keeps (`SpliceFacts`, read by Validate and Plan): the
   * release it spliced from when it wrote them, null when it wrote the whole catalog and no facts. Validate
   * and Plan then read the kept plan of that release, or the whole document, beside their first reads
   * instead of after the facts. Absent (an execution whose Export did not say, or a document catalog's):
   * the facts are looked for first.
   */
  splice_base?: string | null;
}

/** Where a release's own objects live (lib/catalog/pipeline/share.ts): kept and deleted with the release. */
export const releaseObjectsPrefix = (storeId: string, catalogId: string, releaseId: string) =>
  `releases/${storeId}/${catalogId}/${releaseId}/`;

/**
 * Where Export writes an authored catalog's release out as a document, with its index and trailer beside
 * it: among the release's own objects, so that the release keeps its export, for the next release's to
 * build on, without copying it (lib/catalog/pipeline/export-splice.ts `exportObjects`).
 */
export const authoredDocumentKey = (input: Pick<ReleaseIds, 'store_id' | 'catalog_id' | 'release_id'>) =>
  `${releaseObjectsPrefix(input.store_id, input.catalog_id, input.release_id)}authored.json`;

/** What Validate answers: the input, and whether the document is valid (it records FAILED itself). */
export interface ValidateOutput extends ReleaseExecutionInput {
  valid: boolean;
}

/** What Plan answers: where the ranges are listed (JSON Lines of {@link RangeLine}) and how many. */
export interface PlanOutput extends ReleaseExecutionInput {
  ranges_key: string;
  ranges: number;
}

/** One line of the ranges list: a range of the plan (the release's `plan/plan.json` has the rest). */
export interface RangeLine {
  n: number;
  /** The release whose kept ranges this one may take up (derive-memo.ts), and its publish time; absent: derive every range. */
  base?: { id: string; published_at: string };
  /**
   * What the range's key takes of its bytes (derive-memo.ts), as Plan read them with the publish times of
   * this release and `base`: a range taken up is then not read. Absent: Derive reads and hashes them.
   */
  bytes?: { digest: string; holdsTime: boolean; latest?: string | null };
  /**
   * Where the range's bytes are in the document (the plan's offset and length): a range without a base,
   * always derived, reads them beside its plan and picks. Absent (a plan written before it): after them.
   */
  at?: { offset: number; length: number };
}

/** The derive Distributed Map's item: the execution's ids and one range. */
export interface DeriveInput extends ReleaseIds {
  range: RangeLine;
}

/** What Merge answers: where the chunk manifest is (JSON Lines of {@link WriteChunk}) and how much is in it. */
export interface DeriveOutput extends ReleaseExecutionInput {
  manifest_key: string;
  chunks: number;
  items: number;
}

/** One line of the manifest: a chunk file of the release's items. */
export interface WriteChunk {
  key: string;
  items: number;
  /**
   * A range the release before derived and this one took up (derive-memo.ts): its manifest part is at
   * `manifestPartKey(key)`, but there is no file of item lines at `key`. Never in the write map's manifest.
   */
  kept?: true;
}

/** The Distributed Map's item, as its ItemSelector builds it: the execution's ids and one manifest line. */
export interface WriteInput extends ReleaseIds {
  chunk: WriteChunk;
}

/** What the Abandon step gets: the execution's input and the error the Catch caught. */
export interface AbandonInput extends ReleaseExecutionInput {
  error?: { Error?: string; Cause?: string };
}

/**
 * Why an upload is not taken in as a catalog's document: the application key that asked for its URL was
 * deleted (the release's creation answers it as a 409 for a `pending upload`, Validate as the release's error).
 */
export function uploadRefused(keyId: string, what: 'pending upload' | 'upload'): string {
  return `the ${what}'s URL was issued to application key ${keyId}, which was deleted since: the upload is refused and discarded; upload the document again`;
}
