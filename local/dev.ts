import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuildContext, context, formatMessages, type Message } from 'esbuild';
import { DELIVERY_WORKER } from '../functions/integrations';
import { JOB_WORKER, MAX_RECEIVES } from '../functions/jobs';
import type { FunctionName } from '../functions/routes';
import { apiCorsConfiguration } from '../functions/routes';
import { BUNDLING } from '../infra/bundling';
import type { ReleaseExecutionInput } from '../lib/catalog/pipeline/workflow';
import { getConfig } from '../lib/config/index';
import { parseCorsOrigins } from '../lib/http/cors';
import { redact, requestSecrets } from '../lib/http/log';
import { registerLocalDeliveryQueue } from '../lib/integrations/queue';
import { DELIVERY_QUEUE_OPTIONS } from './deliveries-local';
import { type LocalBatchResponse, LocalDeliveryQueue } from './delivery-queue';
import { localDocsResponse } from './docs';
import { PROJECT_ROOT, runtimeEnvironment } from './from-template';
import { createGatewayServer, publicUrlFrom } from './gateway';
import { LocalJobQueue, type LocalQueueMessage } from './job-queue';
import { GATEWAY_ROUTES } from './router';
import { FunctionRuntime } from './template/runtime';
import { watchPaths } from './watch-paths';
import { runWorkflowInChild } from './workflow-process';

/** Folders whose changes are served by the next request. */
const WATCHED = ['functions', 'lib'];

/** The queues' consumers, with the stack's timeouts; the API's functions get 10 s. */
const QUEUE_WORKERS: Record<string, { timeoutSeconds: number }> = {
  [JOB_WORKER.name]: JOB_WORKER,
  [DELIVERY_WORKER.name]: DELIVERY_WORKER,
};

/** The 500 a function answers while its code does not build; the compiler's message goes to the log only. */
class BuildFailedError extends Error {
  override name = 'BuildFailedError';
}

interface DevFunction {
  build: Promise<BuildContext>;
  runtime: FunctionRuntime | undefined;
  /** A change since the running build: rebuild before the next request. */
  stale: boolean;
}

export interface DevServer {
  server: Server;
  /** Stops watching, the functions' workers and the builds. */
  stop(): Promise<void>;
}

/**
 * `npm run dev`: the local API with reload. Each function is bundled with the deploy's esbuild settings
 * (infra/bundling.ts, unminified) and run in a worker (local/template/runtime.ts); a change under
 * functions/ or lib/ marks every function stale, and the next request to one rebuilds it (esbuild,
 * incremental) and starts a fresh worker. DynamoDB Local and its data are untouched. A build error
 * answers 500 and prints the compiler's message in this server's log, until the code builds again.
 * Jobs and webhook deliveries run through their consumers' builds, off the request path. `root`: the
 * project to build and watch (tests use a copy).
 */
export function createDevServer(options: { root?: string } = {}): DevServer {
  const root = options.root ?? PROJECT_ROOT;
  const outRoot = mkdtempSync(join(tmpdir(), 'commerce-dev-'));
  const env = {
    ...(Object.fromEntries(
      Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ) as Record<string, string>),
    ...runtimeEnvironment(getConfig()),
  };
  const functions = new Map<string, DevFunction>();

  const functionFor = (name: FunctionName): DevFunction => {
    let fn = functions.get(name);
    if (!fn) {
      fn = {
        build: context({
          absWorkingDir: root,
          entryPoints: [join(root, `functions/${name}/handler.ts`)],
          outfile: join(outRoot, name, 'index.mjs'),
          bundle: true,
          platform: 'node',
          format: BUNDLING.format,
          target: BUNDLING.target,
          mainFields: [...BUNDLING.mainFields],
          alias: { ...BUNDLING.alias },
          sourcemap: 'inline',
          logLevel: 'silent',
        }),
        runtime: undefined,
        stale: true,
      };
      functions.set(name, fn);
    }
    return fn;
  };

  const rebuild = async (name: FunctionName, fn: DevFunction): Promise<FunctionRuntime> => {
    fn.stale = false;
    try {
      await (await fn.build).rebuild();
    } catch (error) {
      fn.stale = true;
      const errors = ((error as { errors?: Message[] }).errors ?? []) as Message[];
      const text = errors.length
        ? (await formatMessages(errors, { kind: 'error' })).join('')
        : String((error as Error).message);
      process.stderr.write(`dev: ${name} does not build; it answers 500 until fixed:\n${text}\n`);
      throw new BuildFailedError(`${name} does not build (the compiler's message is above)`);
    }
    await fn.runtime?.close();
    fn.runtime = new FunctionRuntime(
      {
        name,
        logicalId: name,
        codeDir: join(outRoot, name),
        handler: 'index.handler',
        environment: env,
        timeoutSeconds: QUEUE_WORKERS[name]?.timeoutSeconds ?? 10,
        memoryMb: 256,
      },
      {},
      'stdout',
      // A release created here runs the publishing workflow's steps in a child process, as
      // npm start does (from lib/, as it is when the workflow starts: the steps are not rebuilt on a change).
      {
        onWorkflow: (input) => {
          runWorkflowInChild(input as ReleaseExecutionInput).catch(() => undefined);
        },
        // A job enqueued here runs through the job worker's bundle, a store's jobs one at a time.
        onJob: (message) => jobs.send(message as LocalQueueMessage),
        // A webhook event emitted here is delivered through the delivery function's bundle, which sets a
        // failed attempt's delay on the same queue.
        deliveries,
      },
    );
    return fn.runtime;
  };

  /** The function's current build: rebuilt first when a change made it stale. */
  const current = async (name: FunctionName): Promise<FunctionRuntime> => {
    const fn = functionFor(name);
    return fn.stale || !fn.runtime ? rebuild(name, fn) : fn.runtime;
  };

  const jobs = new LocalJobQueue(
    async (event) => {
      const runtime = await current(JOB_WORKER.name as FunctionName);
      await runtime.invokeWith(event, event.Records[0]?.messageId ?? '');
    },
    { maxReceives: MAX_RECEIVES },
  );

  const deliveries = new LocalDeliveryQueue(async (event) => {
    const runtime = await current(DELIVERY_WORKER.name as FunctionName);
    return (await runtime.invokeWith(event, event.Records[0]?.messageId ?? '')) as LocalBatchResponse;
  }, DELIVERY_QUEUE_OPTIONS);
  // The publishing workflow's process (onWorkflow above) sends the events its steps emit to this queue.
  registerLocalDeliveryQueue(deliveries);

  // By path, not by inode: a file replaced by an atomic save or a checkout is still watched.
  const watcher = watchPaths(
    WATCHED.map((folder) => join(root, folder)),
    () => {
      for (const fn of functions.values()) fn.stale = true;
    },
  );

  const server = createGatewayServer({
    routes: GATEWAY_ROUTES,
    publicUrl: publicUrlFrom(process.env),
    cors: apiCorsConfiguration(parseCorsOrigins(process.env.CORS_ORIGINS)),
    localRoutes: localDocsResponse,
    async invoke(route, event, requestId) {
      return (await current(route.function)).invoke(event, requestId);
    },
    describeError: (error, req) =>
      error instanceof BuildFailedError
        ? error.message
        : redact((error as Error).stack ?? String(error), requestSecrets(req.headers)),
  });
  return {
    server,
    async stop() {
      watcher.close();
      registerLocalDeliveryQueue(undefined);
      // Before the functions close: a job or a delivery under way runs in one of them.
      await Promise.all([deliveries.close(), jobs.close()]);
      for (const fn of functions.values()) {
        await fn.runtime?.close();
        await (await fn.build).dispose();
      }
      rmSync(outRoot, { recursive: true, force: true });
    },
  };
}
