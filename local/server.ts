import type { Server } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { redact, requestSecrets } from '../lib/http/log';
import { localDocsResponse } from './docs';
import { createGatewayServer, publicUrlFrom } from './gateway';
import { createLambdaContext } from './http-event';
import { GATEWAY_ROUTES, loadHandler } from './router';

export { listen, localOrigin } from './gateway';

/** The local API server: API Gateway-style routing over the shared route table, handlers run in-process. */
export function createLocalServer(env: NodeJS.ProcessEnv = process.env): Server {
  return createGatewayServer({
    routes: GATEWAY_ROUTES,
    publicUrl: publicUrlFrom(env),
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
}
