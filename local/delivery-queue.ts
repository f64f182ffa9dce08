import { randomUUID } from 'node:crypto';
import { type LocalSqsEvent, localSqsRecord } from './job-queue';

/*
 * The webhook deliveries queue as the local harness runs it: an SQS standard queue in process. Each message
 * is handed to the consumer (the delivery function's handler) as an SQS event of one record, its
 * `ApproximateReceiveCount` the receive's number, in the background (a timer, never a request's await). A
 * receive the consumer reports as a batch item failure (or that throws) is handed again once its visibility
 * timeout passes: the delay the consumer set for its receipt handle (`delay`, ChangeMessageVisibility's
 * counterpart), else `visibilityMs`. After `maxReceives` receives it is set aside, as the dead-letter queue
 * takes it. Messages are independent: a slow endpoint delays only its own. `close` stops it: messages waiting
 * for their (next) receive are dropped, as an in-memory queue loses them when its process stops. Imports
 * nothing of functions/ or lib/, like local/job-queue.ts, whose records it hands: the template-driven server
 * runs it too.
 */

const QUEUE_ARN = 'arn:aws:sqs:local:123456789012:deliveries';

export interface LocalDeliveryQueueOptions {
  /** Receives of a message before it is set aside (the queue's maxReceiveCount). */
  maxReceives: number;
  /** How long a failed receive stays invisible when the consumer set no delay (the queue's visibility timeout). */
  visibilityMs: number;
  /** Told of a message set aside (default: a line on stderr). */
  onDeadLetter?: (body: string) => void;
}

/** A consumer's answer: the records to hand again (Lambda's partial batch response). */
export interface LocalBatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

type Consumer = (event: LocalSqsEvent) => Promise<LocalBatchResponse>;

export class LocalDeliveryQueue {
  private readonly delays = new Map<string, number>();
  private waiting = 0;
  private readonly waiters: (() => void)[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly receiving = new Set<Promise<void>>();
  private closed = false;
  /** Message bodies set aside after `maxReceives` failed receives. */
  readonly deadLetters: string[] = [];

  constructor(
    private readonly consume: Consumer,
    private readonly options: LocalDeliveryQueueOptions,
  ) {}

  /** Queues a message; returns at once, as SendMessage does. Throws once the queue is closed. */
  send(body: string): void {
    if (this.closed) throw new Error('the local deliveries queue is stopped');
    this.schedule({ id: randomUUID(), body }, 1, 0);
  }

  /** Sets when the receive of `receiptHandle` is handed again, `ms` from now (ChangeMessageVisibility). */
  delay(receiptHandle: string, ms: number): void {
    this.delays.set(receiptHandle, ms);
  }

  /** Messages sent and not yet delivered or set aside (waiting for a receive, or being received). */
  get pending(): number {
    return this.waiting;
  }

  /** Resolves once every message sent so far has been delivered or set aside. */
  async idle(): Promise<void> {
    if (this.waiting === 0) return;
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Stops handing messages: waits for the receives under way, drops the messages waiting. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) {
      clearTimeout(timer);
      this.settle();
    }
    this.timers.clear();
    await Promise.all(this.receiving);
  }

  private schedule(message: { id: string; body: string }, receive: number, afterMs: number): void {
    if (this.closed) return;
    this.waiting += 1;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const receiving = this.receive(message, receive).finally(() => {
        this.receiving.delete(receiving);
        this.settle();
      });
      this.receiving.add(receiving);
    }, afterMs);
    timer.unref?.();
    this.timers.add(timer);
  }

  /** One message delivered, set aside or dropped. */
  private settle(): void {
    this.waiting -= 1;
    if (this.waiting === 0) for (const resolve of this.waiters.splice(0)) resolve();
  }

  private async receive(message: { id: string; body: string }, receive: number): Promise<void> {
    const receiptHandle = `${message.id}#${receive}`;
    let failed: boolean;
    try {
      const record = localSqsRecord(
        { messageId: message.id, body: message.body, queueArn: QUEUE_ARN },
        receive,
      );
      const result = await this.consume({ Records: [record] });
      failed = result.batchItemFailures.some((failure) => failure.itemIdentifier === message.id);
    } catch {
      failed = true;
    }
    const delay = this.delays.get(receiptHandle) ?? this.options.visibilityMs;
    this.delays.delete(receiptHandle);
    if (!failed) return;
    if (receive >= this.options.maxReceives) {
      this.deadLetters.push(message.body);
      if (this.options.onDeadLetter) this.options.onDeadLetter(message.body);
      else
        process.stderr.write(`deliveries queue: message ${message.id} failed ${receive} times, set aside\n`);
      return;
    }
    this.schedule(message, receive + 1, delay);
  }
}

/** The webhook settings the local harness takes from its shell (the stack sets none of them). */
const HARNESS_SETTINGS = [
  // `npm start` sets it: listeners on 127.0.0.1 receive the local API's events (docs/webhooks.md).
  'INTEGRATIONS_ALLOW_LOOPBACK',
  // Tests shorten the timeout and the retries' backoff.
  'INTEGRATIONS_DELIVERY_TIMEOUT_MS',
  'INTEGRATIONS_RETRY_BASE_MS',
] as const;

/**
 * What the template-driven server adds to its functions' environments for webhooks: the settings of
 * HARNESS_SETTINGS that `env` sets, as the shell's LOG_LEVEL overrides the template's.
 */
export function localDeliveryEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const name of HARNESS_SETTINGS) {
    const value = env[name];
    if (value) settings[name] = value;
  }
  return settings;
}
