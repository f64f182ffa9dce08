import fc from 'fast-check';
import { ApiError } from '../../lib/http/errors';
import {
  parseApplicationKeyId,
  parseApplicationKeyUpdate,
  parseNewApplicationKey,
} from '../../lib/validation/application-key';

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

const NAME_RULE = 'data.name must be a string of 1 to 255 characters, not only spaces';
const body = (data: Record<string, unknown>) => ({ data: { type: 'application_key', ...data } });

describe('parseNewApplicationKey', () => {
  it('takes name and reserved_rate_limit, defaulting the limit to 0', () => {
    expect(parseNewApplicationKey(body({ name: 'Web', reserved_rate_limit: 12 }))).toEqual({
      name: 'Web',
      reserved_rate_limit: 12,
    });
    expect(parseNewApplicationKey(body({ name: 'Web' }))).toEqual({ name: 'Web', reserved_rate_limit: 0 });
  });

  it('ignores read-only and unknown fields', () => {
    expect(
      parseNewApplicationKey(body({ name: 'Web', id: 'x', client_id: 'y', client_secret: 'z', meta: {} })),
    ).toEqual({ name: 'Web', reserved_rate_limit: 0 });
  });

  it('counts name length in characters, not UTF-16 units', () => {
    expect(parseNewApplicationKey(body({ name: '🔑'.repeat(255) })).name).toBe('🔑'.repeat(255));
    expect(errorOf(() => parseNewApplicationKey(body({ name: '🔑'.repeat(256) }))).source).toBe('data.name');
  });

  it.each([
    [undefined, 'body', 'body must be an object'],
    ['text', 'body', 'body must be an object'],
    [{}, 'data', 'data is required'],
    [{ data: [] }, 'data', 'data must be an object'],
    [{ data: { name: 'x' } }, 'data.type', 'data.type is required'],
    [{ data: { type: 'application_keys', name: 'x' } }, 'data.type', 'data.type must be application_key'],
    [body({}), 'data.name', 'data.name is required'],
    [body({ name: ['x'] }), 'data.name', NAME_RULE],
    [body({ name: '' }), 'data.name', NAME_RULE],
    [body({ name: '\t ' }), 'data.name', NAME_RULE],
    [body({ name: 'key \ud800' }), 'data.name', NAME_RULE],
    [
      body({ name: 'x', reserved_rate_limit: -1 }),
      'data.reserved_rate_limit',
      'data.reserved_rate_limit must be an integer greater than or equal to 0',
    ],
    [
      body({ name: 'x', reserved_rate_limit: 2 ** 53 }),
      'data.reserved_rate_limit',
      'data.reserved_rate_limit must be an integer greater than or equal to 0',
    ],
  ])('rejects %j with source %s', (input, source, detail) => {
    const error = errorOf(() => parseNewApplicationKey(input));
    expect(error.status).toBe(400);
    expect(error.source).toBe(source);
    expect(error.detail).toBe(detail);
  });

  it('accepts every integer from 0 and refuses every other number (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer({ min: -1000, max: 1_000_000 })), (value) => {
        const valid = Number.isSafeInteger(value) && value >= 0;
        if (valid) {
          expect(
            parseNewApplicationKey(body({ name: 'x', reserved_rate_limit: value })).reserved_rate_limit,
          ).toBe(value);
        } else {
          expect(
            errorOf(() => parseNewApplicationKey(body({ name: 'x', reserved_rate_limit: value }))).source,
          ).toBe('data.reserved_rate_limit');
        }
      }),
    );
  });
});

describe('parseApplicationKeyUpdate', () => {
  it('takes either field or both', () => {
    expect(parseApplicationKeyUpdate(body({ name: 'New' }))).toEqual({ name: 'New' });
    expect(parseApplicationKeyUpdate(body({ reserved_rate_limit: 0 }))).toEqual({ reserved_rate_limit: 0 });
    expect(parseApplicationKeyUpdate(body({ name: 'New', reserved_rate_limit: 3 }))).toEqual({
      name: 'New',
      reserved_rate_limit: 3,
    });
  });

  it('needs the exact type and at least one field', () => {
    expect(errorOf(() => parseApplicationKeyUpdate({ data: { name: 'x' } })).source).toBe('data.type');
    const empty = errorOf(() => parseApplicationKeyUpdate(body({ id: 'x' })));
    expect(empty.source).toBe('data');
    expect(empty.detail).toBe('data needs name or reserved_rate_limit');
    expect(errorOf(() => parseApplicationKeyUpdate(body({ name: null }))).source).toBe('data.name');
    expect(errorOf(() => parseApplicationKeyUpdate(body({ reserved_rate_limit: '1' }))).source).toBe(
      'data.reserved_rate_limit',
    );
  });
});

describe('parseApplicationKeyId', () => {
  it('lower-cases a UUID', () => {
    expect(parseApplicationKeyId('0190A0C0-0000-7000-8000-00000000000A')).toBe(
      '0190a0c0-0000-7000-8000-00000000000a',
    );
  });

  it.each(['', 'abc', '0190a0c0-0000-7000-8000-00000000000', '0190a0c0-0000-7000-8000-00000000000a/x'])(
    'answers 404, not 400, for %p',
    (raw) => {
      const error = errorOf(() => parseApplicationKeyId(raw));
      expect(error.status).toBe(404);
      expect(error.source).toBeUndefined();
    },
  );
});
