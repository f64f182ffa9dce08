import { STDIO_WRITER, type StdioWriter } from '../../lib/runtime/stdio';
import { TEST_ENV } from './test-env';

// Runs in every test worker before the test file. The global setup put DYNAMODB_ENDPOINT in the
// environment the workers inherit; this adds the test table names and silences logs.
Object.assign(process.env, TEST_ENV);

// The functions write their lines straight to the process's descriptors unless a host registers a writer
// (lib/runtime/stdio.ts). Tests are such a host: the lines go through process.stdout and process.stderr,
// where the suites that read logs (and the e2e projects' secret scan) capture them. The descriptors' own
// path has its tests (test/unit/stdio.test.ts, test/unit/stdio-process.test.ts).
(globalThis as Record<symbol, unknown>)[STDIO_WRITER] = ((stream, text) =>
  process[stream].write(text)) satisfies StdioWriter;
