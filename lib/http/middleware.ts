import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
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
import { log } from './log';
import { errorResponse, type HttpResponse } from './response';

/** Largest request body any route accepts. */
export const MAX_BODY_BYTES = 64 * 1024;

/** `none`: public route; `any`: any valid token; `admin`: a client_credentials token. */
export type AuthRequirement = 'none' | 'any' | 'admin';
/** `json`: JSON bodies only; `json-or-form`: JSON or x-www-form-urlencoded; `none`: bodies ignored. */
export type BodyKind = 'none' | 'json' | 'json-or-form';

export interface HandlerOptions<A extends AuthRequirement> {
  auth: A;
  body?: BodyKind;
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
  prefetch: HandlerOptions<AuthRequirement>['prefetch'],
): MiddlewareObj<ApiEvent, HttpResponse> {
  return {
    before: async (request) => {
      if (requirement === 'none') return;
      const header = request.event.headers.authorization;
      prefetch?.(claimedStoreId(header));
      const auth = await authenticate(header);
      if (requirement === 'admin' && auth.kind !== 'client_credentials') throw new ForbiddenError();
      (request.event as ApiEvent<'any'>).auth = auth;
    },
  };
}

/** The single error middleware: typed errors become the JSON error body; nothing internal leaks. */
function errorHandler(functionName: string): MiddlewareObj<ApiEvent, HttpResponse> {
  return {
    onError: (request) => {
      const apiError: ApiError = toApiError(request.error);
      const requestId = request.context.awsRequestId;
      if (apiError.status >= 500) {
        const error = request.error as Error | undefined;
        log('error', 'request failed', {
          function: functionName,
          request_id: requestId,
          status: apiError.status,
          error: error?.name,
          error_message: error?.message,
          stack: error?.stack,
        });
      }
      request.response = errorResponse(
        apiError.status,
        [apiError.toErrorObject(requestId)],
        apiError.headers,
      );
    },
  };
}

/**
 * Wraps an operation in the middy stack every function uses: error handling (registered first so it
 * runs last), header normalisation, body parsing, then auth.
 */
export function createHandler<A extends AuthRequirement>(
  functionName: string,
  options: HandlerOptions<A>,
  handler: Handler<A>,
) {
  // At init, once per container: a bad configuration fails here with a message naming the variable,
  // and the DynamoDB client (with its HTTP module) is ready before the first request.
  getDocumentClient();
  return middy<ApiEvent, HttpResponse>()
    .use(errorHandler(functionName))
    .use(httpHeaderNormalizer() as MiddlewareObj<ApiEvent, HttpResponse>)
    .use(bodyParser(options.body ?? 'none'))
    .use(authorizer(options.auth, options.prefetch))
    .handler(handler as unknown as (event: ApiEvent, context: Context) => Promise<HttpResponse>);
}

export { ApiError };
