import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import httpUrlencodeBodyParser from '@middy/http-urlencode-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { jsonParseFailure } from '../json-error';
import { CORS_VARY_ENV } from './cors';
import {
  type ApiError,
  BadRequestError,
  PayloadTooLargeError,
  toApiError,
  UnsupportedMediaTypeError,
} from './errors';
import { multipartFields, multipartUpload } from './multipart';
import { errorResponse, type HttpResponse } from './response';
import { bodyText, checkFormEscapes } from './utf8';

/**
 * HTTP primitives as middy middlewares: body parsing, the error middleware and the security headers.
 * They know nothing of tokens, tables or routes; `functions/create-handler.ts` composes them with auth
 * and logging into the stack every function uses.
 */

/** Largest request body any route accepts. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Largest `large-json` body: a product whose bundle has the platform's 1,500 options (about 70 bytes each). */
export const MAX_LARGE_JSON_BYTES = 256 * 1024;

/** Largest release document sent inline (`PUT /pcm/catalogs/{id}/document`); larger ones are uploaded to S3. */
export const MAX_DOCUMENT_BYTES = 5 * 1024 * 1024;

/**
 * Largest file form (`upload`): API Gateway base64-encodes it into the event, and a synchronous Lambda
 * invocation takes at most 6 MB, so 4 MiB of file (5.4 MB encoded) is what reaches the function.
 */
export const MAX_UPLOAD_BYTES = 4 * 1024 * 1024;

/** Where a release document over MAX_DOCUMENT_BYTES goes, as the 413 says. */
const LARGER_DOCUMENTS =
  'upload a larger document with POST /pcm/catalogs/{catalog_id}/document-uploads (docs/catalog-api.md)';

/** Where an import file over MAX_UPLOAD_BYTES goes, as the 413 says. */
const LARGER_IMPORTS =
  'upload a larger file with POST /pcm/products/import-uploads, then import it by its upload id (docs/jobs.md)';

/**
 * `upload`: a multipart/form-data form with files (lib/http/multipart.ts `multipartUpload`), or JSON, of up
 * to MAX_UPLOAD_BYTES;
 * `json`: JSON bodies only; `large-json`: the same up to MAX_LARGE_JSON_BYTES; `json-or-form`: JSON or
 * x-www-form-urlencoded; `json-or-multipart`: JSON or multipart/form-data text fields
 * (lib/http/multipart.ts; a part carrying a file is a 400); `document`: a JSON document of up to
 * MAX_DOCUMENT_BYTES, checked but kept as sent (`parsedBody` is its bytes); `none`: bodies ignored.
 */
export type BodyKind =
  | 'none'
  | 'json'
  | 'large-json'
  | 'json-or-form'
  | 'json-or-multipart'
  | 'document'
  | 'upload';

/** The media types a body kind accepts, as a 415 lists them and the OpenAPI document publishes them. */
export function bodyMediaTypes(kind: BodyKind): string[] {
  if (kind === 'json-or-form') return ['application/json', 'application/x-www-form-urlencoded'];
  if (kind === 'json-or-multipart' || kind === 'upload') return ['application/json', 'multipart/form-data'];
  return ['application/json'];
}

/** The most bytes a body of this kind may have. */
export function maxBodyBytes(kind: BodyKind): number {
  if (kind === 'document') return MAX_DOCUMENT_BYTES;
  if (kind === 'upload') return MAX_UPLOAD_BYTES;
  return kind === 'large-json' ? MAX_LARGE_JSON_BYTES : MAX_BODY_BYTES;
}

/** An API Gateway event once the body parser ran. */
export type ParsedEvent = APIGatewayProxyEventV2 & {
  /** Parsed request body (`undefined` when there was none). */
  parsedBody: unknown;
};

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded$/i;
const MULTIPART_TYPE = /^multipart\/form-data$/i;
const UTF8 = /^"?utf-?8"?$/i;

/** The raw body's bytes (API Gateway base64-encodes binary bodies). */
function rawBody(event: APIGatewayProxyEventV2): Buffer | undefined {
  if (event.body === undefined || event.body === '') return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/**
 * 413 for a body over 64 KiB (5 MB for a document, pointing at the uploads), before anything reads it (register it before the body parser). Routes
 * that take no body (`kind` none) ignore whatever is sent, whatever its size.
 */
export function bodySizeLimit(kind: BodyKind): MiddlewareObj<APIGatewayProxyEventV2, HttpResponse> {
  return {
    before: (request) => {
      if (kind === 'none') return;
      const raw = rawBody(request.event);
      if (raw !== undefined && raw.byteLength > maxBodyBytes(kind))
        throw new PayloadTooLargeError(
          maxBodyBytes(kind),
          kind === 'document' ? LARGER_DOCUMENTS : kind === 'upload' ? LARGER_IMPORTS : undefined,
        );
    },
  };
}

/** Media type and declared charset of a `Content-Type` header (lower-cased type; charset as sent). */
function contentType(header: string | undefined): { mediaType: string; charset: string | undefined } {
  const [type = '', ...parameters] = (header ?? '').split(';');
  let charset: string | undefined;
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=');
    if (name?.trim().toLowerCase() === 'charset') charset = value?.trim() ?? '';
  }
  return { mediaType: type.trim().toLowerCase(), charset };
}

type MiddyParser = { before?: (request: never) => unknown };
const jsonParser = httpJsonBodyParser() as MiddyParser;
const formParser = httpUrlencodeBodyParser() as MiddyParser;

/**
 * Runs one of middy's body parsers on a copy of the event that holds only the body's text (decoded
 * strictly beforehand) and a canonical content type (it checks the type itself, case-sensitively), and
 * returns what it parsed; the event keeps its raw body for the logs.
 */
async function runMiddyParser(parser: MiddyParser, text: string, mediaType: string): Promise<unknown> {
  const shadow = { event: { headers: { 'content-type': mediaType }, body: text, isBase64Encoded: false } };
  await parser.before?.(shadow as never);
  return shadow.event.body;
}

/**
 * Parses the body by content type with middy's parsers (`@middy/http-json-body-parser`,
 * `@middy/http-urlencode-body-parser`), keeping the API's error contract: 415 for other media types or
 * a declared charset other than UTF-8, 400 `source: body` for bytes that are not UTF-8 (lib/http/utf8.ts)
 * and for malformed JSON or form text, and 400
 * `invalid_request` for a form parameter sent twice (RFC 6749 section 3.2: the token endpoint's
 * parameters must not repeat; middy's parser would hand over an array). The 64 KiB limit is
 * `bodySizeLimit`, registered before this.
 */
export function bodyParser(kind: BodyKind): MiddlewareObj<ParsedEvent, HttpResponse> {
  const accepted = bodyMediaTypes(kind);
  return {
    before: async (request) => {
      const event = request.event;
      event.parsedBody = undefined;
      const bytes = kind === 'none' ? undefined : rawBody(event);
      if (bytes === undefined) return;
      const { mediaType, charset } = contentType(event.headers['content-type']);
      const json = JSON_TYPE.test(mediaType);
      const form = kind === 'json-or-form' && FORM_TYPE.test(mediaType);
      const multipart = (kind === 'json-or-multipart' || kind === 'upload') && MULTIPART_TYPE.test(mediaType);
      if (!json && !form && !multipart) throw new UnsupportedMediaTypeError(accepted);
      if (multipart && kind === 'upload') {
        event.parsedBody = multipartUpload(bytes, event.headers['content-type']);
        return;
      }
      if (multipart) {
        // Its charset is each part's business; the fields are decoded as strict UTF-8.
        event.parsedBody = multipartFields(bytes, event.headers['content-type']);
        return;
      }
      if (charset !== undefined && !UTF8.test(charset))
        throw new UnsupportedMediaTypeError(accepted, 'request body must be encoded in UTF-8');
      // Strictly: bytes that are not UTF-8 are a 400, never replaced by U+FFFD.
      const text = bodyText(bytes);
      if (kind === 'document') {
        // Checked as JSON here (a typo answers 400 now, not a FAILED release later); kept as sent.
        try {
          JSON.parse(text);
        } catch (error) {
          const at = error instanceof SyntaxError ? jsonParseFailure(error).position : undefined;
          const where = at === undefined ? '' : ` (at character ${at})`;
          throw new BadRequestError(`request body is not valid JSON${where}`, 'body');
        }
        event.parsedBody = bytes;
        return;
      }
      if (json) {
        try {
          event.parsedBody = await runMiddyParser(jsonParser, text, 'application/json');
        } catch {
          throw new BadRequestError('request body is not valid JSON', 'body');
        }
        return;
      }
      checkFormEscapes(text);
      let fields: Record<string, unknown>;
      try {
        fields = (await runMiddyParser(formParser, text, 'application/x-www-form-urlencoded')) as Record<
          string,
          unknown
        >;
      } catch {
        throw new BadRequestError('request body is not a valid form', 'body');
      }
      for (const [name, value] of Object.entries(fields)) {
        if (Array.isArray(value))
          throw new BadRequestError(`invalid_request: parameter ${name} is repeated`, name);
      }
      event.parsedBody = fields;
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
  // Listed CORS origins: API Gateway echoes the request's Origin, so caches must key on it.
  if (process.env[CORS_VARY_ENV] === 'Origin') extra.Vary = 'Origin';
  const apply = (request: { response: HttpResponse | null }) => {
    if (request.response) request.response.headers = { ...request.response.headers, ...extra };
  };
  return { after: apply, onError: apply };
}
