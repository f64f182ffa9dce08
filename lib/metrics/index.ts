import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import { METRIC, METRIC_DIMENSIONS, METRICS_NAMESPACE, type MetricName } from './names';

export { METRIC, type MetricName } from './names';

/**
 * Our metrics as CloudWatch embedded-metric-format lines on stdout (Powertools Metrics); CloudWatch
 * turns each line into metrics, no API call. POWERTOOLS_METRICS_DISABLED=true turns it off (tests).
 *
 * Counts are summed in the container and written when an invocation ends (see `metricsPublisher`):
 * at once when the invocation counted anything but catalog cache hits (a refusal, an authentication
 * failure or a cache miss: rare, and on requests that pay a DynamoDB round trip anyway), and for
 * cache hits alone, which every warm catalog request counts, at most once per `HITS_FLUSH_MS`, carrying
 * the sum since the last line. A container that ends between two lines loses at most that long of cache
 * hits, never a refusal or a failure.
 */

/** The longest cache-hit counts wait in a container before a line carries them (CloudWatch's 1-minute resolution). */
export const HITS_FLUSH_MS = 60_000;

/** Created at the first line, so a container whose invocations count nothing never builds it. */
let metrics: Metrics | undefined;
/** Counts not yet written, summed per metric. */
const pending = new Map<MetricName, number>();
/** When this container last wrote a line (undefined: never, so its first counts go out at once). */
let lastFlushMs: number | undefined;

/** Adds `count` to one of our metrics (written when the invocation ends, or later for cache hits). */
export function countMetric(name: MetricName, count = 1): void {
  if (count > 0) pending.set(name, (pending.get(name) ?? 0) + count);
}

/** Writes the pending counts as one line when they are due (see above); returns whether it wrote. */
export function flushMetrics(nowMs = Date.now()): boolean {
  if (pending.size === 0) return false;
  const onlyHits = pending.size === 1 && pending.has(METRIC.catalogCacheHits);
  if (onlyHits && lastFlushMs !== undefined && nowMs - lastFlushMs < HITS_FLUSH_MS) return false;
  metrics ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRIC_DIMENSIONS.service });
  for (const [name, count] of pending) metrics.addMetric(name, MetricUnit.Count, count);
  pending.clear();
  lastFlushMs = nowMs;
  metrics.publishStoredMetrics();
  return true;
}

/** Forgets pending counts and when the last line went out (tests). */
export function resetMetrics(): void {
  pending.clear();
  lastFlushMs = undefined;
}

/** Writes the invocation's counts when due (see `flushMetrics`), answered or failed. */
export function metricsPublisher(): MiddlewareObj {
  const publish = () => {
    flushMetrics();
  };
  return { after: publish, onError: publish };
}
