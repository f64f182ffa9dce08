import './quiet-sdk';
import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ReleaseCounts } from '../lib/catalog/derive';
import { DocumentReadError } from '../lib/catalog/document-stream';
import { generateReleaseText, MAX_PRODUCT_BYTES } from '../lib/catalog/generator';
import { sweepReleaseObjects } from '../lib/catalog/pipeline/share';
import { registerLocalWorkflow } from '../lib/catalog/pipeline/start';
import type { ReleaseExecutionInput } from '../lib/catalog/pipeline/workflow';
import { checkReleaseStream, cleanupReleases, StoreNotFoundError } from '../lib/catalog/publisher';
import { ReleaseValidationError } from '../lib/catalog/validate-release';
import { validateReleaseStream } from '../lib/catalog/validate-stream';
import { getConfig, resetConfig } from '../lib/config/index';
import {
  CatalogBusy,
  type DocumentCatalog,
  DocumentNotStored,
  failedForDocument,
  interruptRelease,
  type PublishOutcome,
  publishDocument,
  readDocumentCatalog,
} from '../lib/pcm/cli-publish';
import { releaseState } from '../lib/pcm/render';
import { resetDocumentClient } from '../lib/store/client';
import { objectStore } from '../lib/store/object-store';
import type { PcmRelease } from '../lib/store/pcm-repository';
import { ensureTables } from '../lib/store/tables';
import {
  DATABASE_HELP,
  intOption,
  objectStoreUnreachableMessage,
  parseCli,
  usageError,
  useToolDatabase,
} from './cli';
import { startLocalDeliveries } from './deliveries-local';
import type { LocalDeliveryQueue } from './delivery-queue';
import { count, databaseUnreachableMessage } from './messages';
import { runWorkflowInChild } from './workflow-process';

const TOOL = 'catalog';
const USAGE = `Usage:
  npm run catalog -- validate --file release.json [--json]
      Checks a release document as publish does (catalog/release.schema.json, then references, uniqueness,
      the node tree, parents and children, item and response sizes), without a database: for your own
      CI. Reads the document as a stream, one product at a time: any size takes little memory. Exit 0
      when valid, 1 with every error (the first 100), 2 for a usage error or a file that is not JSON
      (with the line and column). --stream, which chose the streamed reading before it was the only one,
      is still accepted and changes nothing.
  npm run catalog -- publish --store STORE_ID --file release.json [--json]
      Publishes the document as the API does (POST /pcm/catalogs/{id}/releases), through the same workflow:
      streams it into the documents bucket as the catalog's document (the catalog of its catalog.id, else
      the store's only catalog of its name, else a new one), creates a release and follows it until it is
      PUBLISHED (the catalog's current release) or FAILED (every validation error at once, nothing
      published). The release shows in GET /pcm/catalogs/{id}/releases. Warns on stderr when the catalog can
      never be selected by a shopper (see docs/filtering.md, "How the catalog is chosen"). Interrupted
      (Ctrl-C), it fails the release at once and says so: \`cleanup\` removes what it wrote.
  npm run catalog -- generate --children N [--drafts N] [--parents N] [--product-bytes N] [--seed N]
                              [--out file.json]
      Writes a large valid release document (to stdout without --out), product by product: any size takes
      little memory. --children and --drafts are per parent: the document holds
      parents x (children + drafts + 1) + 1 products (one standalone product), and says how many on
      stderr once written; --children 30000 --parents 30 is 900,031 products (about 347 MB).
      --product-bytes fills each product's description so it takes at least N bytes
      (up to ${MAX_PRODUCT_BYTES}; real products weigh several KB, bare generated ones about 400 bytes).
  npm run catalog -- cleanup --store STORE_ID [--now] [--json]
      Deletes replaced and abandoned releases of the store's catalogs (publish does this too): a release
      replaced over a minute ago, one whose publish stopped over 5 minutes ago. --now takes both at once
      (run it only when no publish of the store is running: it removes a release being written too).

--json prints one JSON object on stdout; run it as \`npm run -s catalog -- ... --json\` (npm's -s keeps
its own banner off stdout). Exit status: 0 done, 1 invalid document, failed release, unknown store or
DynamoDB error, 2 wrong arguments or an unreadable file, 3 the catalog is being published already (by the
API or another publish): publish again once that release is PUBLISHED or FAILED.

${DATABASE_HELP}`;

const OPTIONS = {
  store: { type: 'string' },
  file: { type: 'string' },
  json: { type: 'boolean' },
  children: { type: 'string' },
  drafts: { type: 'string' },
  parents: { type: 'string' },
  seed: { type: 'string' },
  'product-bytes': { type: 'string' },
  out: { type: 'string' },
  now: { type: 'boolean' },
  stream: { type: 'boolean' },
} as const;

/** Which options each command takes: any other is a usage error. */
const COMMAND_OPTIONS: Record<string, readonly (keyof typeof OPTIONS)[]> = {
  validate: ['file', 'json', 'stream'],
  publish: ['store', 'file', 'json'],
  cleanup: ['store', 'now', 'json'],
  generate: ['children', 'drafts', 'parents', 'product-bytes', 'seed', 'out'],
};

type Values = Partial<Record<keyof typeof OPTIONS, string | boolean>>;

/** Each command's first usage line, for the message of a missing option. */
const COMMAND_USAGE: Record<string, string> = Object.fromEntries(
  [...USAGE.matchAll(/^ {2}npm run catalog -- (\w+) .*$/gm)].map((line) => [line[1], line[0].trim()]),
);

/** An option the command needs: missing, the message says so with the command's usage. */
function required(values: Values, name: keyof typeof OPTIONS, command: string): string {
  const value = values[name];
  if (value === undefined) usageError(TOOL, `${command} needs --${name}: ${COMMAND_USAGE[command]}`);
  if (typeof value !== 'string' || value === '') usageError(TOOL, `--${name} needs a value`);
  return value;
}

/**
 * Points the library at the tools' database and object store (see DATABASE_HELP), and creates the tables
 * (and, for publish, the documents bucket) there if missing.
 */
async function connect(options: { objectStore?: boolean } = {}): Promise<void> {
  useToolDatabase(TOOL);
  resetConfig();
  const config = getConfig();
  if (config.dynamodbEndpoint !== undefined) {
    const client = new DynamoDBClient({
      endpoint: config.dynamodbEndpoint,
      region: config.region,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      await ensureTables(client);
    } finally {
      client.destroy();
    }
  }
  // The deployed bucket is the stack's: only a local (or given) object store is checked and prepared.
  if (options.objectStore !== true || config.s3Endpoint === undefined) return;
  try {
    await objectStore.ensureBucket();
  } catch (error) {
    throw new Error(objectStoreUnreachableMessage(error, config.s3Endpoint) ?? (error as Error).message);
  }
}

/**
 * The release's progress on stderr, one line redrawn in place (terminals only): its phase while it is
 * validated and derived, then a bar of its items written.
 */
function progressDisplay(): { update: (release: PcmRelease) => void; end: () => void } {
  let last = '';
  return {
    update: (release) => {
      const line = progressLine(release);
      if (line === last) return;
      last = line;
      process.stderr.write(`\r${line}\x1b[K`);
    },
    end: () => {
      if (last !== '') process.stderr.write('\n');
    },
  };
}

function progressLine(release: PcmRelease): string {
  if (releaseState(release) === 'PENDING') return `release ${release.release_id}: starting`;
  const total = release.total_items;
  if (total === undefined) {
    // The workflow's steps: 10 % once validated, the item count once derived (lib/catalog/pipeline/steps.ts).
    return (release.percent_completed ?? 0) < 10 ? 'validating the document...' : 'deriving the items...';
  }
  const written = Math.min(release.written_items ?? 0, total);
  const percent = total === 0 ? 100 : Math.floor((written / total) * 100);
  const width = 30;
  const filled = Math.round((percent / 100) * width);
  return `writing release [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% ${written}/${total} items`;
}

/** Every validation error: one JSON object on stdout with --json, else a summary and one line each on stderr. */
function printValidationErrors(
  file: string,
  error: ReleaseValidationError,
  output: { json: boolean; fields?: Record<string, unknown> },
  summary: string,
): void {
  if (output.json) {
    process.stdout.write(
      `${JSON.stringify({ ...output.fields, errors: error.issues, total: error.total })}\n`,
    );
    return;
  }
  process.stderr.write(`${file}: ${error.message}${summary}\n`);
  for (const issue of error.issues)
    process.stderr.write(`  ${issue.path}: ${issue.message} (${issue.rule})\n`);
  if (error.total > error.issues.length) {
    process.stderr.write(`  ... and ${error.total - error.issues.length} more\n`);
  }
}

function describeCounts(c: ReleaseCounts): string {
  return `${c.total} (${c.live} live, ${c.draft} draft): ${count(c.parents, 'parent')}, ${count(c.children, 'child', 'children')} (${c.live_children} live), ${c.standard} standard, ${count(c.bundles, 'bundle')}`;
}

/** How long Ctrl-C waits for the release to be marked FAILED before it exits anyway. */
const INTERRUPT_SETTLE_MS = 5000;

/**
 * Ctrl-C (or SIGTERM) during a publish: before the release exists, nothing was published; after, the
 * release is failed at once (`interruptRelease`: no switch can follow, the catalog is free for the next
 * publish) and the message says what is left and what removes it. Exits 130; a second Ctrl-C exits at once.
 */
function onInterrupt(storeId: string): { started: (release: PcmRelease) => void; done: () => void } {
  let release: PcmRelease | undefined;
  const stop = (signal: NodeJS.Signals) => {
    const exit = (message: string) => {
      process.stderr.write(`\n${TOOL}: ${signal}: ${message}\n`);
      process.exit(130);
    };
    if (release === undefined) {
      exit('publish interrupted before its release was created; nothing was published.');
      return;
    }
    const { release_id: releaseId, catalog_id: catalogId } = release;
    const named = `release ${releaseId} of catalog ${catalogId}`;
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(resolve, INTERRUPT_SETTLE_MS, 'timeout'));
    Promise.race([interruptRelease(release, signal), timeout])
      .catch(() => 'error' as const)
      .then((state) => {
        if (state === 'FAILED')
          exit(
            `publish interrupted; ${named} is FAILED and never went live (the current release still serves). \`npm run catalog -- cleanup --store ${storeId}\` removes what it wrote; so does the next publish of the catalog.`,
          );
        else if (state === 'PUBLISHED')
          exit(`publish interrupted after ${named} went live: it is PUBLISHED.`);
        else if (state === undefined) exit(`publish interrupted; ${named} is gone: nothing was published.`);
        else
          exit(
            `publish interrupted; ${named} could not be marked FAILED (${state}): it never went live, and stays IN_PROGRESS until the next publish of the catalog takes it over (after 5 minutes). \`npm run catalog -- cleanup --store ${storeId} --now\` removes what it wrote now.`,
          );
      });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    started: (created) => {
      release = created;
    },
    done: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** The local workflow's latest run in this process: publish waits for its release's run to end. */
let localRun: Promise<unknown> | undefined;

/**
 * Releases run the publishing workflow's steps in a child process with a bounded heap
 * (local/workflow-process.ts, lib/catalog/pipeline/run-local.ts); with RELEASE_STATE_MACHINE_ARN set, the
 * state machine runs them instead.
 */
function registerWorkflow(): void {
  registerLocalWorkflow((input: ReleaseExecutionInput) => {
    // In a child process with a bounded heap: this process stays small whatever the document's size.
    localRun = runWorkflowInChild(input);
    return localRun;
  });
}

/**
 * The document's catalog, from a read of the whole file as a stream (nothing stored yet): a file that is
 * missing or not JSON is a usage error, as for validate.
 */
async function scanDocument(file: string): Promise<DocumentCatalog | undefined> {
  try {
    return await readDocumentCatalog(createReadStream(file));
  } catch (error) {
    return unreadable(file, error);
  }
}

/**
 * A file that cannot be read as a document (missing, unreadable, or not JSON: with the line and column)
 * is a usage error; any other error is thrown again.
 */
function unreadable(file: string, error: unknown): never {
  if (error instanceof DocumentReadError) usageError(TOOL, `cannot read ${file}: ${error.message}`);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') usageError(TOOL, `cannot read ${file}: no such file`);
  if (code !== undefined) usageError(TOOL, `cannot read ${file}: ${(error as Error).message}`);
  throw error;
}

/**
 * A document that names no catalog (no `catalog.name`, or a `catalog.id` that is no UUID) cannot be given
 * to a catalog's release: its errors come from the streamed validation here, and nothing is stored.
 */
async function refuseWithoutCatalog(file: string, json: boolean): Promise<number> {
  const result = await validateReleaseStream(createReadStream(file));
  const error = result.ok
    ? new ReleaseValidationError([{ path: 'catalog', rule: 'catalog', message: 'names no catalog' }], 1)
    : new ReleaseValidationError(result.issues, result.total);
  printValidationErrors(file, error, { json }, '; nothing was published');
  return 1;
}

async function publish(values: Values): Promise<number> {
  const storeId = required(values, 'store', 'publish');
  const file = required(values, 'file', 'publish');
  const json = values.json === true;
  const catalog = await scanDocument(file);
  if (catalog === undefined) return refuseWithoutCatalog(file, json);
  await connect({ objectStore: true });
  registerWorkflow();
  const deliveries = startLocalDeliveries();
  const interrupted = onInterrupt(storeId);
  const progress = !json && process.stderr.isTTY ? progressDisplay() : undefined;
  let result: PublishOutcome;
  try {
    result = await publishDocument(storeId, catalog, () => createReadStream(file), {
      onCreated: interrupted.started,
      ...(progress ? { onProgress: progress.update } : {}),
      localRun: () => localRun,
    });
  } catch (error) {
    progress?.end();
    if (error instanceof StoreNotFoundError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    if (error instanceof CatalogBusy) {
      process.stderr.write(`${TOOL}: ${error.message}\n`);
      return 3;
    }
    if (error instanceof DocumentNotStored) {
      const unreachable = objectStoreUnreachableMessage(error.cause, getConfig().s3Endpoint);
      process.stderr.write(`${TOOL}: ${unreachable ?? error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    interrupted.done();
  }
  progress?.end();
  await awaitDeliveries(deliveries);
  if (releaseState(result.release) === 'FAILED') return printFailure(file, result, json);
  const { products } = result;
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ catalog_id: result.catalog_id, release_id: result.release_id, products, warnings: result.warnings })}\n`,
    );
  } else {
    const counted = result.release.counts;
    const live = products.live === undefined ? '' : ` (${products.live} live, ${products.draft} draft)`;
    const described = counted === undefined ? `${products.total}${live}` : describeCounts(counted);
    process.stdout.write(
      [
        `published release ${result.release_id} of catalog ${result.catalog_id}`,
        `  products: ${described}; ${count(result.release.total_nodes ?? 0, 'node')}`,
        `  items written: ${result.items}; old releases removed: ${result.cleaned_up.length}`,
        '',
      ].join('\n'),
    );
  }
  for (const warning of result.warnings) process.stderr.write(`warning: ${warning}\n`);
  return 0;
}

/**
 * How long publish waits, once its release is over, for the webhook deliveries of its events (created,
 * then updated) to be made: the first attempts, and the retries due by then (the second comes 30 s after
 * a failed first). A delivery still retrying after that is dropped when the tool exits, with a warning.
 */
export const CLI_DELIVERY_WAIT_MS = 60_000;

/** Waits for the queue to empty, at most CLI_DELIVERY_WAIT_MS; warns of the deliveries left. */
async function awaitDeliveries(deliveries: LocalDeliveryQueue): Promise<void> {
  if (deliveries.pending === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    deliveries.idle(),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLI_DELIVERY_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
  if (deliveries.pending > 0) {
    process.stderr.write(
      `warning: ${count(deliveries.pending, 'webhook delivery', 'webhook deliveries')} not made after ${CLI_DELIVERY_WAIT_MS / 1000} s, not retried once this tool exits (each attempt is in GET /v2/integrations/{id}/logs)\n`,
    );
  }
}

/**
 * A FAILED release: its validation issues as validate prints them (JSON paths), or the workflow's error;
 * with --json, `{errors, total}` either way. Exit 1.
 */
function printFailure(file: string, result: PublishOutcome, json: boolean): number {
  const { release } = result;
  // As validate orders each issue's fields (a DynamoDB map keeps no order).
  const issues = (release.errors ?? []).map(({ path, rule, message }) => ({ path, rule, message }));
  const named = `release ${result.release_id} of catalog ${result.catalog_id}`;
  if (json || failedForDocument(release)) {
    const error = new ReleaseValidationError(issues, release.errors_total ?? issues.length);
    printValidationErrors(file, error, { json }, `; nothing was published (${named} is FAILED)`);
  } else {
    const why = issues.map((issue) => issue.message).join('; ');
    process.stderr.write(`${TOOL}: ${named} FAILED: ${why}. The current release still serves.\n`);
  }
  return 1;
}

/** The file's bytes from `offset`, `length` of them (a run of products the derivation reads again). */
async function* fileRange(file: string, offset: number, length: number): AsyncGenerator<Uint8Array> {
  if (length === 0) return;
  yield* createReadStream(file, { start: offset, end: offset + length - 1 });
}

/**
 * `validate --file F [--json]`: publish's checks without a database, on the file read as a stream (a
 * product at a time, whatever its size); `--stream` changes nothing.
 */
async function validate(values: Values): Promise<number> {
  const file = required(values, 'file', 'validate');
  const json = values.json === true;
  let checked: Awaited<ReturnType<typeof checkReleaseStream>>;
  try {
    checked = await checkReleaseStream(
      () => createReadStream(file),
      (offset, length) => fileRange(file, offset, length),
    );
  } catch (error) {
    if (!(error instanceof ReleaseValidationError)) return unreadable(file, error);
    printValidationErrors(file, error, { json, fields: { valid: false } }, '');
    return 1;
  }
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ valid: true, products: checked.counts, items: checked.items })}\n`,
    );
  } else {
    process.stdout.write(
      `${file}: valid; products: ${describeCounts(checked.counts)}; ${checked.items} items to write\n`,
    );
  }
  return 0;
}

async function cleanup(values: Values): Promise<number> {
  const storeId = required(values, 'store', 'cleanup');
  await connect();
  const result = await cleanupReleases(
    storeId,
    values.now === true ? { abandonedAfterMs: 0, retainReplacedMs: 0 } : {},
  );
  // The objects (item manifests) of the releases that are gone, whichever removed them.
  await sweepReleaseObjects(storeId, undefined);
  if (values.json === true) process.stdout.write(`${JSON.stringify(result)}\n`);
  else
    process.stdout.write(
      `removed ${count(result.releases.length, 'release')} (${count(result.items, 'item')})\n`,
    );
  return 0;
}

function generate(values: Values): number {
  const int = (name: 'children' | 'drafts' | 'parents' | 'seed', fallback: number, min: number) =>
    intOption(TOOL, values[name] as string | undefined, name, fallback, min, 1_000_000);
  const productBytes = values['product-bytes'] as string | undefined;
  const options = {
    children: int('children', Number.NaN, 0),
    drafts: int('drafts', 0, 0),
    parents: int('parents', 1, 1),
    seed: int('seed', 1, 0),
    ...(productBytes === undefined
      ? {}
      : { productBytes: intOption(TOOL, productBytes, 'product-bytes', 0, 0, MAX_PRODUCT_BYTES) }),
  };
  const out = values.out === undefined ? undefined : required(values, 'out', 'generate');
  // Synchronous writes, piece by piece: nothing waits in memory, whatever the document's size.
  const fd = out === undefined ? 1 : openSync(out, 'w');
  try {
    for (const piece of generateReleaseText(options)) writeAll(fd, piece);
  } finally {
    if (out !== undefined) closeSync(fd);
  }
  // Each parent with its children and drafts, and the standalone product.
  const products = options.parents * (options.children + options.drafts + 1) + 1;
  process.stderr.write(
    out === undefined
      ? `wrote ${count(products, 'product')} to stdout\n`
      : `wrote ${out} (${count(products, 'product')})\n`,
  );
  return 0;
}

/** Writes all of `text` to `fd`, waiting out a full pipe (EAGAIN) rather than failing. */
function writeAll(fd: number, text: string): void {
  let buffer = Buffer.from(text);
  while (buffer.length > 0) {
    try {
      buffer = buffer.subarray(writeSync(fd, buffer));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseCli(TOOL, USAGE, OPTIONS, process.argv.slice(2), 1);
  const command = positionals[0];
  if (command === undefined)
    usageError(TOOL, 'a command is required: validate, publish, generate or cleanup');
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed || !Object.hasOwn(COMMAND_OPTIONS, command)) usageError(TOOL, `unknown command '${command}'`);
  for (const name of Object.keys(values)) {
    if (!allowed.includes(name as keyof typeof OPTIONS))
      usageError(TOOL, `${command} does not take --${name}`);
  }
  if (command === 'generate') {
    required(values, 'children', 'generate');
    return generate(values);
  }
  if (command === 'validate') return validate(values);
  return command === 'publish' ? publish(values) : cleanup(values);
}

main()
  .finally(() => resetDocumentClient())
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      const message =
        databaseUnreachableMessage(error, process.env.DYNAMODB_ENDPOINT) ?? (error as Error).message;
      process.stderr.write(`${TOOL}: ${message}\n`);
      process.exitCode = 1;
    },
  );
