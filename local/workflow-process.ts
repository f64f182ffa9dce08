import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { abandonStep } from '../lib/catalog/pipeline/steps';
import type { ReleaseExecutionInput } from '../lib/catalog/pipeline/workflow';
import { errorFields, log } from '../lib/http/log';
import { sendLocalDelivery } from '../lib/integrations/queue';

/**
 * The heap the publishing workflow's steps get in a local tool: V8 grows an unbounded heap lazily (a
 * 300,000-product `catalog publish` peaked at 968 MB of RSS in one process), while the steps hold a product
 * at a time. What they keep across products peaks in validation, at about 250 MB for a million products
 * (V8's trace of the thread's full collections); 288 MB leaves that room. The item manifest's tables live
 * outside the heap (24 bytes an item: 99 MB when a million products are compared with the release before).
 */
export const WORKFLOW_HEAP_MB = 288;

/**
 * The heap a local tool's workflow process gets: the tool's own `--max-old-space-size` when given (in
 * NODE_OPTIONS or node's flags: the last one, as node takes it), else WORKFLOW_HEAP_MB.
 */
export function workflowHeapMb(env: NodeJS.ProcessEnv = process.env, execArgv = process.execArgv): number {
  const given = [
    ...`${env.NODE_OPTIONS ?? ''} ${execArgv.join(' ')}`.matchAll(/--max-old-space-size=(\d+)/g),
  ];
  const last = given.at(-1)?.[1];
  return last === undefined ? WORKFLOW_HEAP_MB : Number(last);
}

/** What the workflow's process sends: a webhook event's delivery message, or the release's end state. */
export type WorkflowProcessMessage = { delivery: string } | { state: 'PUBLISHED' | 'FAILED' };

export interface WorkflowProcessOptions {
  /** The process's old-generation limit in MB (default: workflowHeapMb()). */
  heapMb?: number;
  /**
   * Where the webhook events the steps emit go (default: this process's local deliveries queue, which the
   * local API and `catalog publish` start; an event with none is logged as not queued).
   */
  onDelivery?: (body: string) => void;
}

/** Queues a delivery the workflow's process sent on this process's local queue, or logs it as not queued. */
function queueDelivery(body: string): void {
  try {
    sendLocalDelivery(body);
  } catch (error) {
    const { store_id, trigger } = JSON.parse(body) as { store_id?: string; trigger?: string };
    log('error', 'integration event not queued', { store_id, trigger, count: 1, error: errorFields(error) });
  }
}

const ENTRY = fileURLToPath(new URL('./workflow-child.mjs', import.meta.url));

/**
 * Runs a release's workflow in a child process whose heap is limited, as the steps' Lambdas are each a
 * process with its memory: the local API (or a local tool) keeps its thread and its own memory while a
 * catalog publishes, and neither process holds the other's (in one process, the API, the local object
 * store and a million-product workflow took 586 MB together). The child reaches DynamoDB and the object
 * store over their endpoints, as the API does, and records its peak RSS on the release. A child that dies
 * (out of memory, say) takes the Abandon step here, as the state machine's Catch does, so the release ends
 * FAILED rather than in progress.
 */
export function runWorkflowInChild(
  input: ReleaseExecutionInput,
  options: WorkflowProcessOptions = {},
): Promise<'PUBLISHED' | 'FAILED'> {
  const onDelivery = options.onDelivery ?? queueDelivery;
  const heapMb = options.heapMb ?? workflowHeapMb();
  const child = fork(ENTRY, [JSON.stringify(input)], {
    // Only the heap: the parent's own flags (a test runner's, tsx's) are not the workflow's.
    execArgv: [`--max-old-space-size=${heapMb}`],
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  // The child's log lines pass through; V8's report of a heap run out is summed up in the release's error.
  let tail = '';
  let dying = false;
  let outOfMemory = false;
  child.stderr?.on('data', (chunk: Buffer) => {
    // With the end of the chunk before: a phrase split across two chunks is still found.
    const seen = tail + chunk.toString();
    tail = seen.slice(-256);
    dying ||= /<--- Last few GCs --->|FATAL ERROR:/.test(seen);
    outOfMemory ||= /heap out of memory/.test(seen);
    if (!dying) process.stderr.write(chunk);
  });
  return new Promise<'PUBLISHED' | 'FAILED'>((resolve, reject) => {
    let state: 'PUBLISHED' | 'FAILED' | undefined;
    child.on('message', (message: WorkflowProcessMessage) => {
      if ('delivery' in message) onDelivery(message.delivery);
      else state = message.state;
    });
    let failure: Error | undefined;
    child.once('error', (error) => {
      failure = error;
    });
    child.once('close', (code, signal) => {
      if (state !== undefined && code === 0) {
        resolve(state);
        return;
      }
      const cause =
        failure ?? new Error(`the workflow's process exited with ${signal ?? `code ${String(code)}`}`);
      if (failure === undefined && outOfMemory) {
        cause.name = 'OutOfMemory';
        cause.message = `the workflow's process ran out of its ${heapMb} MB heap`;
      }
      abandonStep({ ...input, error: { Error: cause.name, Cause: cause.message } }).then(
        ({ state: ended }) => resolve(ended),
        reject,
      );
    });
  });
}
