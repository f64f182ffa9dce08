// First: sets LOG_LEVEL before any module that imports the logger is evaluated.
import '../fuzz/log-level';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runAsScript } from '../bench/support';
import { getConfig, resetConfig } from '../lib/config/index';
import { resetObjectStoreClient } from '../lib/store/object-store';
import { parseCli } from '../local/cli';
import { type ObjectStoreLocal, startObjectStoreLocal } from '../local/object-store-local';
import { describeHistories, type HistoriesReport, runHistories } from './session';

/**
 * `npm run histories [-- --ops N] [--clients N] [--seed N] [--faults] [--json]`: random concurrent
 * operations through the handlers against its own DynamoDB Local, checked for linearizability. Exits 1
 * on any anomaly, writing the report (text on stderr, an HTML timeline under .data/histories/).
 */
const DEFAULTS = { ops: 10_000, clients: 8, seed: 1 };

function intArg(args: string[], name: string, fallback: number, min: number): number {
  const index = args.indexOf(name);
  if (index === -1) return fallback;
  const value = Number(args[index + 1]);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}`);
  return value;
}

// Tokens granted at the start must outlive a long run.
process.env.TOKEN_TTL_SECONDS ??= '86400';

async function main(args: string[]): Promise<HistoriesReport> {
  // stdout carries only the result: anything the functions print (metrics) goes to stderr meanwhile.
  // Publishes run the workflow, which keeps its files and the releases' manifests in the object store.
  let objects: ObjectStoreLocal | undefined;
  if (!process.env.S3_ENDPOINT) {
    objects = await startObjectStoreLocal({ buckets: [getConfig().documentsBucket] });
    process.env.S3_ENDPOINT = objects.endpoint;
    resetConfig();
    resetObjectStoreClient();
  }
  const stdoutWrite = process.stdout.write;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  const report = await runHistories({
    ops: intArg(args, '--ops', DEFAULTS.ops, 1),
    clients: intArg(args, '--clients', DEFAULTS.clients, 1),
    seed: intArg(args, '--seed', DEFAULTS.seed, 0),
    faults: args.includes('--faults'),
    lostWriteResponses: !args.includes('--no-lost-writes'),
    onProgress: (done) => process.stderr.write(`[histories] ${done} operations\n`),
  }).finally(async () => {
    process.stdout.write = stdoutWrite;
    await objects?.stop();
  });
  if (report.failed) {
    const dir = join('.data', 'histories');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `report-seed-${report.seed}${report.faults ? '-faults' : ''}.html`);
    writeFileSync(file, report.html);
    process.stderr.write(`${report.text.join('\n')}\n[histories] timeline: ${file}\n`);
    process.exitCode = 1;
  }
  // --json carries the figures and the text report; the HTML page is in the file.
  Object.defineProperty(report, 'html', { enumerable: false });
  return report;
}

const USAGE = `Usage: npm run histories [-- --ops N] [--clients N] [--seed N] [--faults [--no-lost-writes]] [--json]
Random concurrent operations (default ${DEFAULTS.ops}, ${DEFAULTS.clients} clients, seed ${DEFAULTS.seed}) through the
handlers against its own DynamoDB Local, with transaction conflicts emulated (--faults: throttling,
timeouts and lost responses too; --no-lost-writes: no write response lost after DynamoDB applied the
write), checked for linearizability. Exits 1 on any anomaly; the report's
timeline is written under .data/histories/.`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  parseCli('histories', USAGE, {
    ops: { type: 'string' },
    clients: { type: 'string' },
    seed: { type: 'string' },
    faults: { type: 'boolean' },
    'no-lost-writes': { type: 'boolean' },
    json: { type: 'boolean' },
  });
}
runAsScript(import.meta.url, main, describeHistories);
