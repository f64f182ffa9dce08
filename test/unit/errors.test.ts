import {
  ApiError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  toApiError,
  UnauthorizedError,
  UnprocessableEntityError,
  UnsupportedMediaTypeError,
} from '../../lib/http/errors';

describe('typed errors', () => {
  it.each([
    [new BadRequestError('bad', 'page[limit]'), 400, 'Bad Request'],
    [new UnauthorizedError(), 401, 'Unauthorized'],
    [new ForbiddenError(), 403, 'Forbidden'],
    [new NotFoundError(), 404, 'Not Found'],
    [new ConflictError('taken'), 409, 'Conflict'],
    [new PayloadTooLargeError(65536), 413, 'Payload Too Large'],
    [new UnsupportedMediaTypeError(['application/json']), 415, 'Unsupported Media Type'],
    [new UnprocessableEntityError('not a base product'), 422, 'Unprocessable Entity'],
    [new ServiceUnavailableError(), 503, 'Service Unavailable'],
  ])('%p has status %i and title %p', (error, status, title) => {
    expect(error.status).toBe(status);
    expect(error.toErrorObject('req-1')).toMatchObject({
      status: String(status),
      title,
      request_id: 'req-1',
    });
  });

  it('says "Unable to validate access token" for a 401 by default', () => {
    expect(new UnauthorizedError().toErrorObject()).toEqual({
      status: '401',
      title: 'Unauthorized',
      detail: 'Unable to validate access token',
    });
  });

  it('carries the source only when given', () => {
    expect(new BadRequestError('x', 'filter').toErrorObject()).toEqual({
      status: '400',
      title: 'Bad Request',
      detail: 'x',
      source: 'filter',
    });
    expect(new BadRequestError('x').toErrorObject()).not.toHaveProperty('source');
  });

  it('asks for a retry after a 503', () => {
    expect(new ServiceUnavailableError().headers).toEqual({ 'Retry-After': '1' });
  });
});

describe('toApiError', () => {
  it('passes typed errors through unchanged', () => {
    const error = new ConflictError('the prefix is already in use');
    expect(toApiError(error)).toBe(error);
  });

  it.each([
    'ProvisionedThroughputExceededException',
    'ThrottlingException',
    'RequestLimitExceeded',
    'InternalServerError',
  ])('turns DynamoDB %s into a 503 with Retry-After', (name) => {
    const error = Object.assign(new Error('throttled'), { name });
    const mapped = toApiError(error);
    expect(mapped).toBeInstanceOf(ServiceUnavailableError);
    expect(mapped.headers['Retry-After']).toBe('1');
  });

  it('turns a refused connection to DynamoDB into a 503', () => {
    expect(
      toApiError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })).status,
    ).toBe(503);
  });

  it('turns a write that lost every retry to a concurrent transaction into a 409 (nothing was written)', () => {
    const single = Object.assign(new Error('Transaction is ongoing for the item'), {
      name: 'TransactionConflictException',
    });
    const cancelled = Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
    });
    for (const error of [single, cancelled]) {
      expect(toApiError(error).toErrorObject()).toEqual({
        status: '409',
        title: 'Conflict',
        detail: 'write conflict, please retry',
      });
    }
    // A condition that failed alongside is not a conflict: the caller decides what it means.
    const mixed = Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'TransactionConflict' }],
    });
    expect(toApiError(mixed).status).toBe(500);
  });

  it('turns anything else into a generic 500 that reveals nothing', () => {
    const mapped = toApiError(new TypeError("Cannot read properties of undefined (reading 'secret_hash')"));
    expect(mapped).toBeInstanceOf(ApiError);
    expect(mapped.toErrorObject()).toEqual({
      status: '500',
      title: 'Internal Server Error',
      detail: 'An unexpected error occurred',
    });
    expect(toApiError('a string').status).toBe(500);
    expect(toApiError(undefined).status).toBe(500);
  });
});
