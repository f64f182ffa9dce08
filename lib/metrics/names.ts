/**
 * Our own CloudWatch metrics (embedded metric format, namespace METRICS_NAMESPACE, one dimension
 * `service`): what the functions emit and the stack's alarms and dashboard read. No dependencies, so the
 * CDK app can import it without loading the metrics library.
 */
export const METRICS_NAMESPACE = 'CommerceApi';

export const METRIC = {
  /** A request refused with 429 by a store's rate limit. */
  rateLimitedRequests: 'RateLimitedRequests',
  /** A bearer token or client credentials that did not authenticate (401). */
  authenticationFailures: 'AuthenticationFailures',
  /** Catalog items (products, child-index chunks) served from a container's cache ... */
  catalogCacheHits: 'CatalogCacheHits',
  /** ... and those read from DynamoDB: hits / (hits + misses) is the cache hit ratio. */
  catalogCacheMisses: 'CatalogCacheMisses',
  /** A job written but whose queue message could not be sent (lib/jobs/service.ts `enqueueJob`). */
  jobsNotQueued: 'JobsNotQueued',
  /** An event whose delivery message could not be sent (lib/integrations/events.ts). */
  integrationEventsNotQueued: 'IntegrationEventsNotQueued',
  /** A webhook delivery attempt that the endpoint accepted (2xx) ... */
  integrationDeliveries: 'IntegrationDeliveries',
  /** ... and one that failed (non-2xx, network error, timeout, refused address); it is retried. */
  integrationDeliveryFailures: 'IntegrationDeliveryFailures',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** The dimension every metric carries (Powertools' default `service` dimension). */
export const METRIC_DIMENSIONS = { service: 'commerce-api' } as const;
