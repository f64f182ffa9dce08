import { TEST_ENV } from './test-env';

// Runs in every test worker before the test file. The global setup put DYNAMODB_ENDPOINT in the
// environment the workers inherit; this adds the test table names and silences logs.
Object.assign(process.env, TEST_ENV);
