import { resolve } from 'node:path';
import { timeProcess } from './cold-start';
import type { WorkerReport } from './rate-limit-worker';

const ROOT = resolve(import.meta.dirname, '..');

export interface ContainersRun {
  /** Admitted requests per window (epoch second) per key, summed over every process. */
  perWindow: Map<number, Record<string, number>>;
  /** The windows wholly inside the run (the first and last, partly outside, are left out). */
  fullWindows: number[];
  attempts: number;
  /** UpdateItem calls (the limiter's leases and nothing else in the workers). */
  writes: number;
  failedOpen: number;
  reports: WorkerReport[];
}

/**
 * Runs `processes` simulated containers (bench/rate-limit-worker.ts, each its own node process with its
 * own limiter) against the DynamoDB in `env`, all starting at the same second, each sending `ratePerKey`
 * requests per second of every key for `durationMs`.
 */
export async function runContainers(options: {
  storeId: string;
  keys: string[];
  processes: number;
  ratePerKey: number;
  durationMs: number;
  env: NodeJS.ProcessEnv;
}): Promise<ContainersRun> {
  // Far enough ahead for every process to start (tsx compiles on the way), on a window boundary.
  const startAt = Math.ceil((Date.now() + 8000) / 1000) * 1000;
  const reports = await Promise.all(
    Array.from({ length: options.processes }, () =>
      runWorker({
        ...options.env,
        STORE_ID: options.storeId,
        KEYS: JSON.stringify(options.keys),
        RATE_PER_KEY: String(options.ratePerKey),
        START_AT: String(startAt),
        DURATION_MS: String(options.durationMs),
      }),
    ),
  );
  const perWindow = new Map<number, Record<string, number>>();
  for (const report of reports) {
    for (const [key, windows] of Object.entries(report.admitted)) {
      for (const [window, count] of Object.entries(windows)) {
        const row = perWindow.get(Number(window)) ?? {};
        row[key] = (row[key] ?? 0) + count;
        perWindow.set(Number(window), row);
      }
    }
  }
  const first = startAt / 1000;
  const last = (startAt + options.durationMs) / 1000 - 1;
  const fullWindows: number[] = [];
  for (let window = first + 1; window < last; window += 1) fullWindows.push(window);
  return {
    perWindow,
    fullWindows,
    attempts: reports.reduce((sum, r) => sum + r.attempts, 0),
    writes: reports.reduce((sum, r) => sum + r.writes, 0),
    failedOpen: reports.reduce((sum, r) => sum + r.stats.failedOpen, 0),
    reports,
  };
}

async function runWorker(env: NodeJS.ProcessEnv): Promise<WorkerReport> {
  const { stdout } = await timeProcess(['--import', 'tsx', resolve(ROOT, 'bench/rate-limit-worker.ts')], env);
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as WorkerReport;
}
