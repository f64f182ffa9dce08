import { parentPort, workerData } from 'node:worker_threads';
import { runWorkflowLocally } from '../lib/catalog/pipeline/run-local';
import type { ReleaseExecutionInput } from '../lib/catalog/pipeline/workflow';

/**
 * A release's publishing workflow in a worker thread (local/workflow-thread.ts starts it through workflow-worker.mjs): the steps as the
 * local harness runs them, their heap bounded by the thread's resource limits. Posts the release's end state.
 */
const input = workerData as ReleaseExecutionInput;
runWorkflowLocally(input).then(
  (state) => parentPort?.postMessage(state),
  (error: unknown) => {
    throw error;
  },
);
