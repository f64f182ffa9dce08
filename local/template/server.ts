import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import { closeServer, createGatewayServer } from '../gateway';
import { type LocalQueueMessage, readTemplateQueues, startTemplateQueues, type TemplateQueues } from './jobs';
import { jsonLinesReader } from './json-lines';
import { FunctionError, FunctionRuntime, type RuntimeEnvironment } from './runtime';
import { checkDefinition, type ExecutionResult, StateMachineRunner, StatesError } from './state-machine';
import { readTemplateApi, type TemplateApi, type TemplateFunction } from './template';

/*
 * The template-driven local API (`npm start -- --from-template`): routes, functions, handlers and
 * environments all come from the synthesized template, and each request runs the function's bundle from
 * cdk.out in its own execution environment (local/template/runtime.ts). A function that starts a state
 * machine's execution (the publishing workflow) has it run here, from the template's definition over the
 * step functions' bundles (local/template/state-machine.ts); the messages its functions send to the
 * template's queues (jobs, webhook deliveries) go to their consumers' bundles (local/template/jobs.ts),
 * off the request path. Imports nothing of functions/ or lib/ (a
 * dependency-cruiser rule checks it): what runs is what `cdk deploy` uploads.
 */

/**
 * Map iterations at once: the publishing workflow's writers, as the in-process harness runs them
 * (WRITE_CONCURRENCY of lib/catalog/pipeline/workflow.ts): one machine against one DynamoDB Local, where
 * the definition's MaxConcurrency is what AWS runs.
 */
const LOCAL_MAP_CONCURRENCY = 4;

export interface TemplateServerOptions {
  /** The cloud assembly (cdk.out). */
  outdir: string;
  /** The local table name for each table construct id of the stack (`KeysTable` -> `commerce-keys`). */
  tables: Record<string, string>;
  /** Added to every function's environment, as the Lambda runtime adds its own (region, credentials, ...). */
  runtimeEnv: RuntimeEnvironment;
  stackName?: string;
  /** PUBLIC_URL: the origin links are built from (local/gateway.ts `localOrigin`). */
  publicUrl?: string | undefined;
  /**
   * Origins that replace the template's CORS origins (`CORS_ORIGINS` in the shell, like `LOG_LEVEL`
   * overrides a function's); the rest of the CORS configuration is the template's.
   */
  corsOrigins?: readonly string[] | undefined;
  /** Map iterations of a state machine at once (default LOCAL_MAP_CONCURRENCY). */
  mapConcurrency?: number;
}

export interface TemplateServer {
  server: Server;
  api: TemplateApi;
  runtimes: Map<string, FunctionRuntime>;
  /** The runner of each state machine, by logical id. */
  workflows: Map<string, StateMachineRunner>;
  /** Closes the server, lets running executions end and stops every function's worker. */
  close(): Promise<void>;
}

/**
 * The runtimes of a template's functions (none started yet). With `startWorkflow`, a function whose
 * environment names a state machine hands it each execution it starts; with `queues`, a function whose
 * environment names a queue sends its messages to it.
 */
export function createRuntimes(
  functions: Map<string, TemplateFunction>,
  runtimeEnv: RuntimeEnvironment,
  logsTo: 'stdout' | 'stderr' = 'stdout',
  startWorkflow?: (stateMachine: string, input: unknown) => void,
  queues?: Pick<TemplateQueues, 'jobs' | 'deliveries'>,
): Map<string, FunctionRuntime> {
  return new Map(
    [...functions].map(([name, fn]) => {
      const stateMachine = fn.startsWorkflow;
      const jobs = queues?.jobs.get(name);
      const deliveries = queues?.deliveries.get(name);
      const options = {
        ...(startWorkflow && stateMachine !== undefined
          ? { onWorkflow: (input: unknown) => startWorkflow(stateMachine, input) }
          : {}),
        ...(jobs ? { onJob: (message: unknown) => jobs.send(message as LocalQueueMessage) } : {}),
        ...(deliveries ? { deliveries } : {}),
      };
      return [name, new FunctionRuntime(fn, runtimeEnv, logsTo, options)];
    }),
  );
}

/** A template function as a state machine's Task invokes it: its errors as Step Functions names them. */
async function invokeStep(runtime: FunctionRuntime | undefined, name: string, input: unknown) {
  if (!runtime) throw new StatesError('States.Runtime', `no function ${name} in the template`);
  try {
    return await runtime.invokeWith(input, randomUUID());
  } catch (error) {
    if (!(error instanceof FunctionError)) throw error;
    const { errorType, errorMessage } = error;
    throw new StatesError(errorType, JSON.stringify({ errorType, errorMessage }));
  }
}

/** An execution's end: a failure of the runner itself is a bug of the definition or the harness, said on stderr. */
function reportExecution(stateMachine: string) {
  return (result: ExecutionResult) => {
    if (result.error === 'States.Runtime') {
      process.stderr.write(`template server: an execution of ${stateMachine} failed: ${result.cause}\n`);
    }
  };
}

/** Reads the assembly and builds the gateway in front of its functions (not listening yet). */
export function createTemplateServer(options: TemplateServerOptions): TemplateServer {
  const api = readTemplateApi(
    options.outdir,
    options.tables,
    options.stackName,
    options.runtimeEnv.DOCUMENTS_BUCKET,
  );
  const workflows = new Map<string, StateMachineRunner>();
  const queues = startTemplateQueues(readTemplateQueues(api), (name) => runtimes.get(name));
  const runtimes = createRuntimes(
    api.functions,
    options.runtimeEnv,
    'stdout',
    (stateMachine, input) => workflows.get(stateMachine)?.start(input),
    queues,
  );
  const items = jsonLinesReader(options.runtimeEnv);
  for (const machine of api.stateMachines.values()) {
    checkDefinition(machine.definition, machine.logicalId, new Set(api.functions.keys()));
    const deps = {
      invoke: (name: string, input: unknown) => invokeStep(runtimes.get(name), name, input),
      readJsonLines: items.read,
      mapConcurrency: options.mapConcurrency ?? LOCAL_MAP_CONCURRENCY,
    };
    workflows.set(
      machine.logicalId,
      new StateMachineRunner(machine, deps, reportExecution(machine.logicalId)),
    );
  }
  const server = createGatewayServer({
    publicUrl: options.publicUrl,
    cors: api.cors && options.corsOrigins ? { ...api.cors, allowOrigins: options.corsOrigins } : api.cors,
    routes: api.routes.map((route) => ({ method: route.method, path: route.path, target: route.function })),
    invoke(name, event, requestId) {
      const runtime = runtimes.get(name);
      if (!runtime) throw new Error(`no function ${name} in the template`);
      return runtime.invoke(event, requestId);
    },
    // A function error: its name and message only (the function logged the details itself, redacted).
    describeError: (error: unknown, _req: IncomingMessage) => (error as Error).message.split('\n')[0] ?? '',
  });
  return {
    server,
    api,
    runtimes,
    workflows,
    async close() {
      await closeServer(server);
      await Promise.all([...workflows.values()].map((runner) => runner.stop()));
      await queues.stop();
      await Promise.all([...runtimes.values()].map((runtime) => runtime.close()));
      items.close();
    },
  };
}
