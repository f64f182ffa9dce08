/** Environment every test worker runs with (the endpoints come from the global setup). */
export const TEST_ENV = {
  KEYS_TABLE: 'test-keys',
  MAPPINGS_TABLE: 'test-mappings',
  PRODUCTS_TABLE: 'test-products',
  LIMITS_TABLE: 'test-limits',
  // The documents bucket on the run's local object store (S3_ENDPOINT, from the global setup).
  DOCUMENTS_BUCKET: 'test-documents',
  LOG_LEVEL: 'silent',
  // Tests listen for webhooks on 127.0.0.1, as the local harness allows (docs/webhooks.md).
  INTEGRATIONS_ALLOW_LOOPBACK: 'true',
  // DynamoDB Local on a test machine shared by parallel builds often answers well beyond production's
  // 50 ms limiter deadline; the deadline's own tests set theirs explicitly.
  RATE_LIMIT_DEADLINE_MS: '1000',
  // No EMF lines in test output; the e2e projects turn them back on (test/support/e2e-env.ts).
  POWERTOOLS_METRICS_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};
