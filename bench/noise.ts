import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { lambdaEnv, timeProcess } from './cold-start';
import { quantile, round } from './support';

/**
 * How noisy the machine is while the bench runs, measured rather than assumed: `node -e 0` started
 * `runs` times (the same floor every cold start stands on) and how busy the CPUs are. A bench on a
 * busy machine still runs, but a missed target whose miss is within the measured noise is printed as
 * "MISSED (may be noise)", not as a plain "MISSED".
 */
export interface NoiseFigures {
  /** Median wall time of `node -e 0`, ms. */
  node_p50_ms: number;
  /** Interquartile range of those times over their median (0.05 = the middle half within 5 %). */
  node_spread: number;
  /** Slowest over fastest sample. */
  node_max_over_min: number;
  /**
   * How busy the machine's CPUs are while the bench itself waits, as a share of all cores (0.5: one core of
   * two): measured over LOAD_WINDOW_MS from /proc/stat where there is one, else the 1-minute load average
   * over the number of cores.
   */
  load_per_core: number;
  /**
   * Median ms of a fixed CPU workload in the bench's process (`cpuWorkload`): the CPU's speed, which the
   * spread and the load do not show (a host running everything 1.7 times slower is as steady as a fast
   * one, and as idle). A warm process's speed only: a host whose fresh processes run twice as slow has
   * shown a faster one than ever (docs/performance.md). No verdict depends on it; compare it between runs
   * before comparing their timings. Absent from runs before it was measured.
   */
  cpu_ms?: number;
  /** True when the machine is too busy to judge a miss: see `NOISY_SPREAD`, `NOISY_LOAD_PER_CORE`. */
  noisy: boolean;
}

/** Above this spread of `node -e 0` (interquartile range over median), timings are not trusted. */
export const NOISY_SPREAD = 0.1;
/** Above this load per core, other processes compete for the CPU the bench measures. */
export const NOISY_LOAD_PER_CORE = 0.5;

/** Summarises `node -e 0` samples, the load and the CPU workload's time into NoiseFigures. */
export function summariseNoise(samples: number[], loadPerCore: number, cpuMs?: number): NoiseFigures {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = quantile(sorted, 0.5);
  const spread = (quantile(sorted, 0.75) - quantile(sorted, 0.25)) / median;
  const maxOverMin = (sorted.at(-1) ?? median) / (sorted[0] ?? median);
  return {
    node_p50_ms: round(median, 1),
    node_spread: round(spread, 3),
    node_max_over_min: round(maxOverMin, 2),
    load_per_core: round(loadPerCore, 2),
    ...(cpuMs === undefined ? {} : { cpu_ms: round(cpuMs, 1) }),
    noisy: spread > NOISY_SPREAD || loadPerCore > NOISY_LOAD_PER_CORE,
  };
}

/**
 * One run of a fixed CPU workload, in ms: SHA-256 of 4 MiB (native code) and ten JSON round trips of a
 * 2,000-item document (V8's parser, serialiser and collector), what the functions' cold starts spend their
 * time on besides compiling.
 */
export function cpuWorkload(): number {
  const start = process.hrtime.bigint();
  createHash('sha256')
    .update(Buffer.alloc(4 * 1024 * 1024, 7))
    .digest();
  let document: unknown = {
    items: Array.from({ length: 2000 }, (_, i) => ({
      id: `item-${i}`,
      price: i * 1.5,
      tags: ['a', String(i)],
    })),
  };
  for (let i = 0; i < 10; i += 1) document = JSON.parse(JSON.stringify(document));
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** The median of `runs` runs of `cpuWorkload`, after one that warms it up. */
export function measureCpu(runs = 7): number {
  cpuWorkload();
  const samples = Array.from({ length: runs }, () => cpuWorkload()).sort((a, b) => a - b);
  return quantile(samples, 0.5);
}

/**
 * The window the CPUs' busy time is read over. Not the 1-minute load average: at the end of a run it still
 * carries the bench's own last stages (0.6 a core read a minute after the memory stage, on a
 * machine with nothing else running), so it judged the bench's own work as another's.
 */
export const LOAD_WINDOW_MS = 2000;

/** The CPU time counters of /proc/stat's first (`cpu`) line: busy and total, in clock ticks. */
export function cpuTicks(stat: string): { busy: number; total: number } | undefined {
  const line = stat.split('\n').find((l) => l.startsWith('cpu '));
  if (line === undefined) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is counted in user already).
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (fields.length < 5 || fields.some((n) => !Number.isFinite(n))) return undefined;
  const total = fields.reduce((sum, n) => sum + n, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** Busy share of all cores between two readings of cpuTicks (0 when no time passed). */
export function busyShare(before: { busy: number; total: number }, after: { busy: number; total: number }) {
  const total = after.total - before.total;
  return total <= 0 ? 0 : (after.busy - before.busy) / total;
}

/** How busy the CPUs are over LOAD_WINDOW_MS (undefined where /proc/stat cannot be read). */
async function currentLoad(): Promise<number | undefined> {
  const read = () =>
    readFile('/proc/stat', 'utf8').then(
      (text) => cpuTicks(text),
      () => undefined,
    );
  const before = await read();
  if (before === undefined) return undefined;
  await sleep(LOAD_WINDOW_MS);
  const after = await read();
  return after === undefined ? undefined : busyShare(before, after);
}

/** Reads how busy the CPUs are (the bench waiting), then starts `node -e 0` `runs` times. */
export async function measureNoise(runs = 15, cores = availableParallelism()): Promise<NoiseFigures> {
  const load = (await currentLoad()) ?? (loadavg()[0] ?? 0) / cores;
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) samples.push((await timeProcess(['-e', '0'], lambdaEnv())).ms);
  return summariseNoise(samples, load, measureCpu());
}

/**
 * The mark printed after a figure: `ok`, `MISSED`, or, on a noisy machine, `MISSED (may be noise: ...)`
 * naming what was measured, so a reader reruns on a quiet machine before acting on it.
 */
export function verdict(ok: boolean, noise: NoiseFigures | undefined): string {
  if (ok) return 'ok';
  if (!noise?.noisy) return 'MISSED';
  return `MISSED (may be noise: node -e 0 spread ${Math.round(noise.node_spread * 100)} %, load ${noise.load_per_core} per core)`;
}

/** The noisier of two measurements (taken at the start and the end of a run): a run is as noisy as its worst part. */
export function noisier(a: NoiseFigures, b: NoiseFigures): NoiseFigures {
  return {
    node_p50_ms: Math.max(a.node_p50_ms, b.node_p50_ms),
    node_spread: Math.max(a.node_spread, b.node_spread),
    node_max_over_min: Math.max(a.node_max_over_min, b.node_max_over_min),
    load_per_core: Math.max(a.load_per_core, b.load_per_core),
    ...(a.cpu_ms === undefined || b.cpu_ms === undefined ? {} : { cpu_ms: Math.max(a.cpu_ms, b.cpu_ms) }),
    noisy: a.noisy || b.noisy,
  };
}

/** One line saying how quiet the machine was, for the end of the bench's report. */
export function describeNoise(noise: NoiseFigures): string {
  const speed =
    noise.cpu_ms === undefined
      ? ''
      : `; a fixed CPU workload ${noise.cpu_ms} ms (the CPU's speed in a warm process: compare it between runs before their timings)`;
  const what = `node -e 0 median ${noise.node_p50_ms} ms, spread ${Math.round(noise.node_spread * 100)} % (interquartile range / median), slowest / fastest ${noise.node_max_over_min}; load ${noise.load_per_core} per core${speed}`;
  return noise.noisy
    ? `Machine NOISY (${what}): a miss may be noise; rerun on a quiet machine before acting on it.`
    : `Machine quiet enough to judge (${what}).`;
}
