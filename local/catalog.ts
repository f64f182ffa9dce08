import './quiet-sdk';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs as parseOptions } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ReleaseCounts } from '../lib/catalog/derive';
import { generateRelease } from '../lib/catalog/generator';
import {
  checkRelease,
  cleanupReleases,
  type PublishProgress,
  publishRelease,
  StoreNotFoundError,
} from '../lib/catalog/publisher';
import { ReleaseValidationError } from '../lib/catalog/validate-release';
import { getConfig, resetConfig } from '../lib/config/index';
import { resetDocumentClient } from '../lib/store/client';
import { ensureTables } from '../lib/store/tables';

const USAGE = `Usage:
  npm run catalog -- validate --file release.json [--json]
      Checks a release document as publish does (catalog/release.schema.json, then references, uniqueness,
      the node tree, parents and children, item sizes), without a database: for your own CI. Exit 0 when
      valid, 1 with every error (the first 100), 2 for a usage error. --json: one JSON object on stdout.
  npm run catalog -- publish --store STORE_ID --file release.json [--json]
      Validates the release document (all errors at once, nothing written on error), writes the release,
      then makes it the catalog's current release. --json: one JSON object on stdout.
  npm run catalog -- generate --children N [--drafts N] [--parents N] [--seed N] [--out file.json]
      Writes a large valid release document (to stdout without --out).
  npm run catalog -- cleanup --store STORE_ID [--json]
      Deletes replaced and abandoned releases of the store's catalogs (publish does this too).

DynamoDB: DYNAMODB_ENDPOINT (default http://127.0.0.1:8000); unset it with DYNAMODB_ENDPOINT=aws to use AWS.`;

class UsageError extends Error {}
/** A usage error of a subcommand parsed with util.parseArgs: one line on stderr, exit 2 (no usage text). */
class OptionError extends Error {}

function parseArgs(argv: string[]): { command: string | undefined; flags: Map<string, string | true> } {
  const [command, ...rest] = argv;
  const flags = new Map<string, string | true>();
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i] as string;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${arg}`);
    const next = rest[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      flags.set(arg.slice(2), next);
      i += 1;
    } else flags.set(arg.slice(2), true);
  }
  return { command, flags };
}

function stringFlag(flags: Map<string, string | true>, name: string, required = true): string | undefined {
  const value = flags.get(name);
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} needs a value`);
  return value;
}

function intFlag(
  flags: Map<string, string | true>,
  name: string,
  fallback: number | undefined,
  min: number,
): number {
  const raw = stringFlag(flags, name, fallback === undefined);
  if (raw === undefined) return fallback as number;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > 1_000_000) {
    throw new UsageError(`--${name} must be an integer from ${min} to 1000000`);
  }
  return value;
}

/** Points the library at DynamoDB Local unless told otherwise, and creates the tables there if missing. */
async function connect(): Promise<void> {
  if (process.env.DYNAMODB_ENDPOINT === 'aws') delete process.env.DYNAMODB_ENDPOINT;
  else process.env.DYNAMODB_ENDPOINT ??= 'http://127.0.0.1:8000';
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
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new UsageError(`cannot read ${file}: ${reason}`);
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
  return `${c.total} (${c.live} live, ${c.draft} draft): ${c.parents} parents, ${c.children} children (${c.live_children} live), ${c.standard} standard, ${c.bundles} bundles`;
}

async function publish(flags: Map<string, string | true>): Promise<number> {
  const storeId = stringFlag(flags, 'store') as string;
  const file = stringFlag(flags, 'file') as string;
  const json = flags.get('json') === true;
  const document = readDocument(file);
  await connect();
  try {
    const result = await publishRelease(storeId, document, {
      ...(!json && process.stderr.isTTY ? { onProgress: progressBar() } : {}),
    });
    if (json) {
      process.stdout.write(
        `${JSON.stringify({ catalog_id: result.catalog_id, release_id: result.release_id, products: result.products })}\n`,
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

async function cleanup(flags: Map<string, string | true>): Promise<number> {
  const storeId = stringFlag(flags, 'store') as string;
  await connect();
  const result = await cleanupReleases(storeId);
  if (flags.get('json') === true) process.stdout.write(`${JSON.stringify(result)}\n`);
  else process.stdout.write(`removed ${result.releases.length} releases (${result.items} items)\n`);
  return 0;
}

function generate(flags: Map<string, string | true>): number {
  const document = generateRelease({
    children: intFlag(flags, 'children', undefined, 0),
    drafts: intFlag(flags, 'drafts', 0, 0),
    parents: intFlag(flags, 'parents', 1, 1),
    seed: intFlag(flags, 'seed', 1, 0),
  });
  const text = `${JSON.stringify(document)}\n`;
  const out = stringFlag(flags, 'out', false);
  if (out === undefined) process.stdout.write(text);
  else {
    writeFileSync(out, text);
    process.stderr.write(`wrote ${out} (${(document.products as unknown[]).length} products)\n`);
  }
  return 0;
}

/** `validate --file F [--json]`: publish's checks without a database (options parsed strictly). */
function validate(args: string[]): number {
  const { values } = parseOptions({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      file: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.file === undefined || values.file === '') throw new OptionError('--file is required');
  const file = values.file;
  let checked: ReturnType<typeof checkRelease>;
  try {
    checked = checkRelease(readDocument(file));
  } catch (error) {
    if (error instanceof UsageError) throw new OptionError(error.message);
    if (!(error instanceof ReleaseValidationError)) throw error;
    printValidationErrors(file, error, { json: values.json, fields: { valid: false } }, '');
    return 1;
  }
  if (values.json) {
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

async function main(): Promise<number> {
  const [first, ...rest] = process.argv.slice(2);
  if (first === 'validate') return validate(rest);
  const { command, flags } = parseArgs(process.argv.slice(2));
  if (command === 'publish') return publish(flags);
  if (command === 'generate') return generate(flags);
  if (command === 'cleanup') return cleanup(flags);
  if (command === undefined || command === 'help' || flags.has('help')) {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  throw new UsageError(`unknown command ${command}`);
}

main()
  .finally(() => resetDocumentClient())
  .then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (error instanceof OptionError || code.startsWith('ERR_PARSE_ARGS_')) {
        process.stderr.write(`catalog validate: ${(error as Error).message}\n`);
        process.exitCode = 2;
        return;
      }
      if (error instanceof UsageError) {
        process.stderr.write(`${error.message}\n\n${USAGE}\n`);
        process.exitCode = 2;
        return;
      }
      process.stderr.write(`catalog: ${(error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
