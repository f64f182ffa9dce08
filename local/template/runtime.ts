import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { LocalDeliveryQueue } from '../delivery-queue';
import { handlerEntry, type TemplateFunction } from './template';

const WORKER_FILE = fileURLToPath(new URL('./lambda-worker.mjs', import.meta.url));

/** What the harness adds to a function's own environment, as the Lambda runtime does (region, credentials...). */
export type RuntimeEnvironment = Record<string, string>;

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * What a worker posts: its ready signal, a log chunk, an invocation's result or error, the input of a
 * workflow execution its function starts, a job it enqueues, or a webhook delivery it sends or delays
 * (lambda-worker.mjs).
 */
interface WorkerMessage {
  ready?: true;
  workflow?: unknown;
  job?: unknown;
  delivery?: { body: string } | { receiptHandle: string; ms: number };
  stream?: 'stdout' | 'stderr';
  text?: string;
  id?: number;
  result?: unknown;
  error?: Error;
}

/**
 * A function's failure as Lambda reports it (an unhandled error, a timeout, an init failure); `errorType`
 * is what Lambda names it (the error's own name, `Sandbox.Timedout`...), as Step Functions sees it.
 */
export class FunctionError extends Error {
  override name = 'FunctionError';
  constructor(
    message: string,
    readonly errorType = 'Runtime.ExitError',
    readonly errorMessage = message,
  ) {
    super(message);
  }
}

export interface RuntimeOptions {
  /**
   * Starts an execution of the state machine the function names: without it the function finds no workflow
   * runner (lib/catalog/pipeline/start.ts), as with no state machine at all.
   */
  onWorkflow?: (input: unknown) => void;
  /**
   * Queues a job message the function sends (local/job-queue.ts): without it the function finds no job queue
   * (lib/jobs/queue.ts), as with no queue at all.
   */
  onJob?: (message: unknown) => void;
  /**
   * The webhook deliveries queue (local/delivery-queue.ts): the function sends the events it emits to it and,
   * as its consumer, sets a failed receive's delay on it. Without it the function finds no deliveries queue
   * (lib/integrations/queue.ts), as with no queue at all.
   */
  deliveries?: Pick<LocalDeliveryQueue, 'send' | 'delay'>;
}

/**
 * A function's template variables as a worker thread can take them: without `NODE_OPTIONS`. Node's options
 * are the process's: a worker refuses the per-process ones the stack sets (`--use-openssl-ca`, with the
 * layer of root certificates: infra/root-certificates.ts) and fails to start, and the `SSL_CERT_*` variables
 * beside them never reach OpenSSL, which reads the process's own environment. The functions reach the local
 * stores over plain HTTP, so nothing here reads the layer.
 */
function workerEnvironment(environment: Record<string, string>): Record<string, string> {
  const { NODE_OPTIONS: _processOptions, ...rest } = environment;
  return rest;
}

/**
 * One function's execution environment: a worker thread started on the first invocation (the cold
 * start: it imports the bundle), then kept warm. Its `process.env` is the template's variables plus the
 * runtime's, nothing of this process's. A timeout or an init failure discards it; the next invocation
 * starts a fresh one, as Lambda does.
 */
export class FunctionRuntime {
  private worker: Worker | undefined;
  private ready: Promise<void> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** Cold starts so far. */
  coldStarts = 0;

  /** `logsTo`: where the function's stdout goes (`npm run invoke` keeps stdout for the result). */
  constructor(
    readonly fn: TemplateFunction,
    private readonly runtimeEnv: RuntimeEnvironment,
    private readonly logsTo: 'stdout' | 'stderr' = 'stdout',
    private readonly options: RuntimeOptions = {},
  ) {}

  private start(): Promise<void> {
    const { file, exportName } = handlerEntry(this.fn);
    const worker = new Worker(WORKER_FILE, {
      env: {
        ...workerEnvironment(this.fn.environment),
        AWS_LAMBDA_FUNCTION_NAME: this.fn.name,
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(this.fn.memoryMb),
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        ...this.runtimeEnv,
      },
      workerData: {
        file,
        exportName,
        functionName: this.fn.name,
        memoryMb: this.fn.memoryMb,
        timeoutMs: this.fn.timeoutSeconds * 1000,
        workflow: this.options.onWorkflow !== undefined,
        jobs: this.options.onJob !== undefined,
        deliveries: this.options.deliveries !== undefined,
      },
    });
    this.worker = worker;
    this.coldStarts += 1;
    const ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: WorkerMessage) => {
        if (message.stream) {
          // Through this process's streams, looked up per line (a test that captures output sees them).
          process[message.stream === 'stdout' ? this.logsTo : 'stderr'].write(message.text ?? '');
          return;
        }
        if (message.ready) {
          resolve();
          return;
        }
        if (message.workflow !== undefined) {
          this.options.onWorkflow?.(message.workflow);
          return;
        }
        if (message.job !== undefined) {
          this.options.onJob?.(message.job);
          return;
        }
        if (message.delivery !== undefined) {
          this.deliver(message.delivery);
          return;
        }
        const pending = this.pending.get(message.id ?? -1);
        if (!pending) return;
        this.pending.delete(message.id ?? -1);
        clearTimeout(pending.timer);
        if (message.error) {
          const { name, message: text, stack } = message.error;
          const error = new FunctionError(`${this.fn.name}: ${name}: ${text}`, name, text);
          error.stack = `${error.message}\n${stack ?? ''}`;
          pending.reject(error);
        } else pending.resolve(message.result);
      });
      worker.on('error', (error) => {
        const failure = new FunctionError(`${this.fn.name}: ${error.stack ?? error.message}`);
        reject(failure);
        this.discard(failure);
      });
      worker.on('exit', (code) => {
        if (this.worker === worker) this.discard(new FunctionError(`${this.fn.name}: exited with ${code}`));
      });
    });
    this.ready = ready;
    return ready;
  }

  /** A delivery message the function sent, or the delay it set for a receive, handed to the queue. */
  private deliver(delivery: NonNullable<WorkerMessage['delivery']>): void {
    const queue = this.options.deliveries;
    try {
      if ('body' in delivery) queue?.send(delivery.body);
      else queue?.delay(delivery.receiptHandle, delivery.ms);
    } catch (error) {
      // The queue stopped (the server is stopping) after the function sent the message.
      process.stderr.write(
        `${this.fn.name}: a webhook delivery was not queued: ${(error as Error).message}\n`,
      );
    }
  }

  /** Fails what is in flight and forgets the worker: the next invocation is a cold start. */
  private discard(error: Error): void {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    this.failPending(error);
    void worker?.terminate();
  }

  private failPending(error: Error): void {
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.pending.clear();
  }

  /** Invokes the function with an event; rejects with a FunctionError as Lambda would fail it. */
  invoke(event: APIGatewayProxyEventV2, requestId: string): Promise<APIGatewayProxyStructuredResultV2> {
    return this.invokeWith(event, requestId) as Promise<APIGatewayProxyStructuredResultV2>;
  }

  /** Invokes the function with any JSON payload (a workflow step's state) and answers what it returns. */
  async invokeWith(payload: unknown, requestId: string): Promise<unknown> {
    await (this.ready ?? this.start());
    const worker = this.worker;
    if (!worker) throw new FunctionError(`${this.fn.name}: the execution environment is gone`);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.discard(
          new FunctionError(
            `${this.fn.name}: Task timed out after ${this.fn.timeoutSeconds.toFixed(2)} seconds`,
            'Sandbox.Timedout',
          ),
        );
      }, this.fn.timeoutSeconds * 1000);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, event: payload, requestId });
    });
  }

  /** Stops the worker (waits for it, so its last output has been written); what is in flight fails. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = undefined;
    this.failPending(new FunctionError(`${this.fn.name}: the execution environment was stopped`));
    if (worker) await worker.terminate();
  }
}
