import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { FUNCTIONS, type FunctionName } from '../../infra/routes';
import { type AuthContext, authenticate, claimedStoreId } from '../auth/authenticate';
import { getDocumentClient } from '../store/client';
import {
  ApiError,
  BadRequestError,
  ForbiddenError,
  PayloadTooLargeError,
  toApiError,
  UnsupportedMediaTypeError,
} from './errors';
import { log, requestLogging } from './log';
import { errorResponse, type HttpResponse } from './response';

/** Largest request body any route accepts. */
export const MAX_BODY_BYTES = 64 * 1024;

/** `none`: public route; `any`: any valid token; `admin`: a client_credentials token. */
export type AuthRequirement = 'none' | 'any' | 'admin';
/** `json`: JSON bodies only; `json-or-form`: JSON or x-www-form-urlencoded; `none`: bodies ignored. */
export type BodyKind = 'none' | 'json' | 'json-or-form';

export interface HandlerOptions {
  /**
   * Reads that depend only on the store the token claims, started while the token is checked (their
   * results must reach the caller only through the handler, which runs once the token is valid).
   */
  prefetch?: (claimedStoreId: string | undefined) => void;
}

/** The event a handler sees: the API Gateway event plus what the middleware stack derived from it. */
export type ApiEvent<A extends AuthRequirement = AuthRequirement> = APIGatewayProxyEventV2 & {
  /** Parsed request body (`undefined` when there was none). */
  parsedBody: unknown;
  auth: A extends 'none' ? undefined : AuthContext;
};

type Handler<A extends AuthRequirement> = (event: ApiEvent<A>, context: Context) => Promise<HttpResponse>;

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded$/i;

/** Parses the body by content type; 413 over 64 KiB, 415 for other media types, 400 for malformed JSON. */
function bodyParser(kind: BodyKind): MiddlewareObj<ApiEvent, HttpResponse> {
  return {
    before: (request) => {
      const event = request.event;
      event.parsedBody = undefined;
      if (kind === 'none' || event.body === undefined || event.body === '') return;
      const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
      if (raw.byteLength > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
      const mediaType = (event.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
      const text = raw.toString('utf8');
      if (JSON_TYPE.test(mediaType)) {
        try {
          event.parsedBody = JSON.parse(text);
        } catch {
          throw new BadRequestError('request body is not valid JSON', 'body');
        }
        return;
      }
      if (kind === 'json-or-form' && FORM_TYPE.test(mediaType)) {
        event.parsedBody = Object.fromEntries(new URLSearchParams(text));
        return;
      }
      throw new UnsupportedMediaTypeError(
        kind === 'json-or-form'
          ? ['application/json', 'application/x-www-form-urlencoded']
          : ['application/json'],
      );
    },
  };
}

/** Resolves the bearer token into the store and token kind; 401 when invalid, 403 when not allowed here. */
function authorizer(
  requirement: AuthRequirement,
  prefetch: HandlerOptions['prefetch'],
): MiddlewareObj<ApiEvent, HttpResponse> {
  return {
    before: async (request) => {
      if (requirement === 'none') return;
      const header = request.event.headers.authorization;
      prefetch?.(claimedStoreId(header));
      const auth = await authenticate(header);
      if (requirement === 'admin' && auth.kind !== 'client_credentials') throw new ForbiddenError();
      (request.event as ApiEvent<'any'>).auth = auth;
      log('debug', 'authenticated', { token_kind: auth.kind, store_id: auth.storeId });
    },
  };
}

/** The single error middleware: typed errors become the JSON error body; nothing internal leaks. */
function errorHandler(): MiddlewareObj<ApiEvent, HttpResponse> {
  return {
    onError: (request) => {
      const apiError: ApiError = toApiError(request.error);
      const requestId = request.context.awsRequestId;
      // 5xx are logged (name, message, stack; credentials redacted) by requestLogging's onError.
      request.response = errorResponse(
        apiError.status,
        [apiError.toErrorObject(requestId)],
        apiError.headers,
      );
    },
  };
}

/** Sent on every response: no MIME sniffing of JSON, and HTTPS only for a year (API Gateway serves HTTPS). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
};

/**
 * Adds the security headers to every response, errors included (registered first, so it runs last).
 * `noStore`: admin and token responses carry credentials or store settings and must never be cached.
 */
function securityHeaders(noStore: boolean): MiddlewareObj<ApiEvent, HttpResponse> {
  const extra: Record<string, string> = noStore
    ? { ...SECURITY_HEADERS, 'Cache-Control': 'no-store' }
    : { ...SECURITY_HEADERS };
  const apply = (request: { response: HttpResponse | null }) => {
    if (request.response) request.response.headers = { ...request.response.headers, ...extra };
  };
  return { after: apply, onError: apply };
}

/**
 * Wraps an operation in the middy stack every function uses: security headers, logging and error
 * handling (registered first so they run last), header normalisation, body parsing, then auth as `definition` says.
 */
export function buildHandler<A extends AuthRequirement>(
  functionName: string,
  definition: { auth: A; body?: BodyKind },
  options: HandlerOptions,
  handler: Handler<A>,
) {
  // At init, once per container: a bad configuration fails here with a message naming the variable,
  // and the DynamoDB client (with its HTTP module) is ready before the first request.
  getDocumentClient();
  // Registered first, run last on the way out (once the error response exists): the log line, then the
  // security headers on whatever response there is.
  return middy<ApiEvent, HttpResponse>()
    .use(securityHeaders(definition.auth !== 'any'))
    .use(requestLogging(functionName) as MiddlewareObj<ApiEvent, HttpResponse>[])
    .use(errorHandler())
    .use(httpHeaderNormalizer() as MiddlewareObj<ApiEvent, HttpResponse>)
    .use(bodyParser(definition.body ?? 'none'))
    .use(authorizer(definition.auth, options.prefetch))
    .handler(handler as unknown as (event: ApiEvent, context: Context) => Promise<HttpResponse>);
}

/**
 * The handler of a function of the route table: who may call it and which bodies it takes come from
 * `infra/routes.ts`, which the OpenAPI document is built from too, so the two cannot disagree.
 */
export function createHandler<N extends FunctionName>(
  functionName: N,
  options: HandlerOptions,
  handler: Handler<(typeof FUNCTIONS)[N]['auth']>,
) {
  const definition: { auth: (typeof FUNCTIONS)[N]['auth']; body?: BodyKind } = FUNCTIONS[functionName];
  return buildHandler(functionName, definition, options, handler);
}

export { ApiError };
