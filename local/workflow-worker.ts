import { parentPort, workerData } from 'node:worker_threads';
import { runWorkflowLocally } from '../lib/catalog/pipeline/run-local';
import type { ReleaseExecutionInput } from '../lib/catalog/pipeline/workflow';
import { getConfig } from '../lib/config/index';
import { registerLocalDeliveryQueue } from '../lib/integrations/queue';
import type { WorkflowThreadMessage } from './workflow-thread';

/**
 * A release's publishing workflow in a worker thread (local/workflow-thread.ts starts it through
 * workflow-worker.mjs): the steps as the local harness runs them, their heap bounded by the thread's
 * resource limits. The webhook events the steps emit go to the starting thread's deliveries queue (this
 * thread only sends them: deliveries run where the queue is); then the release's end state.
 */
const post = (message: WorkflowThreadMessage) => parentPort?.postMessage(message);
registerLocalDeliveryQueue({
  send: (body) => post({ delivery: body }),
  delay: () => {
    throw new Error(
      "the workflow's thread sends webhook events; deliveries run in the thread that started it",
    );
  },
});
const input = workerData as ReleaseExecutionInput;
runWorkflowLocally(input, { concurrency: getConfig().releaseWriters }).then(
  (state) => post({ state }),
  (error: unknown) => {
    throw error;
  },
);
