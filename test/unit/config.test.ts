import { ConfigError, loadConfig, logLevelFrom } from '../../lib/config/index';

describe('loadConfig', () => {
  it('has working defaults for the local harness', () => {
    expect(loadConfig({})).toEqual({
      dynamodbEndpoint: undefined,
      region: 'us-east-1',
      keysTable: 'commerce-keys',
      mappingsTable: 'commerce-mappings',
      productsTable: 'commerce-products',
      limitsTable: 'commerce-limits',
      tokenTtlSeconds: 3600,
      authCacheSeconds: 2,
      releaseCacheSeconds: 2,
      exportChangeMarginSeconds: 120,
      deriveRangeProducts: 10_000,
      rateLimits: true,
      rateLimitDeadlineMs: 50,
      maxKeysPerStore: 1000,
      documentsBucket: 'commerce-documents',
      s3Endpoint: undefined,
      releaseStateMachineArn: undefined,
      releaseWriters: 4,
      jobsQueueUrl: undefined,
      integrationsQueueUrl: undefined,
      integrationsAllowLoopback: false,
      integrationsDeliveryTimeoutMs: 10_000,
      integrationsRetryBaseMs: 30_000,
      logLevel: 'info',
    });
  });

  it('reads every variable', () => {
    expect(
      loadConfig({
        DYNAMODB_ENDPOINT: 'http://127.0.0.1:8001',
        AWS_REGION: 'eu-west-1',
        KEYS_TABLE: 'k-table',
        MAPPINGS_TABLE: 'm-table',
        PRODUCTS_TABLE: 'p-table',
        LIMITS_TABLE: 'l-table',
        TOKEN_TTL_SECONDS: '600',
        AUTH_CACHE_SECONDS: '0',
        RELEASE_CACHE_SECONDS: '5',
        EXPORT_CHANGE_MARGIN_SECONDS: '30',
        DERIVE_RANGE_PRODUCTS: '200',
        RATE_LIMITS: 'off',
        RATE_LIMIT_DEADLINE_MS: '80',
        MAX_KEYS_PER_STORE: '50',
        DOCUMENTS_BUCKET: 'docs-bucket',
        S3_ENDPOINT: 'http://127.0.0.1:9000',
        RELEASE_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:123456789012:stateMachine:publish',
        RELEASE_WRITERS: '2',
        JOBS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/commerce-jobs.fifo',
        INTEGRATIONS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/commerce-deliveries',
        INTEGRATIONS_ALLOW_LOOPBACK: 'true',
        INTEGRATIONS_DELIVERY_TIMEOUT_MS: '500',
        INTEGRATIONS_RETRY_BASE_MS: '20',
        LOG_LEVEL: 'silent',
      }),
    ).toEqual({
      dynamodbEndpoint: 'http://127.0.0.1:8001',
      region: 'eu-west-1',
      keysTable: 'k-table',
      mappingsTable: 'm-table',
      productsTable: 'p-table',
      limitsTable: 'l-table',
      tokenTtlSeconds: 600,
      authCacheSeconds: 0,
      releaseCacheSeconds: 5,
      exportChangeMarginSeconds: 30,
      deriveRangeProducts: 200,
      rateLimits: false,
      rateLimitDeadlineMs: 80,
      maxKeysPerStore: 50,
      documentsBucket: 'docs-bucket',
      s3Endpoint: 'http://127.0.0.1:9000',
      releaseStateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:publish',
      releaseWriters: 2,
      jobsQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/commerce-jobs.fifo',
      integrationsQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/commerce-deliveries',
      integrationsAllowLoopback: true,
      integrationsDeliveryTimeoutMs: 500,
      integrationsRetryBaseMs: 20,
      logLevel: 'silent',
    });
  });

  it.each([
    [
      { DYNAMODB_ENDPOINT: 'localhost:8000' },
      'DYNAMODB_ENDPOINT must be an http(s) URL, got "localhost:8000"',
    ],
    [{ KEYS_TABLE: 'ab' }, 'KEYS_TABLE must be a DynamoDB table name'],
    [{ TOKEN_TTL_SECONDS: '10' }, 'TOKEN_TTL_SECONDS must be an integer from 60 to 86400, got "10"'],
    [{ AUTH_CACHE_SECONDS: '3' }, 'AUTH_CACHE_SECONDS must be an integer from 0 to 2, got "3"'],
    [{ RELEASE_CACHE_SECONDS: 'soon' }, 'RELEASE_CACHE_SECONDS must be an integer from 0 to 10, got "soon"'],
    [{ RATE_LIMITS: 'false' }, 'RATE_LIMITS must be on or off, got "false"'],
    [
      { JOBS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/jobs' },
      'JOBS_QUEUE_URL must be an SQS FIFO queue URL',
    ],
    [
      { INTEGRATIONS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries.fifo' },
      'INTEGRATIONS_QUEUE_URL must be an SQS standard queue URL',
    ],
    [{ INTEGRATIONS_ALLOW_LOOPBACK: 'yes' }, 'INTEGRATIONS_ALLOW_LOOPBACK must be true or false, got "yes"'],
    [
      { INTEGRATIONS_DELIVERY_TIMEOUT_MS: '10001' },
      'INTEGRATIONS_DELIVERY_TIMEOUT_MS must be an integer from 50 to 10000, got "10001"',
    ],
    [
      { RATE_LIMIT_DEADLINE_MS: '2001' },
      'RATE_LIMIT_DEADLINE_MS must be an integer from 5 to 2000, got "2001"',
    ],
    [{ MAX_KEYS_PER_STORE: '0' }, 'MAX_KEYS_PER_STORE must be an integer from 1 to 10000, got "0"'],
    [{ RELEASE_WRITERS: '0' }, 'RELEASE_WRITERS must be an integer from 1 to 64, got "0"'],
    [{ S3_ENDPOINT: 'localhost:9000' }, 'S3_ENDPOINT must be an http(s) URL, got "localhost:9000"'],
    [{ DOCUMENTS_BUCKET: 'Docs_Bucket' }, 'DOCUMENTS_BUCKET must be an S3 bucket name'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of debug, info, warn, error, silent, got "loud"'],
    [
      { POWERTOOLS_LOG_LEVEL: 'chatty' },
      'POWERTOOLS_LOG_LEVEL must be one of debug, info, warn, error, silent, got "chatty"',
    ],
    [
      { POWERTOOLS_LOG_LEVEL: 'debug', LOG_LEVEL: 'loud' },
      'LOG_LEVEL must be one of debug, info, warn, error, silent, got "loud"',
    ],
  ])('fails at init with a clear message for %p', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('logLevelFrom', () => {
  it.each([
    [{}, 'info'],
    [{ LOG_LEVEL: 'warn' }, 'warn'],
    [{ LOG_LEVEL: 'DEBUG' }, 'debug'],
    [{ LOG_LEVEL: 'silent' }, 'silent'],
    [{ POWERTOOLS_LOG_LEVEL: 'ERROR' }, 'error'],
    [{ POWERTOOLS_LOG_LEVEL: 'debug', LOG_LEVEL: 'error' }, 'debug'],
    [{ POWERTOOLS_LOG_LEVEL: '', LOG_LEVEL: 'error' }, 'error'],
  ])('reads %p as %p (POWERTOOLS_LOG_LEVEL, else LOG_LEVEL, else info)', (env, level) => {
    expect(logLevelFrom(env)).toBe(level);
    expect(loadConfig(env).logLevel).toBe(level);
  });
});
