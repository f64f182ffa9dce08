import { LocalDeliveryQueue } from '../../local/delivery-queue';
import type { LocalSqsEvent } from '../../local/job-queue';

/**
 * The local deliveries queue (local/delivery-queue.ts), as SQS with a Lambda consumer reporting batch item
 * failures: a reported failure comes back after the delay its consumer set (else the visibility timeout),
 * with the next receive count, until `maxReceives`; then it is set aside as a dead letter.
 */

type Receipt = { body: string; receive: number; at: number };

function queueOf(outcomes: ('ok' | 'fail' | 'throw')[], delayMs?: number, maxReceives = 3) {
  const receipts: Receipt[] = [];
  const started = Date.now();
  let queue: LocalDeliveryQueue;
  queue = new LocalDeliveryQueue(
    async (event: LocalSqsEvent) => {
      const record = event.Records[0];
      if (!record) throw new Error('no record');
      receipts.push({
        body: record.body,
        receive: Number(record.attributes.ApproximateReceiveCount),
        at: Date.now() - started,
      });
      const outcome = outcomes.shift() ?? 'ok';
      if (outcome === 'throw') throw new Error('crashed');
      if (outcome === 'ok') return { batchItemFailures: [] };
      if (delayMs !== undefined) queue.delay(record.receiptHandle, delayMs);
      return { batchItemFailures: [{ itemIdentifier: record.messageId }] };
    },
    { maxReceives, visibilityMs: 200, onDeadLetter: () => undefined },
  );
  return { queue, receipts };
}

it('hands a message once when its consumer reports no failure', async () => {
  const { queue, receipts } = queueOf(['ok']);
  queue.send('one');
  await queue.idle();
  expect(receipts.map((r) => [r.body, r.receive])).toEqual([['one', 1]]);
  expect(queue.deadLetters).toEqual([]);
});

it('hands a failed message again after the delay its consumer set, counting receives', async () => {
  const { queue, receipts } = queueOf(['fail', 'fail', 'ok'], 30);
  queue.send('retried');
  await queue.idle();
  expect(receipts.map((r) => r.receive)).toEqual([1, 2, 3]);
  expect((receipts[1]?.at ?? 0) - (receipts[0]?.at ?? 0)).toBeGreaterThanOrEqual(25);
  expect((receipts[1]?.at ?? 0) - (receipts[0]?.at ?? 0)).toBeLessThan(190);
});

it('waits the visibility timeout when the consumer set no delay, and counts a throw as a failure', async () => {
  const { queue, receipts } = queueOf(['throw', 'ok']);
  queue.send('crashed once');
  await queue.idle();
  expect(receipts.map((r) => r.receive)).toEqual([1, 2]);
  expect((receipts[1]?.at ?? 0) - (receipts[0]?.at ?? 0)).toBeGreaterThanOrEqual(190);
});

it('sets a message aside after maxReceives failed receives', async () => {
  const { queue, receipts } = queueOf(['fail', 'fail', 'fail', 'fail'], 1, 3);
  queue.send('dead');
  await queue.idle();
  expect(receipts.map((r) => r.receive)).toEqual([1, 2, 3]);
  expect(queue.deadLetters).toEqual(['dead']);
});

it('keeps messages apart: one slow to succeed does not hold another back', async () => {
  const { queue, receipts } = queueOf(['fail', 'ok'], 100);
  queue.send('slow');
  queue.send('fast');
  await queue.idle();
  expect(receipts.map((r) => `${r.body}#${r.receive}`)).toEqual(['slow#1', 'fast#1', 'slow#2']);
});

it('closes: the receive under way ends, the message waiting for its retry is dropped, a new one is refused', async () => {
  let release: () => void = () => undefined;
  const receipts: string[] = [];
  const queue = new LocalDeliveryQueue(
    async (event: LocalSqsEvent) => {
      const record = event.Records[0];
      receipts.push(`${record?.body}#${record?.attributes.ApproximateReceiveCount}`);
      if (record?.body === 'slow') await new Promise<void>((resolve) => (release = resolve));
      return { batchItemFailures: record?.body === 'retried' ? [{ itemIdentifier: record.messageId }] : [] };
    },
    { maxReceives: 3, visibilityMs: 50, onDeadLetter: () => undefined },
  );
  queue.send('retried');
  queue.send('slow');
  while (receipts.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
  let closed = false;
  const closing = queue.close().then(() => (closed = true));
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(closed).toBe(false);
  release();
  await closing;
  await queue.idle();
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(receipts).toEqual(['retried#1', 'slow#1']);
  expect(() => queue.send('late')).toThrow('the local deliveries queue is stopped');
});
