import { getConfig } from '../config/index';
import { sqsAction } from '../jobs/queue';
import { credentialsFor } from '../store/client';
import type { IntegrationEvent } from '../validation/integration';

/**
 * The deliveries queue (docs/webhooks.md#delivery): one message per event and integration. In AWS a standard
 * SQS queue (INTEGRATIONS_QUEUE_URL) read by the delivery function, which sets a failed message's visibility
 * timeout to the retry's delay; locally the harness's in-process queue (local/delivery-queue.ts), registered
 * under LOCAL_DELIVERY_QUEUE, which honours the same delays and the same number of attempts.
 */

/** What a delivery message carries: the event for one integration. The secret is never in it. */
export interface DeliveryMessage {
  store_id: string;
  integration_id: string;
  /** The event's id for this integration: the body's `id`, the same on every attempt, and the job's id. */
  event_id: string;
  trigger: IntegrationEvent;
  /** The body's `payload`: `{data: <resource>}`. */
  payload: { data: Record<string, unknown> };
  created_at: string;
}

/** The local harness's queue: `send` queues a message; `delay` sets when a failed one is handed again. */
export interface LocalDeliveryQueue {
  send(body: string): void;
  delay(receiptHandle: string, ms: number): void;
}

const LOCAL_DELIVERY_QUEUE = Symbol.for('commerce-api.local-delivery-queue');

/** Registers (or, with undefined, removes) the local harness's deliveries queue. */
export function registerLocalDeliveryQueue(queue: LocalDeliveryQueue | undefined): void {
  (globalThis as Record<symbol, LocalDeliveryQueue | undefined>)[LOCAL_DELIVERY_QUEUE] = queue;
}

/** Removes the local harness's deliveries queue if `queue` is the one registered (another may have replaced it). */
export function unregisterLocalDeliveryQueue(queue: LocalDeliveryQueue): void {
  const registry = globalThis as Record<symbol, LocalDeliveryQueue | undefined>;
  if (registry[LOCAL_DELIVERY_QUEUE] === queue) registry[LOCAL_DELIVERY_QUEUE] = undefined;
}

function localQueue(): LocalDeliveryQueue {
  const local = (globalThis as Record<symbol, LocalDeliveryQueue | undefined>)[LOCAL_DELIVERY_QUEUE];
  if (local === undefined) {
    throw new Error('no deliveries queue: set INTEGRATIONS_QUEUE_URL, or run the local harness (npm start)');
  }
  return local;
}

/**
 * Queues a message body another thread or process sent (the local harness's workflow process, which
 * has no queue of its own) on this process's local queue; throws when the harness registered none.
 */
export function sendLocalDelivery(body: string): void {
  localQueue().send(body);
}

/** Sends one delivery message; throws when it was not sent. */
export async function sendDelivery(message: DeliveryMessage): Promise<void> {
  const config = getConfig();
  const body = JSON.stringify(message);
  if (config.integrationsQueueUrl === undefined) {
    localQueue().send(body);
    return;
  }
  await sqsAction(
    config.integrationsQueueUrl,
    'SendMessage',
    { MessageBody: body },
    credentialsFor(config),
    config.region,
  );
}

/** SQS's longest visibility timeout: 12 hours. */
const MAX_VISIBILITY_SECONDS = 43_200;

/** Hands a received message again `ms` from now (its visibility timeout, in whole seconds in AWS). */
export async function delayDelivery(receiptHandle: string, ms: number): Promise<void> {
  const config = getConfig();
  if (config.integrationsQueueUrl === undefined) {
    localQueue().delay(receiptHandle, ms);
    return;
  }
  await sqsAction(
    config.integrationsQueueUrl,
    'ChangeMessageVisibility',
    {
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: Math.min(MAX_VISIBILITY_SECONDS, Math.ceil(ms / 1000)),
    },
    credentialsFor(config),
    config.region,
  );
}
