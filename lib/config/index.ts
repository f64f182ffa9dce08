/** Service configuration, read from the environment once per container and checked at init. */
export interface Config {
  /** DynamoDB endpoint override (DynamoDB Local); undefined means AWS. */
  dynamodbEndpoint: string | undefined;
  region: string;
  keysTable: string;
  mappingsTable: string;
  productsTable: string;
  /** Rate-limit windows and failed-credential counters (items expire through TTL). */
  limitsTable: string;
  /** Lifetime of an issued access token, in seconds. */
  tokenTtlSeconds: number;
  /** How long a container may reuse a validated token before reading it again (<= 2 s). */
  authCacheSeconds: number;
  /** How long a container may reuse a catalog's current release id before reading it again. */
  releaseCacheSeconds: number;
  /**
   * EXPORT_CHANGE_MARGIN_SECONDS (default 120, 0-3600): how far before the release before's export began an
   * authored export reads the store's change log. A write's log item is stamped when the DynamoDB client
   * first sends it, and its retries (4 attempts of up to 10 s, with backoff) resend the same stamp, so a
   * write that commits after that export read its product is stamped less than this before the export
   * began (lib/catalog/pipeline/export-splice.ts). Tests that write and publish at once set 0.
   */
  exportChangeMarginSeconds: number;
  /**
   * DERIVE_RANGE_PRODUCTS (default 10,000, 100-50,000): about how many products a range of the publishing
   * workflow's derivation holds (lib/catalog/derive-stream.ts `DERIVE_RANGE_PRODUCTS`; a range also ends at
   * DERIVE_RANGE_BYTES). Smaller ranges are more derivations at once in AWS, and less derived again when a
   * publish changes few products (only the ranges holding a change are derived); tests set it low to publish
   * small catalogs in several ranges.
   */
  deriveRangeProducts: number;
  /**
   * RATE_LIMITS (`on`, the default, or `off`): `off` admits every request without counting it, an
   * emergency switch (docs/rate-limits.md) that the benchmark also uses to time the limiter's overhead.
   */
  rateLimits: boolean;
  /**
   * RATE_LIMIT_DEADLINE_MS (default 50, 5-2000): how long a request waits for any of the limiter's
   * DynamoDB calls before it is admitted (failing open) while the call goes on in the background.
   */
  rateLimitDeadlineMs: number;
  /**
   * MAX_KEYS_PER_STORE (default 1000, 1-10000): the most application keys a store may hold; creating
   * one more answers 409. It bounds what a key listing (and its `name` filter) reads.
   */
  maxKeysPerStore: number;
  /** DOCUMENTS_BUCKET: the S3 bucket holding catalog release documents and the publishing workflow's files. */
  documentsBucket: string;
  /** S3_ENDPOINT: an S3-compatible endpoint (the local object store); undefined means AWS. */
  s3Endpoint: string | undefined;
  /**
   * RELEASE_STATE_MACHINE_ARN: the publishing workflow (AWS Step Functions) a new release starts; undefined
   * locally, where the harness runs the workflow's steps in process (lib/catalog/pipeline/run-local.ts).
   */
  releaseStateMachineArn: string | undefined;
  /**
   * RELEASE_WRITERS (default 4, 1-64): the local harness's write steps at once, as the Distributed Map's
   * MaxConcurrency is in AWS (the bench compares 1, 2 and 4).
   */
  releaseWriters: number;
  /**
   * JOBS_QUEUE_URL: the SQS FIFO queue jobs are sent to (lib/jobs/queue.ts); undefined locally, where the
   * harness runs each job in process, a store's jobs one at a time (local/job-queue.ts).
   */
  jobsQueueUrl: string | undefined;
  /**
   * INTEGRATIONS_QUEUE_URL: the SQS queue webhook deliveries are sent to (lib/integrations/queue.ts);
   * undefined locally, where the harness delivers them in process (local/delivery-queue.ts).
   */
  integrationsQueueUrl: string | undefined;
  /**
   * INTEGRATIONS_ALLOW_LOOPBACK (`true` or unset): webhooks may point at loopback addresses. Only the local
   * harness sets it, so tests can listen on 127.0.0.1; the stack never does (docs/webhooks.md).
   */
  integrationsAllowLoopback: boolean;
  /** INTEGRATIONS_DELIVERY_TIMEOUT_MS (default 10000, 50-10000): a webhook's time to answer; lower in tests only. */
  integrationsDeliveryTimeoutMs: number;
  /** INTEGRATIONS_RETRY_BASE_MS (default 30000, 1-30000): the first retry's delay, doubled after each; lower in tests only. */
  integrationsRetryBaseMs: number;
  /** POWERTOOLS_LOG_LEVEL, else LOG_LEVEL, else `info` (see {@link logLevelFrom}). */
  logLevel: LogLevel;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/**
 * The log level: POWERTOOLS_LOG_LEVEL when set, else LOG_LEVEL, else `info` (Powertools' own order, so
 * either name works; case-insensitive, so `DEBUG` works too). Both are checked when set. In Lambda, a
 * function-level log level (Advanced Logging Controls, AWS_LAMBDA_LOG_LEVEL) is applied on top by the
 * logger (lib/http/log.ts): it never logs below it.
 */
export function logLevelFrom(env: NodeJS.ProcessEnv = process.env): LogLevel {
  let level: LogLevel | undefined;
  for (const name of ['POWERTOOLS_LOG_LEVEL', 'LOG_LEVEL']) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = raw.toLowerCase() as LogLevel;
    if (!LOG_LEVELS.includes(value)) {
      throw new ConfigError(`${name} must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
    }
    level ??= value;
  }
  return level ?? 'info';
}

function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function tableName(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name] || fallback;
  if (!/^[A-Za-z0-9_.-]{3,255}$/.test(value)) {
    throw new ConfigError(
      `${name} must be a DynamoDB table name (3-255 of A-Z a-z 0-9 _ . -), got "${value}"`,
    );
  }
  return value;
}

/** Parses and checks configuration; throws ConfigError with a clear message on bad values. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const endpoint = env.DYNAMODB_ENDPOINT || undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^\s/]+/.test(endpoint)) {
    throw new ConfigError(`DYNAMODB_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
  }
  const logLevel = logLevelFrom(env);
  const rateLimits = env.RATE_LIMITS || 'on';
  if (rateLimits !== 'on' && rateLimits !== 'off') {
    throw new ConfigError(`RATE_LIMITS must be on or off, got "${rateLimits}"`);
  }
  const s3Endpoint = env.S3_ENDPOINT || undefined;
  if (s3Endpoint !== undefined && !/^https?:\/\/[^\s/]+/.test(s3Endpoint)) {
    throw new ConfigError(`S3_ENDPOINT must be an http(s) URL, got "${s3Endpoint}"`);
  }
  const documentsBucket = env.DOCUMENTS_BUCKET || 'commerce-documents';
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(documentsBucket)) {
    throw new ConfigError(
      `DOCUMENTS_BUCKET must be an S3 bucket name (3-63 of a-z 0-9 . -), got "${documentsBucket}"`,
    );
  }
  const jobsQueueUrl = env.JOBS_QUEUE_URL || undefined;
  if (jobsQueueUrl !== undefined && !/^https:\/\/[^\s/]+\/\d+\/[A-Za-z0-9_-]+\.fifo$/.test(jobsQueueUrl)) {
    throw new ConfigError(
      `JOBS_QUEUE_URL must be an SQS FIFO queue URL (https://…/<account>/<name>.fifo), got "${jobsQueueUrl}"`,
    );
  }
  const integrationsQueueUrl = env.INTEGRATIONS_QUEUE_URL || undefined;
  if (
    integrationsQueueUrl !== undefined &&
    !/^https:\/\/[^\s/]+\/\d+\/[A-Za-z0-9_-]+$/.test(integrationsQueueUrl)
  ) {
    throw new ConfigError(
      `INTEGRATIONS_QUEUE_URL must be an SQS standard queue URL (https://…/<account>/<name>), got "${integrationsQueueUrl}"`,
    );
  }
  const allowLoopback = env.INTEGRATIONS_ALLOW_LOOPBACK || 'false';
  if (allowLoopback !== 'true' && allowLoopback !== 'false') {
    throw new ConfigError(`INTEGRATIONS_ALLOW_LOOPBACK must be true or false, got "${allowLoopback}"`);
  }
  return {
    dynamodbEndpoint: endpoint,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    keysTable: tableName(env, 'KEYS_TABLE', 'commerce-keys'),
    mappingsTable: tableName(env, 'MAPPINGS_TABLE', 'commerce-mappings'),
    productsTable: tableName(env, 'PRODUCTS_TABLE', 'commerce-products'),
    limitsTable: tableName(env, 'LIMITS_TABLE', 'commerce-limits'),
    tokenTtlSeconds: intFrom(env, 'TOKEN_TTL_SECONDS', 3600, 60, 86400),
    authCacheSeconds: intFrom(env, 'AUTH_CACHE_SECONDS', 2, 0, 2),
    releaseCacheSeconds: intFrom(env, 'RELEASE_CACHE_SECONDS', 2, 0, 10),
    exportChangeMarginSeconds: intFrom(env, 'EXPORT_CHANGE_MARGIN_SECONDS', 120, 0, 3600),
    deriveRangeProducts: intFrom(env, 'DERIVE_RANGE_PRODUCTS', 10_000, 100, 50_000),
    rateLimits: rateLimits === 'on',
    rateLimitDeadlineMs: intFrom(env, 'RATE_LIMIT_DEADLINE_MS', 50, 5, 2000),
    maxKeysPerStore: intFrom(env, 'MAX_KEYS_PER_STORE', 1000, 1, 10000),
    documentsBucket,
    s3Endpoint,
    releaseStateMachineArn: env.RELEASE_STATE_MACHINE_ARN || undefined,
    releaseWriters: intFrom(env, 'RELEASE_WRITERS', 4, 1, 64),
    jobsQueueUrl,
    integrationsQueueUrl,
    integrationsAllowLoopback: allowLoopback === 'true',
    integrationsDeliveryTimeoutMs: intFrom(env, 'INTEGRATIONS_DELIVERY_TIMEOUT_MS', 10_000, 50, 10_000),
    integrationsRetryBaseMs: intFrom(env, 'INTEGRATIONS_RETRY_BASE_MS', 30_000, 1, 30_000),
    logLevel,
  };
}

let cached: Config | undefined;

/** The container's configuration, loaded on first use and reused afterwards. */
export function getConfig(): Config {
  cached ??= loadConfig();
  return cached;
}

/** Forgets the loaded configuration (tests and the local harness change the environment). */
export function resetConfig(): void {
  cached = undefined;
}
