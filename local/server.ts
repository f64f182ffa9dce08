import type { Server } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiCorsConfiguration } from '../functions/routes';
import { runWorkflowLocally } from '../lib/catalog/pipeline/run-local';
import { registerLocalWorkflow } from '../lib/catalog/pipeline/start';
import { getConfig } from '../lib/config/index';
import { parseCorsOrigins } from '../lib/http/cors';
import { redact, requestSecrets } from '../lib/http/log';
import { unregisterLocalDeliveryQueue } from '../lib/integrations/queue';
import { startLocalDeliveries } from './deliveries-local';
import { localDocsResponse } from './docs';
import { createGatewayServer, onServerClose, publicUrlFrom } from './gateway';
import { createLambdaContext } from './http-event';
import { startLocalJobs } from './jobs-local';
import { GATEWAY_ROUTES, loadHandler } from './router';
import { runWorkflowInChild } from './workflow-process';

export { listen, localOrigin } from './gateway';

export interface LocalServerOptions {
  /** Origins browsers may call from (default: `CORS_ORIGINS` of `env`, comma-separated, else `*`). */
  corsOrigins?: string[];
  /** Where `PUBLIC_URL` and `CORS_ORIGINS` are read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Where releases run the publishing workflow's steps: `child` (`npm start`) in a child process with a
   * bounded heap, so that requests keep their thread and the server its memory while a catalog publishes;
   * `in-process` (the default, for tests that inject faults into this process's clients) on the server's
   * own thread.
   */
  workflow?: 'child' | 'in-process';
}

/**
 * The local API server: API Gateway-style routing over the shared route table, handlers run in-process,
 * CORS from the same configuration as the stack's. A bad `CORS_ORIGINS` or `PUBLIC_URL` fails here, at start.
 */
export function createLocalServer(options: LocalServerOptions = {}): Server {
  const env = options.env ?? process.env;
  // Releases created through this server run the publishing workflow's steps here or in a child process.
  registerLocalWorkflow(
    options.workflow === 'child'
      ? (input) => runWorkflowInChild(input)
      : (input) => runWorkflowLocally(input, { concurrency: getConfig().releaseWriters }),
  );
  // Jobs enqueued through this server run through the job worker's handler in this process.
  const jobs = startLocalJobs();
  // Webhook events emitted through this server are delivered by the delivery function's handler, off the request path.
  const deliveries = startLocalDeliveries();
  const server = createGatewayServer({
    routes: GATEWAY_ROUTES,
    publicUrl: publicUrlFrom(env),
    cors: apiCorsConfiguration(options.corsOrigins ?? parseCorsOrigins(env.CORS_ORIGINS)),
    // Local only, before the route table: GET /openapi.json, GET /docs and its assets (local/docs.ts).
    localRoutes: localDocsResponse,
    async invoke(route, event, requestId) {
      const handler = await loadHandler(route.function);
      return (await handler(
        event,
        createLambdaContext(route.function, requestId),
      )) as APIGatewayProxyStructuredResultV2;
    },
    // The stack only, with the request's credentials redacted: never its headers or body.
    describeError: (error, req) =>
      redact((error as Error).stack ?? String(error), requestSecrets(req.headers)),
  });
  // Closing the server stops its deliveries and its jobs: a retry waiting on its timer or a message not yet
  // taken is dropped, a receive under way awaited, so none runs once the server is gone.
  onServerClose(server, async () => {
    await Promise.all([deliveries.close(), jobs.stop()]);
    unregisterLocalDeliveryQueue(deliveries);
  });
  return server;
}
