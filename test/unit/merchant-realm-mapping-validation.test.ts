import fc from 'fast-check';
import { BadRequestError } from '../../lib/http/errors';
import { isValidPrefix, parseMappingUpdate } from '../../lib/validation/merchant-realm-mapping';

/** Runs the validator and returns the 400 it threw (fails the test if it threw nothing else). */
function rejection(body: unknown): BadRequestError {
  try {
    parseMappingUpdate(body);
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    return error as BadRequestError;
  }
  throw new Error('expected a BadRequestError');
}

const PREFIX_RULE =
  'data.prefix must be a string of 2-63 characters of A-Z a-z 0-9 and -, not starting or ending with -';

describe('parseMappingUpdate', () => {
  it('accepts the body the official SDK sends and returns only the prefix', () => {
    expect(parseMappingUpdate({ data: { prefix: 'my-shop', type: 'merchant-realm-mappings' } })).toEqual({
      prefix: 'my-shop',
    });
  });

  it('ignores the read-only fields id, realm_id and store_id', () => {
    const body = {
      data: {
        type: 'merchant-realm-mappings',
        prefix: 'Shop1',
        id: 'not-a-uuid',
        realm_id: 42,
        store_id: null,
        unknown: { nested: true },
      },
    };
    expect(parseMappingUpdate(body)).toEqual({ prefix: 'Shop1' });
  });

  it.each([
    ['no body', undefined, 'body', 'body must be an object'],
    ['null', null, 'body', 'body must be an object'],
    ['an array', [{ data: {} }], 'body', 'body must be an object'],
    ['a string', 'data', 'body', 'body must be an object'],
    ['a number', 7, 'body', 'body must be an object'],
    ['an object without data', { prefix: 'shop' }, 'data', 'data is required'],
    ['data null', { data: null }, 'data', 'data must be an object'],
    ['data an array', { data: [] }, 'data', 'data must be an object'],
    ['data a string', { data: 'merchant-realm-mappings' }, 'data', 'data must be an object'],
  ])('rejects %s with 400 naming %s', (_label, body, source, detail) => {
    const error = rejection(body);
    expect([error.status, error.source, error.detail]).toEqual([400, source, detail]);
  });

  it('requires data.type', () => {
    const error = rejection({ data: { prefix: 'shop' } });
    expect([error.status, error.source, error.detail]).toEqual([400, 'data.type', 'data.type is required']);
  });

  it.each([
    'merchant_realm_mappings',
    'Merchant-Realm-Mappings',
    'merchant-realm-mapping',
    '',
    ' merchant-realm-mappings',
    1,
    null,
    ['merchant-realm-mappings'],
  ])('rejects data.type %p', (type) => {
    const error = rejection({ data: { type, prefix: 'shop' } });
    expect([error.status, error.source, error.detail]).toEqual([
      400,
      'data.type',
      'data.type must be merchant-realm-mappings',
    ]);
  });

  it('checks the type before the prefix', () => {
    expect(rejection({ data: { type: 'x', prefix: '-' } }).source).toBe('data.type');
  });

  it('requires data.prefix', () => {
    const error = rejection({ data: { type: 'merchant-realm-mappings' } });
    expect([error.status, error.source, error.detail]).toEqual([
      400,
      'data.prefix',
      'data.prefix is required',
    ]);
  });

  it.each([null, 12, true, { value: 'shop' }, ['shop']])('rejects a non-string prefix %p', (prefix) => {
    const error = rejection({ data: { type: 'merchant-realm-mappings', prefix } });
    expect([error.status, error.source, error.detail]).toEqual([400, 'data.prefix', PREFIX_RULE]);
  });

  it.each([
    '',
    'a',
    '-shop',
    'shop-',
    '-',
    '--',
    'my shop',
    'my_shop',
    'my.shop',
    'shöp',
    'shop\n',
    ' shop',
    'a'.repeat(64),
  ])('rejects the prefix %p with the rule', (prefix) => {
    const error = rejection({ data: { type: 'merchant-realm-mappings', prefix } });
    expect([error.status, error.source, error.detail]).toEqual([400, 'data.prefix', PREFIX_RULE]);
  });

  it.each(['ab', 'A1', '9z', 'a-b', 'a--b', 'My-Shop-2024', 'a'.repeat(63), `a${'-'.repeat(61)}b`])(
    'accepts the prefix %p',
    (prefix) => {
      expect(parseMappingUpdate({ data: { type: 'merchant-realm-mappings', prefix } })).toEqual({ prefix });
    },
  );
});

describe('isValidPrefix (properties)', () => {
  const ALNUM = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'];
  const alnum = fc.constantFrom(...ALNUM);
  const inner = fc.constantFrom(...ALNUM, '-');

  it('accepts every 2-63 character string of the alphabet that starts and ends with a letter or digit', () => {
    fc.assert(
      fc.property(alnum, fc.array(inner, { maxLength: 61 }), alnum, (first, middle, last) => {
        expect(isValidPrefix(`${first}${middle.join('')}${last}`)).toBe(true);
      }),
    );
  });

  it('rejects any string holding a character outside A-Z a-z 0-9 -', () => {
    const outside = fc
      .string({ minLength: 1, maxLength: 1, unit: 'grapheme' })
      .filter((c) => !/^[A-Za-z0-9-]$/.test(c));
    fc.assert(
      fc.property(
        fc.array(alnum, { minLength: 1, maxLength: 30 }),
        outside,
        fc.array(alnum, { minLength: 1, maxLength: 30 }),
        (a, bad, b) => {
          expect(isValidPrefix(`${a.join('')}${bad}${b.join('')}`)).toBe(false);
        },
      ),
    );
  });

  it('rejects every string longer than 63 characters', () => {
    fc.assert(
      fc.property(fc.array(alnum, { minLength: 64, maxLength: 200 }), (chars) => {
        expect(isValidPrefix(chars.join(''))).toBe(false);
      }),
    );
  });
});
