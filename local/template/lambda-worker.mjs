// One Lambda execution environment of the template-driven local API (local/template/runtime.ts): a
// worker thread with the function's own environment variables, which imports the function's bundled
// code from cdk.out once (the cold start) and then answers one message per invocation. Plain JavaScript:
// it runs on Node alone, as the bundle does in Lambda, whatever loader (tsx, jest) started the parent.
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

const { file, exportName, functionName, memoryMb, timeoutMs, workflow, jobs, deliveries } = workerData;

// Log lines travel on the same channel as the results, so the parent writes an invocation's logs before
// it answers the request (a worker's own stdout stream could deliver them after). The functions write their
// own lines to the writer registered under this name (lib/runtime/stdio.ts), not to the descriptors a
// worker shares with the whole process; anything else written to the streams goes the same way.
const toParent = (stream, text) => parentPort.postMessage({ stream, text });
globalThis[Symbol.for('commerce-api.stdio')] = toParent;
for (const stream of ['stdout', 'stderr']) {
  process[stream].write = (chunk, encoding, callback) => {
    toParent(stream, typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    (typeof encoding === 'function' ? encoding : callback)?.();
    return true;
  };
}
// A function that starts the publishing workflow, run without a state machine ARN, hands the execution's
// input to the runner the harness registered under this name (lib/catalog/pipeline/start.ts): here, a
// message to the parent, which runs the template's state machine over the step functions' bundles
// (local/template/state-machine.ts). The function's answer does not wait for it, as StartExecution does not.
if (workflow) {
  globalThis[Symbol.for('commerce-api.local-workflow')] = async (input) => {
    parentPort.postMessage({ workflow: input });
  };
}
// A function that enqueues jobs, run without a queue URL, hands each message to the queue the harness
// registered under this name (lib/jobs/queue.ts): here, a message to the parent, which queues it for the
// queue's consumer (local/template/jobs.ts). The function's answer does not wait for it, as SendMessage does not.
if (jobs) {
  globalThis[Symbol.for('commerce-api.local-job-queue')] = (message) => {
    parentPort.postMessage({ job: message });
  };
}
// A function that emits webhook events, run without a deliveries queue URL, hands each message to the queue
// the harness registered under this name (lib/integrations/queue.ts): here, a message to the parent, which
// queues it (local/delivery-queue.ts). The delivery function sets a failed receive's delay the same way: on
// the channel of its result, so the parent's queue has the delay before the receive ends.
if (deliveries) {
  globalThis[Symbol.for('commerce-api.local-delivery-queue')] = {
    send: (body) => parentPort.postMessage({ delivery: { body } }),
    delay: (receiptHandle, ms) => parentPort.postMessage({ delivery: { receiptHandle, ms } }),
  };
}
const module = await import(pathToFileURL(file).href);
const handler = module[exportName];
if (typeof handler !== 'function') {
  throw new Error(`${file} does not export a function named "${exportName}"`);
}

parentPort.on('message', async ({ id, event, requestId }) => {
  const deadline = Date.now() + timeoutMs;
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:123456789012:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    parentPort.postMessage({ id, result: await handler(event, context) });
  } catch (error) {
    parentPort.postMessage({
      id,
      error: { name: error?.name ?? 'Error', message: error?.message ?? String(error), stack: error?.stack },
    });
  }
});
parentPort.postMessage({ ready: true });
