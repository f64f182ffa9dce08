import type { SQSEvent } from 'aws-lambda';
import { DELIVERY_WORKER, MAX_ATTEMPTS } from '../functions/integrations';
import { registerLocalDeliveryQueue } from '../lib/integrations/queue';
import {
  type LocalBatchResponse,
  LocalDeliveryQueue,
  type LocalDeliveryQueueOptions,
} from './delivery-queue';
import { loadHandler } from './router';

/**
 * The deliveries queue's settings in the stack (infra/integrations.ts): MAX_ATTEMPTS receives, and its
 * visibility timeout (longer than the delivery function's) when the function itself failed.
 */
export const DELIVERY_QUEUE_OPTIONS: LocalDeliveryQueueOptions = {
  maxReceives: MAX_ATTEMPTS,
  visibilityMs: (DELIVERY_WORKER.timeoutSeconds + 30) * 1000,
};

/**
 * The webhook deliveries of `npm start` and the tests: events the API's handlers and the workflow's steps
 * emit (no INTEGRATIONS_QUEUE_URL) are delivered through the delivery function's own handler
 * (functions/integration-deliver/handler.ts), in this process but off the request path, each failed attempt
 * handed again after the delay the handler set, at most MAX_ATTEMPTS times.
 */
export function startLocalDeliveries(): LocalDeliveryQueue {
  const queue = new LocalDeliveryQueue(async (event) => {
    const handler = (await loadHandler(DELIVERY_WORKER.name)) as unknown as (
      event: SQSEvent,
    ) => Promise<LocalBatchResponse>;
    return handler(event as unknown as SQSEvent);
  }, DELIVERY_QUEUE_OPTIONS);
  registerLocalDeliveryQueue(queue);
  return queue;
}
