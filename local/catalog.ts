import './quiet-sdk';
import { closeSync, createReadStream, openSync, readFileSync, writeSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ReleaseCounts } from '../lib/catalog/derive';
import { DocumentReadError } from '../lib/catalog/document-stream';
import { generateReleaseText, MAX_PRODUCT_BYTES } from '../lib/catalog/generator';
import {
  checkRelease,
  cleanupReleases,
  type PublishProgress,
  publishRelease,
  StoreNotFoundError,
} from '../lib/catalog/publisher';
import { ReleaseValidationError } from '../lib/catalog/validate-release';
import { type StreamValidation, validateReleaseStream } from '../lib/catalog/validate-stream';
import { getConfig, resetConfig } from '../lib/config/index';
import { resetDocumentClient } from '../lib/store/client';
import { ensureTables } from '../lib/store/tables';
import { DATABASE_HELP, intOption, parseCli, usageError, useToolDatabase } from './cli';
import { count, databaseUnreachableMessage, parseJson } from './messages';

const TOOL = 'catalog';
const USAGE = `Usage:
  npm run catalog -- validate --file release.json [--stream] [--json]
      Checks a release document as publish does (catalog/release.schema.json, then references, uniqueness,
      the node tree, parents and children, item and response sizes), without a database: for your own
      CI. Exit 0 when valid, 1 with every error (the first 100), 2 for a usage error. --stream reads the
      document one product at a time, in little memory whatever its size, and runs every check but the
      item and response sizes (docs/publishing.md).
  npm run catalog -- publish --store STORE_ID --file release.json [--json]
      Validates the release document (all errors at once, nothing written on error), writes the release,
      then makes it the catalog's current release. Warns on stderr when the new catalog can never be
      selected by a shopper (see docs/filtering.md, "How the catalog is chosen"). Interrupted (Ctrl-C),
      it says which release it leaves half-written: \`cleanup --now\` removes it at once.
  npm run catalog -- generate --children N [--drafts N] [--parents N] [--product-bytes N] [--seed N]
                              [--out file.json]
      Writes a large valid release document (to stdout without --out), product by product: any size takes
      little memory. --product-bytes fills each product's description so it takes at least N bytes
      (up to ${MAX_PRODUCT_BYTES}; real products weigh several KB, bare generated ones about 400 bytes).
  npm run catalog -- cleanup --store STORE_ID [--now] [--json]
      Deletes replaced and abandoned releases of the store's catalogs (publish does this too): a release
      replaced over a minute ago, one whose publish stopped over 5 minutes ago. --now takes both at once
      (run it only when no publish of the store is running: it removes a release being written too).

--json prints one JSON object on stdout; run it as \`npm run -s catalog -- ... --json\` (npm's -s keeps
its own banner off stdout). Exit status: 0 done, 1 invalid document, unknown store or DynamoDB error,
2 wrong arguments or an unreadable file.

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

function required(values: Values, name: keyof typeof OPTIONS): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') usageError(TOOL, `--${name} needs a value`);
  return value;
}

/** Points the library at the tools' database (see DATABASE_HELP), and creates the tables there if missing. */
async function connect(): Promise<void> {
  useToolDatabase(TOOL);
  resetConfig();
  const config = getConfig();
  if (config.dynamodbEndpoint === undefined) return;
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

/** A one-line progress bar on stderr, redrawn in place (terminals only). */
function progressBar(): (progress: PublishProgress) => void {
  let last = -1;
  return ({ written, total }) => {
    const percent = total === 0 ? 100 : Math.floor((written / total) * 100);
    if (percent === last && written !== total) return;
    last = percent;
    const width = 30;
    const filled = Math.round((percent / 100) * width);
    process.stderr.write(
      `\rwriting release [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% ${written}/${total} items`,
    );
    if (written === total) process.stderr.write('\n');
  };
}

/** The JSON document in `file`; a file that is missing or not JSON is a usage error. */
function readDocument(file: string): unknown {
  try {
    return parseJson(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    usageError(TOOL, `cannot read ${file}: ${reason}`);
  }
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

/**
 * Ctrl-C (or SIGTERM) during a publish: says what it leaves (nothing before the release's marker is
 * written; after, a half-written release that never went live) and how to remove it, then exits 130.
 */
function onInterrupt(storeId: string): {
  started: (release: { catalog_id: string; release_id: string }) => void;
  done: () => void;
} {
  let release: { catalog_id: string; release_id: string } | undefined;
  const stop = (signal: NodeJS.Signals) => {
    process.stderr.write(
      release
        ? `\n${TOOL}: ${signal}: publish interrupted; release ${release.release_id} of catalog ${release.catalog_id} is left half-written (status writing; it never went live, the current release still serves). \`npm run catalog -- cleanup --store ${storeId} --now\` removes it now; a plain cleanup or the next publish removes it after 5 minutes.\n`
        : `\n${TOOL}: ${signal}: publish interrupted before writing anything; nothing to clean up.\n`,
    );
    process.exit(130);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    started: (started) => {
      release = started;
    },
    done: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

async function publish(values: Values): Promise<number> {
  const storeId = required(values, 'store');
  const file = required(values, 'file');
  const json = values.json === true;
  const document = readDocument(file);
  await connect();
  const interrupted = onInterrupt(storeId);
  try {
    const result = await publishRelease(storeId, document, {
      ...(!json && process.stderr.isTTY ? { onProgress: progressBar() } : {}),
      onStart: interrupted.started,
    });
    interrupted.done();
    if (json) {
      process.stdout.write(
        `${JSON.stringify({ catalog_id: result.catalog_id, release_id: result.release_id, products: result.products, warnings: result.warnings })}\n`,
      );
    } else {
      process.stdout.write(
        [
          `published release ${result.release_id} of catalog ${result.catalog_id}`,
          `  products: ${describeCounts(result.products)}`,
          `  items written: ${result.items}; old releases removed: ${result.cleaned_up.length}`,
          '',
        ].join('\n'),
      );
    }
    for (const warning of result.warnings) process.stderr.write(`warning: ${warning}\n`);
    return 0;
  } catch (error) {
    if (error instanceof ReleaseValidationError) {
      printValidationErrors(file, error, { json }, '; nothing was written');
      return 1;
    }
    if (error instanceof StoreNotFoundError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

/**
 * `validate --file F --stream [--json]`: the document's checks on a stream of it, one product at a time
 * (the item and response sizes, which need each product's stored form, are left to publish).
 */
async function validateStreamed(file: string, json: boolean): Promise<number> {
  let result: StreamValidation;
  try {
    result = await validateReleaseStream(createReadStream(file));
  } catch (error) {
    if (error instanceof DocumentReadError) usageError(TOOL, `cannot read ${file}: ${error.message}`);
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      usageError(TOOL, `cannot read ${file}: no such file`);
    throw error;
  }
  if (!result.ok) {
    const error = new ReleaseValidationError(result.issues, result.total);
    printValidationErrors(file, error, { json, fields: { valid: false } }, '');
    return 1;
  }
  if (json)
    process.stdout.write(
      `${JSON.stringify({ valid: true, streamed: true, products: { total: result.products } })}\n`,
    );
  else
    process.stdout.write(
      `${file}: valid (streamed: every check but item and response sizes); ${count(result.products, 'product')}\n`,
    );
  return 0;
}

/** `validate --file F [--json]`: publish's checks without a database. */
function validate(values: Values): number | Promise<number> {
  const file = required(values, 'file');
  const json = values.json === true;
  if (values.stream === true) return validateStreamed(file, json);
  let checked: ReturnType<typeof checkRelease>;
  try {
    checked = checkRelease(readDocument(file));
  } catch (error) {
    if (!(error instanceof ReleaseValidationError)) throw error;
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
  const storeId = required(values, 'store');
  await connect();
  const result = await cleanupReleases(
    storeId,
    values.now === true ? { abandonedAfterMs: 0, retainReplacedMs: 0 } : {},
  );
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
  const out = values.out === undefined ? undefined : required(values, 'out');
  // Synchronous writes, piece by piece: nothing waits in memory, whatever the document's size.
  const fd = out === undefined ? 1 : openSync(out, 'w');
  try {
    for (const piece of generateReleaseText(options)) writeAll(fd, piece);
  } finally {
    if (out !== undefined) closeSync(fd);
  }
  // Each parent with its children and drafts, and the standalone product.
  const products = options.parents * (options.children + options.drafts + 1) + 1;
  if (out !== undefined) process.stderr.write(`wrote ${out} (${count(products, 'product')})\n`);
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
  if (command === undefined) usageError(TOOL, 'a command is required: publish, generate or cleanup');
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed || !Object.hasOwn(COMMAND_OPTIONS, command)) usageError(TOOL, `unknown command '${command}'`);
  for (const name of Object.keys(values)) {
    if (!allowed.includes(name as keyof typeof OPTIONS))
      usageError(TOOL, `${command} does not take --${name}`);
  }
  if (command === 'generate') {
    if (values.children === undefined) usageError(TOOL, 'generate needs --children N');
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
