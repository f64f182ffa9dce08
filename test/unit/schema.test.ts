import fc from 'fast-check';
import { SVC_CHANNEL_SCHEMA, SVC_CONTEXT_TAG_SCHEMA } from '../../lib/catalog/child-list-response';
import { ApiError } from '../../lib/http/errors';
import { pageParameterSchemas } from '../../lib/pagination/index';
import { assertValid, compileSchema, type Schema } from '../../lib/schema/index';
import { ACCESS_TOKEN_REQUEST_SCHEMA } from '../../lib/validation/access-token';
import {
  APPLICATION_KEY_UPDATE_SCHEMA,
  NEW_APPLICATION_KEY_SCHEMA,
} from '../../lib/validation/application-key';
import { MAPPING_UPDATE_SCHEMA } from '../../lib/validation/merchant-realm-mapping';
import { createDocumentAjv } from '../support/openapi';

const page = pageParameterSchemas({ defaultLimit: 25 });
/** Every schema a handler validates input with. */
const REQUEST_SCHEMAS: Record<string, Schema> = {
  ApplicationKeyCreate: NEW_APPLICATION_KEY_SCHEMA,
  ApplicationKeyUpdate: APPLICATION_KEY_UPDATE_SCHEMA,
  MerchantRealmMappingUpdate: MAPPING_UPDATE_SCHEMA,
  AccessTokenRequest: ACCESS_TOKEN_REQUEST_SCHEMA,
  'page[limit]': page.limit,
  'page[offset]': page.offset,
  'SVC-Channel': SVC_CHANNEL_SCHEMA,
  'SVC-Context-Tag': SVC_CONTEXT_TAG_SCHEMA,
};

/** Values near a schema: valid ones, and ones wrong at any depth (missing keys, junk of every type). */
function near(schema: Schema): fc.Arbitrary<unknown> {
  const junk = fc.oneof(
    fc.jsonValue(),
    fc.constantFrom(null, '', ' ', 0, -1, 1.5, 2 ** 53, '__proto__', [], {}),
    fc.string({ unit: 'binary', maxLength: 300 }),
  );
  const candidates: fc.Arbitrary<unknown>[] = [junk];
  if (schema.const !== undefined) candidates.push(fc.constant(schema.const));
  if (schema.enum !== undefined) candidates.push(fc.constantFrom(...schema.enum));
  const type = schema.type;
  if (type === 'string') {
    candidates.push(
      fc.string({ maxLength: 70 }),
      fc.string({ unit: 'grapheme', minLength: 250, maxLength: 260 }),
    );
    // fast-check cannot generate from every pattern (no lookahead); the other strings still cover it.
    if (schema.pattern && !schema.pattern.includes('(?=')) {
      candidates.push(fc.stringMatching(new RegExp(schema.pattern, 'u')));
    }
  }
  if (type === 'integer') candidates.push(fc.integer({ min: -5, max: 20_000 }), fc.double());
  const branches = [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
  for (const branch of branches)
    candidates.push(
      near({
        ...branch,
        ...(schema.properties ? { properties: { ...schema.properties, ...branch.properties } } : {}),
      }),
    );
  if (schema.properties) {
    const shape = Object.fromEntries(
      Object.entries(schema.properties).map(([key, child]) => [key, near(child)]),
    );
    candidates.push(fc.record(shape, { requiredKeys: [] }), fc.record(shape));
  }
  return fc.oneof(...candidates);
}

describe('compileSchema agrees with Ajv on every request schema (property)', () => {
  const ajv = createDocumentAjv();
  it.each(Object.entries(REQUEST_SCHEMAS))('%s', (_name, schema) => {
    const ours = compileSchema(schema);
    const theirs = ajv.compile(JSON.parse(JSON.stringify(schema)));
    fc.assert(
      fc.property(near(schema), (value) => {
        expect({ value, valid: ours(value) === undefined }).toEqual({ value, valid: theirs(value) });
      }),
      { numRuns: 2000, seed: 7 },
    );
  });
});

describe('compileSchema', () => {
  const errorOf = (schema: Schema, value: unknown, root?: string) => {
    try {
      assertValid(compileSchema(schema, root === undefined ? {} : { root }), value);
    } catch (error) {
      if (error instanceof ApiError) return [error.status, error.source, error.detail];
    }
    return undefined;
  };

  it('names the path and the rule of the first problem, as a 400', () => {
    const schema: Schema = {
      type: 'object',
      required: ['data'],
      properties: { data: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } } },
    };
    expect(errorOf(schema, 'x')).toEqual([400, 'body', 'body must be an object']);
    expect(errorOf(schema, {})).toEqual([400, 'data', 'data is required']);
    expect(errorOf(schema, { data: { n: 0 } })).toEqual([
      400,
      'data.n',
      'data.n must be greater than or equal to 1',
    ]);
    expect(errorOf(schema, { data: { n: 1.5 } })).toEqual([400, 'data.n', 'data.n must be an integer']);
    expect(errorOf({ type: 'integer', 'x-message': 'must be 1-9' }, 'a', 'page[limit]')).toEqual([
      400,
      'page[limit]',
      'page[limit] must be 1-9',
    ]);
    expect(errorOf(schema, { data: { n: 3 } })).toBeUndefined();
  });

  it('reads only own properties: __proto__ and constructor are data, never the prototype', () => {
    const schema: Schema = {
      type: 'object',
      required: ['constructor'],
      properties: JSON.parse('{"constructor":{"type":"string"}}') as Record<string, Schema>,
    };
    expect(errorOf(schema, {})).toEqual([400, 'constructor', 'constructor is required']);
    expect(errorOf(schema, JSON.parse('{"constructor":1}'))).toEqual([
      400,
      'constructor',
      'constructor must be a string',
    ]);
    const proto: Schema = { type: 'object', properties: { __proto__: { type: 'string' } } as never };
    expect(errorOf(proto, JSON.parse('{"__proto__":{"polluted":true}}'))).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('counts string lengths in code points, as JSON Schema does', () => {
    const schema: Schema = { type: 'string', maxLength: 2 };
    expect(errorOf(schema, '🔑🔑')).toBeUndefined();
    expect(errorOf(schema, '🔑🔑🔑')?.[2]).toBe('body must be at most 2 characters');
  });

  it('picks the oneOf branch by its discriminator', () => {
    expect(errorOf(ACCESS_TOKEN_REQUEST_SCHEMA, { client_id: 'a' })).toEqual([
      400,
      'grant_type',
      'grant_type is required',
    ]);
    expect(errorOf(ACCESS_TOKEN_REQUEST_SCHEMA, { grant_type: 'password' })?.[2]).toBe(
      'grant_type must be client_credentials or implicit',
    );
    expect(
      errorOf(ACCESS_TOKEN_REQUEST_SCHEMA, { grant_type: 'client_credentials', client_id: 'a' })?.[1],
    ).toBe('client_secret');
    expect(errorOf(ACCESS_TOKEN_REQUEST_SCHEMA, { grant_type: 'implicit', client_id: 'a' })).toBeUndefined();
  });

  it('refuses keywords it does not check, so the published document never promises more than is checked', () => {
    // Compiled on first use: that is where a bad schema throws.
    expect(() => compileSchema({ type: 'string', format: 'uuid', uniqueItems: true } as Schema)('a')).toThrow(
      'schema keyword uniqueItems is not supported',
    );
    expect(() => compileSchema({ anyOf: [{ required: ['a'] }] })({})).toThrow('anyOf needs an x-message');
    expect(() => compileSchema({ oneOf: [{ type: 'string' }] })('a')).toThrow('oneOf needs a discriminator');
  });
});
