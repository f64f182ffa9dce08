import type { MiddlewareObj } from '@middy/core';
import { writeOut } from '../runtime/stdio';
import { METRIC, METRIC_DIMENSIONS, METRICS_NAMESPACE, type MetricName } from './names';

export { METRIC, type MetricName } from './names';

/**
 * Our metrics as CloudWatch embedded-metric-format lines on stdout; CloudWatch turns each line into
 * metrics, no API call. The lines are those Powertools Metrics wrote (same envelope, keys and order; see
 * `emfLine`), written here: the library cost every bundle about 15 KiB and a catalog read's first response 2 ms
 * to load it (docs/performance.md). POWERTOOLS_METRICS_DISABLED=true turns them off (tests), and, when it
 * is not set, a truthy POWERTOOLS_DEV does, as with the library.
 *
 * Counts are summed in the container and written when an invocation ends (see `metricsPublisher`):
 * at once when the invocation counted an authentication failure or a cache miss (rare, and on requests
 * that pay a DynamoDB round trip anyway); rate-limit refusals, which a flood counts by the thousand, at
 * most once per `REFUSALS_FLUSH_MS`; and cache hits alone, which every warm catalog request counts, at
 * most once per `HITS_FLUSH_MS`; each line carries the sums since the last one. A container that ends
 * between two lines loses at most a second of refusals and a minute of cache hits, never a failure.
 */

/** The longest cache-hit counts wait in a container before a line carries them (CloudWatch's 1-minute resolution). */
export const HITS_FLUSH_MS = 60_000;
/** The longest refusal counts wait: a flood of 429s writes one metric line a second, not one per 429. */
export const REFUSALS_FLUSH_MS = 1000;

/** Counts not yet written, summed per metric. */
const pending = new Map<MetricName, number>();
/** When this container last wrote a line (undefined: never, so its first counts go out at once). */
let lastFlushMs: number | undefined;

/** Whether lines are off: POWERTOOLS_METRICS_DISABLED when set, else POWERTOOLS_DEV (read at each line). */
function disabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const truthy = (value: string) => ['1', 'y', 'yes', 't', 'true', 'on'].includes(value.trim().toLowerCase());
  const switched = env.POWERTOOLS_METRICS_DISABLED;
  if (switched !== undefined) return truthy(switched);
  return env.POWERTOOLS_DEV !== undefined && truthy(env.POWERTOOLS_DEV);
}

/**
 * One EMF line: the `_aws` envelope (time, namespace, the `service` dimension, each metric's name and unit
 * `Count`), then the dimension's value, then each metric's value, as Powertools Metrics serialized them.
 */
export function emfLine(counts: readonly [MetricName, number][], nowMs: number): string {
  const values: Record<string, number> = {};
  for (const [name, count] of counts) values[name] = count;
  return JSON.stringify({
    _aws: {
      Timestamp: nowMs,
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [Object.keys(METRIC_DIMENSIONS)],
          Metrics: counts.map(([name]) => ({ Name: name, Unit: 'Count' })),
        },
      ],
    },
    ...METRIC_DIMENSIONS,
    ...values,
  });
}

/** Adds `count` to one of our metrics (written when the invocation ends, or later for cache hits). */
export function countMetric(name: MetricName, count = 1): void {
  if (count > 0) pending.set(name, (pending.get(name) ?? 0) + count);
}

/** Writes the pending counts as one line when they are due (see above); resolves to whether it wrote. */
export async function flushMetrics(nowMs = Date.now()): Promise<boolean> {
  if (pending.size === 0) return false;
  if (lastFlushMs !== undefined && nowMs - lastFlushMs < deferFor()) return false;
  const counts = [...pending];
  pending.clear();
  lastFlushMs = nowMs;
  if (!disabled()) writeOut('stdout', `${emfLine(counts, nowMs)}\n`);
  return true;
}

/** How long the pending counts may wait after the last line: 0 when one of them may not wait. */
function deferFor(): number {
  let wait = HITS_FLUSH_MS;
  for (const name of pending.keys()) {
    if (name === METRIC.rateLimitedRequests) wait = Math.min(wait, REFUSALS_FLUSH_MS);
    else if (name !== METRIC.catalogCacheHits) return 0;
  }
  return wait;
}

/** Forgets pending counts and when the last line went out (tests). */
export function resetMetrics(): void {
  pending.clear();
  lastFlushMs = undefined;
}

/** Writes the invocation's counts when due (see `flushMetrics`), answered or failed. */
export function metricsPublisher(): MiddlewareObj {
  const publish = async () => {
    await flushMetrics();
  };
  return { after: publish, onError: publish };
}
