import { cancellationCodes, throttledCancellation } from '../store/transactions';

/** One entry of the JSON error body (docs/errors.md). */
export interface ErrorObject {
  status: string;
  title: string;
  detail: string;
  source?: string;
  request_id?: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** An error the caller may see: its status, title, detail and source become the response body. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly source: string | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    detail: string,
    options: { source?: string; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.status = status;
    this.title = TITLES[status] ?? 'Error';
    this.detail = detail;
    this.source = options.source;
    this.headers = options.headers ?? {};
  }

  toErrorObject(requestId?: string): ErrorObject {
    return {
      status: String(this.status),
      title: this.title,
      detail: this.detail,
      ...(this.source === undefined ? {} : { source: this.source }),
      ...(requestId === undefined ? {} : { request_id: requestId }),
    };
  }
}

/** 400: malformed or invalid input; `source` names the field or parameter. */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
  constructor(detail: string, source?: string) {
    super(400, detail, source === undefined ? {} : { source });
  }
}

/** 401: missing, malformed, unknown or expired credentials. */
export class UnauthorizedError extends ApiError {
  override name = 'UnauthorizedError';
  constructor(detail = 'Unable to validate access token') {
    super(401, detail);
  }
}

/** 403: a valid token without the right to this route. */
export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
  constructor(detail = 'This token is not allowed to perform this operation') {
    super(403, detail);
  }
}

/** 404: unknown id, or an id of another store (never says which). */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
  constructor(detail = 'The requested resource could not be found') {
    super(404, detail);
  }
}

/** 409: the request conflicts with the stored state. */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
  constructor(detail: string, source?: string) {
    super(409, detail, source === undefined ? {} : { source });
  }
}

/** 413: request body over the limit. */
export class PayloadTooLargeError extends ApiError {
  override name = 'PayloadTooLargeError';
  /** `advice`: what to do instead (a route that takes larger bodies), after the limit. */
  constructor(limitBytes: number, advice?: string) {
    super(
      413,
      `request body must be at most ${limitBytes} bytes${advice === undefined ? '' : `: ${advice}`}`,
    );
  }
}

/** 415: request body in a media type the route does not accept. */
export class UnsupportedMediaTypeError extends ApiError {
  override name = 'UnsupportedMediaTypeError';
  constructor(accepted: string[], detail = `Content-Type must be ${accepted.join(' or ')}`) {
    super(415, detail, { source: 'content-type' });
  }
}

/** 422: well-formed request that cannot be processed (e.g. not a base product). */
export class UnprocessableEntityError extends ApiError {
  override name = 'UnprocessableEntityError';
  constructor(detail: string) {
    super(422, detail);
  }
}

/** 429: over the store's rate limit or the key's allowance; retry after `retryAfterSeconds` (>= 1). */
export class TooManyRequestsError extends ApiError {
  override name = 'TooManyRequestsError';
  constructor(detail: string, retryAfterSeconds: number, headers: Record<string, string> = {}) {
    super(429, detail, {
      headers: { ...headers, 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}

/** 503: a dependency is throttled or unavailable; the caller should retry after `retryAfterSeconds`. */
export class ServiceUnavailableError extends ApiError {
  override name = 'ServiceUnavailableError';
  constructor(detail = 'The service is temporarily unavailable, please retry', retryAfterSeconds = 1) {
    super(503, detail, { headers: { 'Retry-After': String(retryAfterSeconds) } });
  }
}

const UNAVAILABLE_ERROR_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
  'ServiceUnavailable',
  'InternalServerError',
  'TimeoutError',
  'TransactionInProgressException',
]);
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** True when an error means DynamoDB (or the network to it) is throttled or down, after the SDK's retries. */
export function isUnavailableError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  if (e.name !== undefined && UNAVAILABLE_ERROR_NAMES.has(e.name)) return true;
  if (e.code !== undefined && UNAVAILABLE_CODES.has(e.code)) return true;
  // A transaction cancelled because DynamoDB throttled one of its items: nothing was written.
  const codes = cancellationCodes(error);
  if (codes && throttledCancellation(codes)) return true;
  const status = e.$metadata?.httpStatusCode;
  return status === 503;
}

/** Detail of the 409 for a write that kept losing races on the same item: nothing was written. */
export const WRITE_CONFLICT = 'write conflict, please retry';

/**
 * True when DynamoDB refused a write because a concurrent transaction held one of its items
 * (`TransactionConflictException`, or a transaction cancelled only for `TransactionConflict`): nothing
 * was written, and the client's and the repositories' retries are spent by the time it gets here.
 */
export function isConflictError(error: unknown): boolean {
  if ((error as { name?: string } | undefined)?.name === 'TransactionConflictException') return true;
  const codes = cancellationCodes(error);
  return (
    codes?.includes('TransactionConflict') === true &&
    codes.every((code) => code === 'None' || code === 'TransactionConflict')
  );
}

/**
 * Maps any thrown value to the ApiError the caller sees: typed errors pass, throttling is 503, a write
 * that lost every retry to concurrent transactions is 409 (nothing written), the rest 500.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isUnavailableError(error)) return new ServiceUnavailableError();
  if (isConflictError(error)) return new ConflictError(WRITE_CONFLICT);
  return new ApiError(500, 'An unexpected error occurred');
}
