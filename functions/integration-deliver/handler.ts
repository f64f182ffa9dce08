import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { getConfig } from '../../lib/config/index';
import { runDeliveries } from '../../lib/integrations/worker';

/**
 * The webhook delivery function (docs/webhooks.md#delivery): the deliveries queue's consumer. Each record is
 * one attempt; those to retry come back as batch item failures, their visibility set to the retry's delay.
 */
getConfig();

export function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return runDeliveries(event.Records);
}
