import type { Context } from 'aws-lambda';
import { JOB_WORKER, MAX_RECEIVES } from '../functions/jobs';
import { registerLocalJobQueue, unregisterLocalJobQueue } from '../lib/jobs/queue';
import { createLambdaContext } from './http-event';
import { LocalJobQueue, type LocalSqsEvent } from './job-queue';
import { loadHandler } from './router';

/**
 * The jobs queue of `npm start` and the tests: jobs the API's handlers enqueue (no JOBS_QUEUE_URL) run
 * through the job worker's own handler (functions/job-run/handler.ts), in this process, a store's jobs one
 * at a time in creation order, a failed delivery retried up to the queue's MAX_RECEIVES.
 */
export function startLocalJobs(): { queue: LocalJobQueue; stop: () => Promise<void> } {
  const queue = new LocalJobQueue(
    async (event: LocalSqsEvent) => {
      const handler = (await loadHandler(JOB_WORKER.name)) as unknown as (
        event: LocalSqsEvent,
        context: Context,
      ) => Promise<void>;
      const context = createLambdaContext(JOB_WORKER.name);
      const deadline = Date.now() + JOB_WORKER.timeoutSeconds * 1000;
      await handler(event, {
        ...context,
        getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      });
    },
    { maxReceives: MAX_RECEIVES },
  );
  const send = (message: Parameters<LocalJobQueue['send']>[0]) => queue.send(message);
  registerLocalJobQueue(send);
  return {
    queue,
    /** Closes the queue (LocalJobQueue.close) and unregisters it, unless another has replaced it. */
    async stop() {
      unregisterLocalJobQueue(send);
      await queue.close();
    },
  };
}
