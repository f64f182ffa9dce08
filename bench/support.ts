import '../local/quiet-sdk';
import { mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { resetConfig } from '../lib/config/index';
import { resetDocumentClient } from '../lib/store/client';
import { ensureTables } from '../lib/store/tables';
import { type DynamoDbLocal, startDynamoDbLocal } from '../local/dynamodb-local';

export interface Timing {
  p50_ms: number;
  p99_ms: number;
  samples: number;
}

/** The q-quantile (0..1) of sorted samples, nearest-rank. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** Rounds to two decimals for printing. */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Times `fn` `iterations` times (after `warmup` untimed runs) and returns p50/p99 in ms. */
export async function measure(fn: () => Promise<unknown>, iterations: number, warmup = 20): Promise<Timing> {
  for (let i = 0; i < warmup; i += 1) await fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return {
    p50_ms: round(quantile(samples, 0.5), 3),
    p99_ms: round(quantile(samples, 0.99), 3),
    samples: iterations,
  };
}

/**
 * Times two functions in alternation (a, b, a, b, ...) so drift on a shared machine hits both alike:
 * use it for an operation against its raw-DynamoDB baseline.
 */
export async function measurePair(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  iterations: number,
  warmup = 20,
): Promise<[Timing, Timing]> {
  for (let i = 0; i < warmup; i += 1) {
    await a();
    await b();
  }
  const sa: number[] = [];
  const sb: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    let start = performance.now();
    await a();
    sa.push(performance.now() - start);
    start = performance.now();
    await b();
    sb.push(performance.now() - start);
  }
  const summarize = (s: number[]): Timing => {
    s.sort((x, y) => x - y);
    return { p50_ms: round(quantile(s, 0.5), 3), p99_ms: round(quantile(s, 0.99), 3), samples: iterations };
  };
  return [summarize(sa), summarize(sb)];
}

export interface BenchDatabase {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * Starts DynamoDB Local on a free port, points the library at it and creates the tables. In memory,
 * unless `BENCH_DYNAMODB_DIR` names a folder: then its tables are a file in a new folder there, removed
 * when it stops (a million products in memory need more than this machine's 23 GB; as a file in a
 * RAM-backed folder such as /dev/shm they take 14 GB, and the JVM stays small).
 */
export async function startBenchDatabase(): Promise<BenchDatabase> {
  const parent = process.env.BENCH_DYNAMODB_DIR;
  const dataDir = parent ? mkdtempSync(join(resolve(parent), 'bench-dynamodb-')) : undefined;
  const removeData = () => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const database: DynamoDbLocal = await startDynamoDbLocal(dataDir ? { dataDir } : {}).catch((error) => {
    removeData();
    throw error;
  });
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: database.endpoint,
    // For the stages that report every process's peak memory (bench/publish.ts).
    BENCH_DYNAMODB_PID: String(database.process.pid ?? ''),
    KEYS_TABLE: 'bench-keys',
    MAPPINGS_TABLE: 'bench-mappings',
    PRODUCTS_TABLE: 'bench-products',
    LIMITS_TABLE: 'bench-limits',
    LOG_LEVEL: 'silent',
  });
  resetConfig();
  resetDocumentClient();
  const client = new DynamoDBClient({
    endpoint: database.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureTables(client);
  client.destroy();
  return {
    endpoint: database.endpoint,
    async stop() {
      await database.stop();
      removeData();
    },
  };
}

/** A progress line on stderr (stdout stays clean for `--json`). */
export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** `--iterations N` from the command line, or `fallback`; anything but a positive integer is an error. */
export function iterationsArg(args: string[], fallback: number): number {
  const index = args.indexOf('--iterations');
  const iterations = index === -1 ? fallback : Number(args[index + 1]);
  if (!Number.isInteger(iterations) || iterations < 1)
    throw new Error('--iterations must be a positive integer');
  return iterations;
}

/**
 * When the module at `moduleUrl` is the script node was started with: starts a DynamoDB Local, runs
 * `measure`, prints its figures (JSON with `--json`, else `describe`'s text) and stops the database.
 */
export function runAsScript<T>(
  moduleUrl: string,
  measure: (args: string[]) => Promise<T>,
  describe: (figures: T) => string,
): void {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  const args = process.argv.slice(2);
  const run = async () => {
    progress('starting DynamoDB Local');
    const database = await startBenchDatabase();
    try {
      const figures = await measure(args);
      process.stdout.write(
        args.includes('--json') ? `${JSON.stringify(figures, null, 2)}\n` : describe(figures),
      );
    } finally {
      await database.stop();
    }
  };
  run().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  });
}

/** `name N` from the command line, or `fallback`; anything but a positive integer is an error. */
export function intOption(args: string[], name: string, fallback: number): number {
  const index = args.indexOf(name);
  const value = index === -1 ? fallback : Number(args[index + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}
