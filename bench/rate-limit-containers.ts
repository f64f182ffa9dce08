import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
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
  const env = {
    ...options.env,
    STORE_ID: options.storeId,
    KEYS: JSON.stringify(options.keys),
    RATE_PER_KEY: String(options.ratePerKey),
    DURATION_MS: String(options.durationMs),
  };
  const workers = Array.from({ length: options.processes }, () => startWorker(env));
  // Every process is up (tsx compiled it) before any starts; all start on the same window boundary.
  await Promise.all(workers.map((worker) => worker.ready));
  const startAt = Math.ceil((Date.now() + 1000) / 1000) * 1000;
  for (const worker of workers) worker.start(startAt);
  const reports = await Promise.all(workers.map((worker) => worker.report));
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

/** One worker process: `ready` once it printed so, `start` sends the start time, `report` its figures. */
function startWorker(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'bench/rate-limit-worker.ts')], {
    cwd: ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let signalReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    signalReady = resolve;
  });
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.startsWith('ready\n')) signalReady();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const report = new Promise<WorkerReport>((done, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`rate-limit worker exited ${code}: ${stderr.slice(-1000)}`));
      else done(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as WorkerReport);
    });
  });
  return {
    ready: Promise.race([ready, report.then(() => undefined)]),
    report,
    start: (at: number) => child.stdin.end(`${at}\n`),
  };
}
