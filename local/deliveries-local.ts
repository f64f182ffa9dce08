import type { SQSEvent } from 'aws-lambda';
import { DELIVERY_WORKER, MAX_ATTEMPTS } from '../functions/integrations';
import { registerLocalDeliveryQueue } from '../lib/integrations/queue';
import { LocalDeliveryQueue } from './delivery-queue';
import { loadHandler } from './router';

/**
 * The webhook deliveries of `npm start` and the tests: events the API's handlers and the workflow's steps
 * emit (no INTEGRATIONS_QUEUE_URL) are delivered through the delivery function's own handler
 * (functions/integration-deliver/handler.ts), in this process but off the request path, each failed attempt
 * handed again after the delay the handler set, at most MAX_ATTEMPTS times.
 */
export function startLocalDeliveries(): LocalDeliveryQueue {
  const queue = new LocalDeliveryQueue(
    async (event) => {
      const handler = (await loadHandler(DELIVERY_WORKER.name)) as unknown as (
        event: SQSEvent,
      ) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;
      return handler(event as unknown as SQSEvent);
    },
    { maxReceives: MAX_ATTEMPTS, visibilityMs: (DELIVERY_WORKER.timeoutSeconds + 30) * 1000 },
  );
  registerLocalDeliveryQueue(queue);
  return queue;
}
