import { type LocalBatchResponse, LocalDeliveryQueue } from '../delivery-queue';
import { LocalJobQueue, type LocalQueueMessage } from '../job-queue';
import type { FunctionRuntime } from './runtime';
import { type TemplateApi, TemplateError } from './template';

/*
 * The template's SQS queues as the template-driven server runs them: each `AWS::SQS::Queue` a function's
 * environment names (by `Ref`, its URL) is a queue the function sends to; the `AWS::Lambda::EventSourceMapping`
 * reading it (by `Fn::GetAtt [queue, Arn]`) names its consumer; the queue's `RedrivePolicy.maxReceiveCount` is
 * how often a message is delivered before it is set aside. A FIFO queue (jobs) runs as a LocalJobQueue
 * (local/job-queue.ts), and its mapping's `BatchSize` must be 1. A standard queue (webhook deliveries) runs as
 * a LocalDeliveryQueue (local/delivery-queue.ts): one record per event (a batch of any `BatchSize` may hold
 * one), a failed receive handed again after the delay its consumer set, else the queue's `VisibilityTimeout`;
 * the records its consumer reports failed are handed again only when the mapping's `FunctionResponseTypes`
 * has `ReportBatchItemFailures`, as Lambda does.
 */

type Json = Record<string, unknown>;
interface Resource {
  Type: string;
  Properties?: Json;
}

export interface TemplateQueue {
  logicalId: string;
  /** A FIFO queue (`FifoQueue: true`), else standard. */
  fifo: boolean;
  /** The name of the function the event source mapping invokes. */
  consumer: string;
  maxReceives: number;
  /** The queue's `VisibilityTimeout` (SQS's default 30 s): when a receive its consumer failed comes back. */
  visibilityMs: number;
  /** The mapping's `FunctionResponseTypes` has `ReportBatchItemFailures`: the consumer's answer names failures. */
  reportsBatchItemFailures: boolean;
  /** The functions whose environment names the queue: they send to it (or, its consumer, delay its messages). */
  senders: string[];
}

/** SQS's default visibility timeout, in seconds. */
const DEFAULT_VISIBILITY_SECONDS = 30;

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
      const target = ref === undefined ? undefined : resources[ref];
      const sender = nameOf.get(logicalId);
      if (ref === undefined || target?.Type !== 'AWS::SQS::Queue' || sender === undefined) continue;
      const queue = queues.get(ref) ?? {
        logicalId: ref,
        fifo: target.Properties?.FifoQueue === true,
        consumer: '',
        maxReceives: 0,
        visibilityMs: Number(target.Properties?.VisibilityTimeout ?? DEFAULT_VISIBILITY_SECONDS) * 1000,
        reportsBatchItemFailures: false,
        senders: [],
      };
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
    if (queue.fifo && props.BatchSize !== 1)
      throw new TemplateError(`${logicalId}: a job queue's BatchSize must be 1`);
    queue.consumer = consumer;
    queue.reportsBatchItemFailures =
      Array.isArray(props.FunctionResponseTypes) &&
      props.FunctionResponseTypes.includes('ReportBatchItemFailures');
  }
  for (const queue of queues.values()) {
    if (queue.consumer === '')
      throw new TemplateError(`queue ${queue.logicalId} has no event source mapping`);
    const redrive = resources[queue.logicalId]?.Properties?.RedrivePolicy as Json | undefined;
    const maxReceives = Number(redrive?.maxReceiveCount);
    if (!Number.isInteger(maxReceives) || maxReceives < 1)
      throw new TemplateError(`queue ${queue.logicalId} has no RedrivePolicy.maxReceiveCount`);
    queue.maxReceives = maxReceives;
    if (!Number.isFinite(queue.visibilityMs) || queue.visibilityMs < 0)
      throw new TemplateError(`queue ${queue.logicalId}: VisibilityTimeout is not a number of seconds`);
  }
  return queues;
}

/** The running queues, by the functions that send to them. */
export interface TemplateQueues {
  /** The job queue each sender sends to. */
  jobs: Map<string, LocalJobQueue>;
  /** The deliveries queue each sender (or its consumer) sends to. */
  deliveries: Map<string, LocalDeliveryQueue>;
  /** Waits for the jobs sent so far; stops the deliveries queues (their attempts under way end first). */
  stop(): Promise<void>;
}

/** A running queue for each of the template's queues, delivering to its consumer's runtime. */
export function startTemplateQueues(
  queues: Map<string, TemplateQueue>,
  runtimeOf: (name: string) => FunctionRuntime | undefined,
): TemplateQueues {
  const jobs = new Map<string, LocalJobQueue>();
  const deliveries = new Map<string, LocalDeliveryQueue>();
  const jobQueues: LocalJobQueue[] = [];
  const deliveryQueues: LocalDeliveryQueue[] = [];
  for (const queue of queues.values()) {
    const invoke = (event: { Records: { messageId: string }[] }) => {
      const runtime = runtimeOf(queue.consumer);
      if (!runtime) throw new TemplateError(`no function ${queue.consumer} in the template`);
      return runtime.invokeWith(event, event.Records[0]?.messageId ?? '');
    };
    if (queue.fifo) {
      const local = new LocalJobQueue(invoke, { maxReceives: queue.maxReceives });
      jobQueues.push(local);
      for (const sender of queue.senders) jobs.set(sender, local);
    } else {
      const local = new LocalDeliveryQueue(
        async (event) => {
          const answer = (await invoke(event)) as Partial<LocalBatchResponse> | null | undefined;
          // Without ReportBatchItemFailures (or with no failures named) the whole batch succeeded, as in Lambda.
          const failures = queue.reportsBatchItemFailures ? answer?.batchItemFailures : undefined;
          return { batchItemFailures: failures ?? [] };
        },
        { maxReceives: queue.maxReceives, visibilityMs: queue.visibilityMs },
      );
      deliveryQueues.push(local);
      for (const sender of queue.senders) deliveries.set(sender, local);
    }
  }
  return {
    jobs,
    deliveries,
    stop: async () => {
      await Promise.all([
        ...jobQueues.map((queue) => queue.idle()),
        ...deliveryQueues.map((queue) => queue.close()),
      ]);
    },
  };
}

export type { LocalQueueMessage };
