import { startTemplateQueues, type TemplateQueue } from '../../local/template/jobs';
import type { FunctionRuntime } from '../../local/template/runtime';

/**
 * The template's standard queue as the template-driven server runs it (local/template/jobs.ts): its
 * consumer's answer names the records to hand again only when the event source mapping reports batch item
 * failures, as Lambda reads it; a failed receive comes back after the queue's visibility timeout.
 */

const queue = (reportsBatchItemFailures: boolean): TemplateQueue => ({
  logicalId: 'Deliveries',
  fifo: false,
  consumer: 'deliver',
  maxReceives: 3,
  visibilityMs: 10,
  reportsBatchItemFailures,
  senders: ['emitter', 'deliver'],
});

/** Runs one message through a consumer that reports its record failed: the receives it got. */
async function receivesOf(reportsBatchItemFailures: boolean): Promise<number[]> {
  const receives: number[] = [];
  const consumer = {
    invokeWith: async (event: { Records: { messageId: string; attributes: Record<string, string> }[] }) => {
      const record = event.Records[0];
      receives.push(Number(record?.attributes.ApproximateReceiveCount));
      return { batchItemFailures: [{ itemIdentifier: record?.messageId }] };
    },
  } as unknown as FunctionRuntime;
  const running = startTemplateQueues(
    new Map([['Deliveries', queue(reportsBatchItemFailures)]]),
    () => consumer,
  );
  const deliveries = running.deliveries.get('emitter');
  expect(running.deliveries.get('deliver')).toBe(deliveries);
  expect(running.jobs.size).toBe(0);
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    deliveries?.send('{"event":1}');
    await deliveries?.idle();
  } finally {
    stderr.mockRestore();
    await running.stop();
  }
  return receives;
}

it('hands a record its consumer reports failed again, up to maxReceiveCount, with ReportBatchItemFailures', async () => {
  expect(await receivesOf(true)).toEqual([1, 2, 3]);
});

it('reads no failures from the answer without ReportBatchItemFailures: the batch succeeded', async () => {
  expect(await receivesOf(false)).toEqual([1]);
});
