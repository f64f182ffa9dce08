import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { errorFields, log } from '../http/log';
import { deliverAttempt, retryDelayMs } from './deliver';
import { type DeliveryMessage, delayDelivery } from './queue';

/**
 * The deliveries queue's consumer (docs/webhooks.md#delivery): each record of the batch is one attempt, run
 * side by side; the attempt number is the message's receive count. A record to try again is reported a
 * failure (a partial batch response) after its visibility timeout was set to the retry's delay, so SQS hands
 * it again then, and moves it to the dead-letter queue after MAX_ATTEMPTS receives.
 */
export async function runDeliveries(
  records: Pick<SQSRecord, 'messageId' | 'receiptHandle' | 'body' | 'attributes'>[],
): Promise<SQSBatchResponse> {
  const failures: string[] = [];
  await Promise.all(
    records.map(async (record) => {
      const attempt = Number(record.attributes.ApproximateReceiveCount) || 1;
      try {
        const outcome = await deliverAttempt(parseDeliveryMessage(record.body), attempt);
        if (outcome !== 'retry') return;
      } catch (error) {
        // DynamoDB unavailable, say: the attempt was not made; the message is handed again after the delay.
        log('error', 'integration delivery failed', {
          message_id: record.messageId,
          attempt,
          error: errorFields(error),
        });
      }
      failures.push(record.messageId);
      await delayDelivery(record.receiptHandle, retryDelayMs(attempt)).catch((error: unknown) => {
        // The message is handed again after the queue's own visibility timeout instead.
        log('warn', 'integration delivery delay not set', {
          message_id: record.messageId,
          error: errorFields(error),
        });
      });
    }),
  );
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
}

/** A message as sent (lib/integrations/queue.ts); anything else throws, and ends in the dead letters. */
export function parseDeliveryMessage(body: string): DeliveryMessage {
  const message = JSON.parse(body) as Partial<DeliveryMessage>;
  for (const field of ['store_id', 'integration_id', 'event_id', 'trigger'] as const) {
    if (typeof message[field] !== 'string') throw new Error(`a delivery message without ${field}`);
  }
  if (typeof message.payload !== 'object' || message.payload === null) {
    throw new Error('a delivery message without payload');
  }
  return message as DeliveryMessage;
}
