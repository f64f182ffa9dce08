import './quiet-sdk';
import { readFileSync, writeFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { generateRelease } from '../lib/catalog/generator';
import {
  cleanupReleases,
  type PublishProgress,
  publishRelease,
  StoreNotFoundError,
} from '../lib/catalog/publisher';
import { ReleaseValidationError } from '../lib/catalog/validate-release';
import { getConfig, resetConfig } from '../lib/config/index';
import { resetDocumentClient } from '../lib/store/client';
import { ensureTables } from '../lib/store/tables';
import { useDynamoDbEndpointFromEnv } from './endpoint';

const USAGE = `Usage:
  npm run catalog -- publish --store STORE_ID --file release.json [--json]
      Validates the release document (all errors at once, nothing written on error), writes the release,
      then makes it the catalog's current release. --json: one JSON object on stdout.
  npm run catalog -- generate --children N [--drafts N] [--parents N] [--seed N] [--out file.json]
      Writes a large valid release document (to stdout without --out).
  npm run catalog -- cleanup --store STORE_ID [--json]
      Deletes replaced and abandoned releases of the store's catalogs (publish does this too).

DynamoDB: DYNAMODB_ENDPOINT (default http://127.0.0.1:8000); DYNAMODB_ENDPOINT=aws for the deployed tables (with PRODUCTS_TABLE from the stack outputs).`;

class UsageError extends Error {}

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
  useDynamoDbEndpointFromEnv();
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

async function publish(flags: Map<string, string | true>): Promise<number> {
  const storeId = stringFlag(flags, 'store') as string;
  const file = stringFlag(flags, 'file') as string;
  const json = flags.get('json') === true;
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new UsageError(`cannot read ${file}: ${reason}`);
  }
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
      const c = result.products;
      process.stdout.write(
        [
          `published release ${result.release_id} of catalog ${result.catalog_id}`,
          `  products: ${c.total} (${c.live} live, ${c.draft} draft): ${c.parents} parents, ${c.children} children (${c.live_children} live), ${c.standard} standard, ${c.bundles} bundles`,
          `  items written: ${result.items}; old releases removed: ${result.cleaned_up.length}`,
          '',
        ].join('\n'),
      );
    }
    return 0;
  } catch (error) {
    if (error instanceof ReleaseValidationError) {
      if (json) {
        process.stdout.write(`${JSON.stringify({ errors: error.issues, total: error.total })}\n`);
      } else {
        process.stderr.write(`${file}: ${error.message}; nothing was written\n`);
        for (const issue of error.issues)
          process.stderr.write(`  ${issue.path}: ${issue.message} (${issue.rule})\n`);
        if (error.total > error.issues.length) {
          process.stderr.write(`  ... and ${error.total - error.issues.length} more\n`);
        }
      }
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

async function main(): Promise<number> {
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
      if (error instanceof UsageError) {
        process.stderr.write(`${error.message}\n\n${USAGE}\n`);
        process.exitCode = 2;
        return;
      }
      process.stderr.write(`catalog: ${(error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
