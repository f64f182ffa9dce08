/** Environment every test worker runs with (the endpoint comes from the global setup). */
export const TEST_ENV = {
  KEYS_TABLE: 'test-keys',
  MAPPINGS_TABLE: 'test-mappings',
  PRODUCTS_TABLE: 'test-products',
  LIMITS_TABLE: 'test-limits',
  LOG_LEVEL: 'silent',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};
