import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { Context } from 'aws-lambda';
import {
  type AuthorizedEvent,
  type AuthRequirement,
  authorizer,
  type Prefetch,
} from '../lib/auth/middleware';
import { requestLogging } from '../lib/http/log';
import {
  type BodyKind,
  bodyParser,
  bodySizeLimit,
  errorHandler,
  type ParsedEvent,
  securityHeaders,
} from '../lib/http/middleware';
import type { HttpResponse } from '../lib/http/response';
import { metricsPublisher } from '../lib/metrics/index';
import { rateLimit, rateLimitResponseHeaders } from '../lib/rate-limit/middleware';
import { getDocumentClient } from '../lib/store/client';
import type { FUNCTIONS, FunctionDefinition, FunctionName } from './routes';

/**
 * The request path of every function: API Gateway event -> security headers, logs, the rate-limit headers
 * and the error middleware (outermost) -> header normalisation -> body size limit -> body parser ->
 * authorizer -> rate limit -> the operation's handler. The token endpoint (no bearer token) is counted by
 * its handler, by client id.
 */

export interface HandlerOptions {
  /** Reads started while the token is checked (see `Prefetch`). */
  prefetch?: Prefetch;
}

/** The event a handler sees: the API Gateway event plus its parsed body and the caller. */
export type ApiEvent<A extends AuthRequirement = AuthRequirement> = ParsedEvent & AuthorizedEvent<A>;

type Handler<A extends AuthRequirement> = (event: ApiEvent<A>, context: Context) => Promise<HttpResponse>;
type Middleware = MiddlewareObj<ApiEvent, HttpResponse>;

/** Wraps an operation in the middy stack every function uses, with auth and body parsing as `definition` says. */
export function buildHandler<A extends AuthRequirement>(
  functionName: string,
  definition: { auth: A; body?: BodyKind; tables?: FunctionDefinition['tables'] },
  options: HandlerOptions,
  handler: Handler<A>,
) {
  // At init, once per container: a bad configuration fails here with a message naming the variable,
  // and the DynamoDB client (with its HTTP module) is ready before the first request.
  getDocumentClient();
  // Registered first, run last on the way out (once the error response exists): the metrics line, the
  // log line, then the security headers on whatever response there is.
  return middy<ApiEvent, HttpResponse>()
    .use(securityHeaders(definition.auth !== 'any') as Middleware)
    .use(requestLogging(functionName) as Middleware[])
    .use(metricsPublisher() as Middleware)
    .use(rateLimitResponseHeaders() as Middleware)
    .use(errorHandler() as Middleware)
    .use(httpHeaderNormalizer() as Middleware)
    .use(bodySizeLimit(definition.body ?? 'none') as Middleware)
    .use(bodyParser(definition.body ?? 'none') as Middleware)
    .use(authorizer(definition.auth, options.prefetch) as Middleware)
    .use(rateLimit() as Middleware)
    .handler(handler as unknown as (event: ApiEvent, context: Context) => Promise<HttpResponse>);
}

/**
 * The handler of a function of the route table: who may call it and which bodies it takes come from its
 * definition in `functions/routes.ts`, which the OpenAPI document is built from too, so the two cannot
 * disagree. The handler imports its own definition (typed to be the one its name has), so its bundle holds
 * that entry of the table and not the whole table.
 */
export function createHandler<N extends FunctionName>(
  functionName: N,
  definition: (typeof FUNCTIONS)[N],
  options: HandlerOptions,
  handler: Handler<(typeof FUNCTIONS)[N]['auth']>,
) {
  return buildHandler(functionName, definition, options, handler);
}
