import { Worker } from 'node:worker_threads';
import { abandonStep } from '../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../lib/catalog/pipeline/workflow';
import { errorFields, log } from '../lib/http/log';
import { sendLocalDelivery } from '../lib/integrations/queue';

/**
 * The heap the publishing workflow's steps get in a local tool: V8 grows an unbounded heap lazily (a
 * 300,000-product `catalog publish` peaked at 968 MB of RSS in one process), while the steps hold a product
 * at a time. What they keep across products peaks in validation, at about 250 MB for a million products
 * (V8's trace of the thread's full collections); 288 MB leaves that room, and keeps the whole process of a
 * million-product `catalog publish` under 512 MB (449 MB: 320 MB let the thread's garbage take it to 504-551
 * MB). The item manifest's tables live outside the heap (24 bytes an item).
 */
export const WORKFLOW_HEAP_MB = 288;

/**
 * The heap a local tool's workflow thread gets: the process's own `--max-old-space-size` when given (in
 * NODE_OPTIONS or node's flags: the last one, as node takes it), else WORKFLOW_HEAP_MB.
 */
export function workflowHeapMb(env: NodeJS.ProcessEnv = process.env, execArgv = process.execArgv): number {
  const given = [
    ...`${env.NODE_OPTIONS ?? ''} ${execArgv.join(' ')}`.matchAll(/--max-old-space-size=(\d+)/g),
  ];
  const last = given.at(-1)?.[1];
  return last === undefined ? WORKFLOW_HEAP_MB : Number(last);
}

/** What the workflow's thread posts: a webhook event's delivery message, or the release's end state. */
export type WorkflowThreadMessage = { delivery: string } | { state: 'PUBLISHED' | 'FAILED' };

export interface WorkflowThreadOptions {
  /** The thread's old-generation limit in MB (default: workflowHeapMb()). */
  heapMb?: number;
  /**
   * Where the webhook events the steps emit go (default: this thread's local deliveries queue, which the
   * local API and `catalog publish` start; an event with none is logged as not queued).
   */
  onDelivery?: (body: string) => void;
}

/** Queues a delivery the workflow's thread sent on this thread's local queue, or logs it as not queued. */
function queueDelivery(body: string): void {
  try {
    sendLocalDelivery(body);
  } catch (error) {
    const { store_id, trigger } = JSON.parse(body) as { store_id?: string; trigger?: string };
    log('error', 'integration event not queued', { store_id, trigger, count: 1, error: errorFields(error) });
  }
}

/**
 * Runs a release's workflow in a worker thread whose old generation is limited (the steps' Lambdas have
 * their memory; a local tool or the local API has this), off the starting thread: the local API keeps
 * answering while it publishes. A worker that dies (out of memory, say) takes the Abandon step here, as
 * the state machine's Catch does, so the release ends FAILED rather than in progress.
 */
export function runWorkflowInThread(
  input: ReleaseExecutionInput,
  options: WorkflowThreadOptions = {},
): Promise<'PUBLISHED' | 'FAILED'> {
  const onDelivery = options.onDelivery ?? queueDelivery;
  const worker = new Worker(new URL('./workflow-worker.mjs', import.meta.url), {
    workerData: input,
    resourceLimits: { maxOldGenerationSizeMb: options.heapMb ?? workflowHeapMb() },
  });
  return new Promise<'PUBLISHED' | 'FAILED'>((resolve, reject) => {
    let state: 'PUBLISHED' | 'FAILED' | undefined;
    worker.on('message', (message: WorkflowThreadMessage) => {
      if ('delivery' in message) onDelivery(message.delivery);
      else state = message.state;
    });
    let failure: Error | undefined;
    worker.once('error', (error) => {
      failure = error;
    });
    worker.once('exit', (code) => {
      if (state !== undefined && code === 0) {
        resolve(state);
        return;
      }
      const cause = failure ?? new Error(`the workflow's thread exited with code ${code}`);
      abandonStep({ ...input, error: { Error: cause.name, Cause: cause.message } }).then(
        ({ state: ended }) => resolve(ended),
        reject,
      );
    });
  });
}
