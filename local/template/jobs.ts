import { LocalJobQueue, type LocalQueueMessage } from '../job-queue';
import type { FunctionRuntime } from './runtime';
import { type TemplateApi, TemplateError } from './template';

/*
 * The template's SQS queues as the template-driven server runs them: each `AWS::SQS::Queue` a function's
 * environment names (by `Ref`, its URL) is a queue the function sends to; the `AWS::Lambda::EventSourceMapping`
 * reading it (by `Fn::GetAtt [queue, Arn]`) names its consumer, and its `BatchSize` must be 1; the queue's
 * `RedrivePolicy.maxReceiveCount` is how often a message is delivered before it is set aside. Each queue runs
 * as a LocalJobQueue (local/job-queue.ts) over its consumer's bundle.
 */

type Json = Record<string, unknown>;
interface Resource {
  Type: string;
  Properties?: Json;
}

export interface TemplateQueue {
  logicalId: string;
  /** The name of the function the event source mapping invokes. */
  consumer: string;
  maxReceives: number;
  /** The functions whose environment names the queue: they send to it. */
  senders: string[];
}

const refOf = (value: unknown): string | undefined =>
  typeof value === 'object' && value !== null && typeof (value as Json).Ref === 'string'
    ? ((value as Json).Ref as string)
    : undefined;

/** The queues of the template that a function sends to, each with its consumer. */
export function readTemplateQueues(api: TemplateApi): Map<string, TemplateQueue> {
  // The stack as deployed: the API functions that send sit in nested stacks, inlined here.
  const resources: Record<string, Resource> = api.resources;
  const nameOf = new Map([...api.functions.values()].map((fn) => [fn.logicalId, fn.name]));
  const queues = new Map<string, TemplateQueue>();
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const variables = ((resource.Properties?.Environment as Json | undefined)?.Variables ?? {}) as Json;
    for (const value of Object.values(variables)) {
      const ref = refOf(value);
      if (ref === undefined || resources[ref]?.Type !== 'AWS::SQS::Queue') continue;
      // Job queues are FIFO. The webhook deliveries queue (standard) is not run here: its senders find no
      // queue, and their events are logged as not queued (docs/webhooks.md).
      if (resources[ref]?.Properties?.FifoQueue !== true) continue;
      const sender = nameOf.get(logicalId);
      if (sender === undefined) continue;
      const queue = queues.get(ref) ?? { logicalId: ref, consumer: '', maxReceives: 0, senders: [] };
      queue.senders.push(sender);
      queues.set(ref, queue);
    }
  }
  for (const [logicalId, resource] of Object.entries(resources)) {
    if (resource.Type !== 'AWS::Lambda::EventSourceMapping') continue;
    const props = resource.Properties ?? {};
    const [queueId, attribute] = ((props.EventSourceArn as Json | undefined)?.['Fn::GetAtt'] ??
      []) as unknown[];
    const queue = typeof queueId === 'string' && attribute === 'Arn' ? queues.get(queueId) : undefined;
    if (!queue) continue;
    const consumer = nameOf.get(refOf(props.FunctionName) ?? '');
    if (consumer === undefined)
      throw new TemplateError(`${logicalId} does not invoke a function of the template`);
    if (props.BatchSize !== 1) throw new TemplateError(`${logicalId}: a job queue's BatchSize must be 1`);
    queue.consumer = consumer;
  }
  for (const queue of queues.values()) {
    if (queue.consumer === '')
      throw new TemplateError(`queue ${queue.logicalId} has no event source mapping`);
    const redrive = resources[queue.logicalId]?.Properties?.RedrivePolicy as Json | undefined;
    const maxReceives = Number(redrive?.maxReceiveCount);
    if (!Number.isInteger(maxReceives) || maxReceives < 1)
      throw new TemplateError(`queue ${queue.logicalId} has no RedrivePolicy.maxReceiveCount`);
    queue.maxReceives = maxReceives;
  }
  return queues;
}

/** A running queue for each of the template's queues, delivering to its consumer's runtime. */
export function startTemplateQueues(
  queues: Map<string, TemplateQueue>,
  runtimeOf: (name: string) => FunctionRuntime | undefined,
): { sendersQueue: Map<string, LocalJobQueue>; idle(): Promise<void> } {
  const sendersQueue = new Map<string, LocalJobQueue>();
  const running: LocalJobQueue[] = [];
  for (const queue of queues.values()) {
    const local = new LocalJobQueue(
      async (event) => {
        const runtime = runtimeOf(queue.consumer);
        if (!runtime) throw new TemplateError(`no function ${queue.consumer} in the template`);
        await runtime.invokeWith(event, event.Records[0]?.messageId ?? '');
      },
      { maxReceives: queue.maxReceives },
    );
    running.push(local);
    for (const sender of queue.senders) sendersQueue.set(sender, local);
  }
  return {
    sendersQueue,
    idle: async () => {
      await Promise.all(running.map((queue) => queue.idle()));
    },
  };
}

export type { LocalQueueMessage };
