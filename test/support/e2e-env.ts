// e2e only, after env.ts and before anything imports the logger: everything that could be logged is
// (test/support/e2e-setup.ts captures it and scans it for secrets), one JSON line per entry, as in Lambda.
process.env.LOG_LEVEL = 'debug';
for (const name of [
  'POWERTOOLS_METRICS_DISABLED',
  'POWERTOOLS_LOG_LEVEL',
  'AWS_LAMBDA_LOG_LEVEL',
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_DEV',
]) {
  delete process.env[name];
}
