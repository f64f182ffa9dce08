import type { Context, SQSEvent } from 'aws-lambda';
import { getConfig } from '../../lib/config/index';
import { parseJobMessage, runJob } from '../../lib/jobs/worker';

/**
 * The job worker (docs/jobs.md): the jobs queue's consumer, one message a call (the event source mapping's
 * batch size is 1). It runs the job the message names; an error leaves the message to the queue, which
 * hands it again (to the dead-letter queue after MAX_RECEIVES), and the store's later jobs wait behind it.
 */
getConfig();

export async function handler(event: SQSEvent, context: Context): Promise<void> {
  for (const record of event.Records) {
    await runJob(parseJobMessage(record.body), Number(record.attributes.ApproximateReceiveCount) || 1, {
      requestId: context.awsRequestId,
      remainingMs: () => context.getRemainingTimeInMillis(),
    });
  }
}
