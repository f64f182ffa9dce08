import { randomUUID } from 'node:crypto';

/*
 * The jobs queue as the local harness runs it: an SQS FIFO queue in process. Each message goes to its
 * group (a store), and a group's messages are delivered one at a time in the order sent, to the consumer
 * (the job worker's handler) as an SQS event of one record; groups run independently. A delivery that
 * throws is delivered again, up to `maxReceives` times (the queue's maxReceiveCount), then set aside as the
 * dead-letter queue would take it, and the group goes on. A deduplication id seen before is dropped. Imports
 * nothing of functions/ or lib/: the template-driven server uses it too.
 */

/** A message as sent: lib/jobs/queue.ts `QueuedMessage`. */
export interface LocalQueueMessage {
  groupId: string;
  deduplicationId: string;
  body: string;
}

/** One record of an SQS event, as Lambda's event source mapping hands it. */
export interface LocalSqsRecord {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: Record<string, string>;
  messageAttributes: Record<string, never>;
  md5OfBody: string;
  eventSource: 'aws:sqs';
  eventSourceARN: string;
  awsRegion: string;
}

/** The SQS event a consumer gets: one record (the event source mapping's batch size). */
export interface LocalSqsEvent {
  Records: LocalSqsRecord[];
}

/** The record of receive number `receive` of a message (its receipt handle: `<messageId>#<receive>`). */
export function localSqsRecord(
  message: { messageId: string; body: string; queueArn: string },
  receive: number,
  attributes: Record<string, string> = {},
): LocalSqsRecord {
  return {
    messageId: message.messageId,
    receiptHandle: `${message.messageId}#${receive}`,
    body: message.body,
    attributes: {
      ApproximateReceiveCount: String(receive),
      SentTimestamp: String(Date.now()),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
      ...attributes,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: message.queueArn,
    awsRegion: 'local',
  };
}

export interface LocalJobQueueOptions {
  /** Deliveries of a message before it is set aside (default 3). */
  maxReceives?: number;
  /** The queue's ARN in the events (default a local placeholder). */
  queueArn?: string;
  /** Told of a message set aside (default: a line on stderr). */
  onDeadLetter?: (message: LocalQueueMessage, error: unknown) => void;
}

export class LocalJobQueue {
  private readonly groups = new Map<string, Promise<void>>();
  private readonly seen = new Set<string>();
  private readonly maxReceives: number;
  private readonly queueArn: string;
  /** Messages set aside after `maxReceives` failed deliveries. */
  readonly deadLetters: LocalQueueMessage[] = [];

  constructor(
    private readonly consume: (event: LocalSqsEvent) => Promise<unknown>,
    private readonly options: LocalJobQueueOptions = {},
  ) {
    this.maxReceives = options.maxReceives ?? 3;
    this.queueArn = options.queueArn ?? 'arn:aws:sqs:local:123456789012:jobs.fifo';
  }

  private closed = false;

  /** Queues a message behind its group's; returns at once, as SendMessage does. Nothing once closed. */
  send(message: LocalQueueMessage): void {
    if (this.closed || this.seen.has(message.deduplicationId)) return;
    this.seen.add(message.deduplicationId);
    const previous = this.groups.get(message.groupId) ?? Promise.resolve();
    const next = previous.then(() => this.deliver(message));
    this.groups.set(message.groupId, next);
    void next.then(() => {
      if (this.groups.get(message.groupId) === next) this.groups.delete(message.groupId);
    });
  }

  /** Resolves once every message sent so far (and those they led to) has been delivered or set aside. */
  async idle(): Promise<void> {
    while (this.groups.size > 0) await Promise.all([...this.groups.values()]);
  }

  /**
   * Stops the queue with the server that started it: messages not yet delivered are dropped (their jobs stay
   * as recorded, pending), a delivery under way is awaited, and nothing sent later is taken.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }

  private async deliver(message: LocalQueueMessage): Promise<void> {
    const messageId = randomUUID();
    for (let receive = 1; !this.closed; receive += 1) {
      try {
        await this.consume(this.event(message, messageId, receive));
        return;
      } catch (error) {
        if (receive < this.maxReceives) continue;
        this.deadLetters.push(message);
        if (this.options.onDeadLetter) this.options.onDeadLetter(message, error);
        else {
          process.stderr.write(
            `job queue: message ${message.deduplicationId} failed ${receive} times, set aside: ${(error as Error)?.message ?? String(error)}\n`,
          );
        }
        return;
      }
    }
  }

  private event(message: LocalQueueMessage, messageId: string, receive: number): LocalSqsEvent {
    return {
      Records: [
        localSqsRecord({ messageId, body: message.body, queueArn: this.queueArn }, receive, {
          MessageGroupId: message.groupId,
          MessageDeduplicationId: message.deduplicationId,
        }),
      ],
    };
  }
}
