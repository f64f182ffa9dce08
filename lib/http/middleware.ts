import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import {
  type ApiError,
  BadRequestError,
  PayloadTooLargeError,
  toApiError,
  UnsupportedMediaTypeError,
} from './errors';
import { errorResponse, type HttpResponse } from './response';

/**
 * HTTP primitives as middy middlewares: body parsing, the error middleware and the security headers.
 * They know nothing of tokens, tables or routes; `functions/create-handler.ts` composes them with auth
 * and logging into the stack every function uses.
 */

/** Largest request body any route accepts. */
export const MAX_BODY_BYTES = 64 * 1024;

/** `json`: JSON bodies only; `json-or-form`: JSON or x-www-form-urlencoded; `none`: bodies ignored. */
export type BodyKind = 'none' | 'json' | 'json-or-form';

/** An API Gateway event once the body parser ran. */
export type ParsedEvent = APIGatewayProxyEventV2 & {
  /** Parsed request body (`undefined` when there was none). */
  parsedBody: unknown;
};

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded$/i;

/** Parses the body by content type; 413 over 64 KiB, 415 for other media types, 400 for malformed JSON. */
export function bodyParser(kind: BodyKind): MiddlewareObj<ParsedEvent, HttpResponse> {
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

/** The single error middleware: typed errors become the JSON error body; nothing internal leaks. */
export function errorHandler(): MiddlewareObj<APIGatewayProxyEventV2, HttpResponse> {
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
 * Adds the security headers to every response, errors included (register it first, so it runs last).
 * `noStore`: admin and token responses carry credentials or store settings and must never be cached.
 */
export function securityHeaders(noStore: boolean): MiddlewareObj<APIGatewayProxyEventV2, HttpResponse> {
  const extra: Record<string, string> = noStore
    ? { ...SECURITY_HEADERS, 'Cache-Control': 'no-store' }
    : { ...SECURITY_HEADERS };
  const apply = (request: { response: HttpResponse | null }) => {
    if (request.response) request.response.headers = { ...request.response.headers, ...extra };
  };
  return { after: apply, onError: apply };
}
