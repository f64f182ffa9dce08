import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import { METRIC, METRIC_DIMENSIONS, METRICS_NAMESPACE, type MetricName } from './names';

export { METRIC, type MetricName } from './names';

/**
 * Our metrics as CloudWatch embedded-metric-format lines on stdout (Powertools Metrics); CloudWatch
 * turns each line into metrics, no API call. POWERTOOLS_METRICS_DISABLED=true turns it off (tests).
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

/**
 * Loaded and created at the first line, so a container whose invocations count nothing never evaluates the
 * library's modules, let alone builds it (the bundles inline it behind this dynamic import, evaluated on the
 * first call): most first requests (an admin read or write that succeeds) count nothing.
 */
let metrics: Promise<Metrics> | undefined;
/** Counts not yet written, summed per metric. */
const pending = new Map<MetricName, number>();
/** When this container last wrote a line (undefined: never, so its first counts go out at once). */
let lastFlushMs: number | undefined;

/** Adds `count` to one of our metrics (written when the invocation ends, or later for cache hits). */
export function countMetric(name: MetricName, count = 1): void {
  if (count > 0) pending.set(name, (pending.get(name) ?? 0) + count);
}

/** Writes the pending counts as one line when they are due (see above); resolves to whether it wrote. */
export async function flushMetrics(nowMs = Date.now()): Promise<boolean> {
  if (pending.size === 0) return false;
  if (lastFlushMs !== undefined && nowMs - lastFlushMs < deferFor()) return false;
  // Taken now: counts added while the library loads go out with the next line.
  const counts = [...pending];
  pending.clear();
  lastFlushMs = nowMs;
  metrics ??= import('@aws-lambda-powertools/metrics').then(
    ({ Metrics }) => new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRIC_DIMENSIONS.service }),
  );
  const emf = await metrics;
  for (const [name, count] of counts) emf.addMetric(name, 'Count', count);
  emf.publishStoredMetrics();
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
