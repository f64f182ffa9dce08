import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import { METRIC_DIMENSIONS, METRICS_NAMESPACE, type MetricName } from './names';

export { METRIC, type MetricName } from './names';

/**
 * The container's metrics buffer (Powertools Metrics). Counts added during an invocation are written as
 * one CloudWatch embedded-metric-format line on stdout when it ends (see `metricsPublisher`); CloudWatch
 * turns that line into metrics, no API call. POWERTOOLS_METRICS_DISABLED=true turns it off (tests).
 */
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRIC_DIMENSIONS.service });

/** Adds `count` to one of our metrics for the current invocation. */
export function countMetric(name: MetricName, count = 1): void {
  if (count > 0) metrics.addMetric(name, MetricUnit.Count, count);
}

/** Writes the invocation's metrics, if any, as one EMF line when it ends (answered or failed). */
export function metricsPublisher(): MiddlewareObj {
  const publish = () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return { after: publish, onError: publish };
}
