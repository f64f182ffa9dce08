import { LocalJobQueue, type LocalSqsEvent } from '../../local/job-queue';

/**
 * The local jobs queue (local/job-queue.ts), as SQS FIFO runs a store's messages: one at a time per group in
 * the order sent, groups independently, a failed delivery again up to maxReceives, duplicates dropped.
 */

const message = (groupId: string, id: string) => ({
  groupId,
  deduplicationId: id,
  body: JSON.stringify({ store_id: groupId, job_id: id }),
});
const idOf = (event: LocalSqsEvent) =>
  (JSON.parse(event.Records[0]?.body ?? '{}') as { job_id: string }).job_id;

/** A promise and the function that resolves it: lets a test hold a delivery open. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('LocalJobQueue', () => {
  it("delivers a group's messages one at a time, in the order sent", async () => {
    const log: string[] = [];
    let running = 0;
    let overlapped = false;
    const gates = new Map([1, 2, 3].map((n) => [`job-${n}`, gate()]));
    const queue = new LocalJobQueue(async (event) => {
      const id = idOf(event);
      running += 1;
      if (running > 1) overlapped = true;
      log.push(`start ${id}`);
      await gates.get(id)?.opened;
      log.push(`end ${id}`);
      running -= 1;
    });
    for (const n of [1, 2, 3]) queue.send(message('store-a', `job-${n}`));
    // Released in reverse: the second and third must still wait for the first.
    gates.get('job-3')?.open();
    gates.get('job-2')?.open();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['start job-1']);
    gates.get('job-1')?.open();
    await queue.idle();
    expect(overlapped).toBe(false);
    expect(log).toEqual(['start job-1', 'end job-1', 'start job-2', 'end job-2', 'start job-3', 'end job-3']);
  });

  it('runs two groups independently: one held open does not hold the other', async () => {
    const held = gate();
    const done: string[] = [];
    const queue = new LocalJobQueue(async (event) => {
      const id = idOf(event);
      if (id === 'a-1') await held.opened;
      done.push(id);
    });
    queue.send(message('store-a', 'a-1'));
    queue.send(message('store-a', 'a-2'));
    queue.send(message('store-b', 'b-1'));
    queue.send(message('store-b', 'b-2'));
    while (done.length < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(done).toEqual(['b-1', 'b-2']);
    held.open();
    await queue.idle();
    expect(done).toEqual(['b-1', 'b-2', 'a-1', 'a-2']);
  });

  it('delivers a failing message again with its receive count, then sets it aside and goes on', async () => {
    const receives: string[] = [];
    const queue = new LocalJobQueue(
      async (event) => {
        const record = event.Records[0];
        receives.push(`${idOf(event)}#${record?.attributes.ApproximateReceiveCount}`);
        expect(record?.attributes.MessageGroupId).toBe('store-a');
        if (idOf(event) === 'bad') throw new Error('boom');
      },
      { maxReceives: 3, onDeadLetter: () => undefined },
    );
    queue.send(message('store-a', 'bad'));
    queue.send(message('store-a', 'good'));
    await queue.idle();
    expect(receives).toEqual(['bad#1', 'bad#2', 'bad#3', 'good#1']);
    expect(queue.deadLetters.map((m) => m.deduplicationId)).toEqual(['bad']);
  });

  it('drops a message whose deduplication id it has seen', async () => {
    const seen: string[] = [];
    const queue = new LocalJobQueue(async (event) => {
      seen.push(idOf(event));
    });
    queue.send(message('store-a', 'job-1'));
    queue.send(message('store-a', 'job-1'));
    await queue.idle();
    expect(seen).toEqual(['job-1']);
  });

  it('closes: awaits the delivery under way, drops the messages behind it and takes nothing more', async () => {
    const log: string[] = [];
    const held = gate();
    const queue = new LocalJobQueue(async (event) => {
      log.push(`start ${idOf(event)}`);
      if (idOf(event) === 'job-1') await held.opened;
      log.push(`end ${idOf(event)}`);
    });
    queue.send(message('store-a', 'job-1'));
    queue.send(message('store-a', 'job-2'));
    await new Promise((resolve) => setImmediate(resolve));
    let closed = false;
    const closing = queue.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    held.open();
    await closing;
    queue.send(message('store-b', 'job-3'));
    await queue.idle();
    expect(log).toEqual(['start job-1', 'end job-1']);
    expect(queue.deadLetters).toEqual([]);
  });
});
