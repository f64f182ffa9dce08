import type { IncomingMessage, Server } from 'node:http';
import { closeServer, createGatewayServer } from '../gateway';
import { FunctionRuntime, type RuntimeEnvironment } from './runtime';
import { readTemplateApi, type TemplateApi, type TemplateFunction } from './template';

/*
 * The template-driven local API (`npm start -- --from-template`): routes, functions, handlers and
 * environments all come from the synthesized template, and each request runs the function's bundle from
 * cdk.out in its own execution environment (local/template/runtime.ts). Imports nothing of functions/
 * or lib/ (a dependency-cruiser rule checks it): what runs is what `cdk deploy` uploads.
 */

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
}

export interface TemplateServer {
  server: Server;
  api: TemplateApi;
  runtimes: Map<string, FunctionRuntime>;
  /** Closes the server and stops every function's worker. */
  close(): Promise<void>;
}

/** The runtimes of a template's functions (none started yet). */
export function createRuntimes(
  functions: Map<string, TemplateFunction>,
  runtimeEnv: RuntimeEnvironment,
  logsTo: 'stdout' | 'stderr' = 'stdout',
): Map<string, FunctionRuntime> {
  return new Map([...functions].map(([name, fn]) => [name, new FunctionRuntime(fn, runtimeEnv, logsTo)]));
}

/** Reads the assembly and builds the gateway in front of its functions (not listening yet). */
export function createTemplateServer(options: TemplateServerOptions): TemplateServer {
  const api = readTemplateApi(options.outdir, options.tables, options.stackName);
  const runtimes = createRuntimes(api.functions, options.runtimeEnv);
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
    async close() {
      await closeServer(server);
      await Promise.all([...runtimes.values()].map((runtime) => runtime.close()));
    },
  };
}
