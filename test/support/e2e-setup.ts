import { contractChecked, contractProblems } from './local-api';
import { captureOutput, checkCapture, isServiceLog, scan, tapFetch } from './log-scan';

/**
 * e2e only (jest.config.cjs `setupFilesAfterEnv`; e2e-env.ts set LOG_LEVEL=debug): captures all
 * it writes (stdout, stderr, console) and fails it if any client secret, token or Authorization value
 * seen over HTTP appears there (see log-scan.ts). Our JSON log lines are kept out of the terminal
 * unless E2E_LOGS=1; everything else is written through as usual.
 */

const showLogs = process.env.E2E_LOGS === '1';
const capture = captureOutput((chunk) => showLogs || !isServiceLog(chunk));
const originalFetch = globalThis.fetch;
globalThis.fetch = tapFetch(originalFetch);

afterAll(() => {
  capture.stop();
  // Every request a function answered in-process was also checked against openapi.json.
  if (contractChecked.count < scan.served.length) {
    throw new Error(
      `only ${contractChecked.count} of ${scan.served.length} responses were checked against openapi.json`,
    );
  }
  if (contractProblems.length > 0) {
    throw new Error(
      `responses that break openapi.json (${contractProblems.length}):\n- ${contractProblems.join('\n- ')}`,
    );
  }
  globalThis.fetch = originalFetch;
  const problems = checkCapture(capture.text(), scan);
  if (problems.length > 0) {
    throw new Error(`log scan failed (${problems.length}):\n${problems.map((p) => `- ${p}`).join('\n')}`);
  }
});
