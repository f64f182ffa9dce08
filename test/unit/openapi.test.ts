import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { FUNCTIONS, ROUTE_TABLE, ROUTES } from '../../functions/routes';
import { buildOpenApiDocument } from '../../lib/openapi/document';
import { COMPONENT_SCHEMAS } from '../../lib/openapi/schemas';
import { OPENAPI_FILE, openApiText } from '../../local/openapi';
import { createDocumentAjv, type ObservedResponse, responseProblems } from '../support/openapi';

const document = buildOpenApiDocument(ROUTE_TABLE) as Record<string, any>;

describe('openapi.json', () => {
  it('is the document the code builds (run `npm run openapi` after changing a route or schema)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(openApiText());
  });

  it('is titled by every part of the API it describes, not by the first operations alone', () => {
    expect(document.info.title).toBe(
      'Commerce API: authentication, application keys, merchant realm mappings, catalog, catalog publishing, catalog rules, files, currencies, products, variations, hierarchies, jobs, price books and integrations',
    );
    expect(document.tags.map((tag: { name: string }) => tag.name)).toEqual([
      'Authentication',
      'Application keys',
      'Merchant realm mappings',
      'Catalog',
      'Catalog publishing',
      'Catalog rules',
      'Files',
      'Currencies',
      'Products',
      'Variations',
      'Hierarchies',
      'Jobs',
      'Price books',
      'Integrations',
    ]);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has exactly one operation per route of the route table, secured as the function requires', () => {
    const operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(
      ([path, methods]) =>
        Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
    );
    expect(operations.map((o) => o.key).sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    for (const route of ROUTES) {
      const op = document.paths[route.path][route.method.toLowerCase()];
      const auth = FUNCTIONS[route.function].auth;
      expect(op['x-function']).toBe(route.function);
      expect(op.security).toEqual(
        auth === 'none' ? [] : [{ [auth === 'admin' ? 'adminToken' : 'anyToken']: [] }],
      );
      if (auth !== 'none') expect(Object.keys(op.responses)).toContain('401');
      if (auth === 'admin') expect(Object.keys(op.responses)).toContain('403');
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['500', '503']));
    }
  });

  it('publishes every component schema, and each compiles in strict JSON Schema 2020-12', () => {
    expect(Object.keys(document.components.schemas).sort()).toEqual(Object.keys(COMPONENT_SCHEMAS).sort());
    const ajv = createDocumentAjv();
    for (const name of Object.keys(COMPONENT_SCHEMAS)) {
      expect(() => ajv.getSchema(`https://commerce-api.local/components#/$defs/${name}`)).not.toThrow();
    }
  });

  it('publishes the schemas the handlers validate request bodies with', () => {
    const body = (path: string, method: string) =>
      document.paths[path][method].requestBody.content['application/json'].schema;
    expect(body('/v2/application-keys', 'post')).toEqual({
      $ref: '#/components/schemas/ApplicationKeyCreate',
    });
    expect(body('/v2/application-keys/{id}', 'put')).toEqual({
      $ref: '#/components/schemas/ApplicationKeyUpdate',
    });
    expect(body('/v2/merchant-realm-mappings/{mapping_id}', 'put')).toEqual({
      $ref: '#/components/schemas/MerchantRealmMappingUpdate',
    });
    expect(Object.keys(document.paths['/oauth/access_token'].post.requestBody.content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
  });
});

describe('responseProblems (the suites check every response with it)', () => {
  const key = {
    id: '0190a0c0-0000-7000-8000-00000000000a',
    type: 'application_key',
    name: 'Web',
    client_id: 'abc',
    reserved_rate_limit: 0,
    meta: {
      timestamps: {
        created_at: '2026-11-22T05:00:00.000Z',
        updated_at: '2026-11-22T05:00:00.000Z',
        last_used_at: null,
      },
    },
  };
  const good: ObservedResponse = {
    method: 'GET',
    path: `/v2/application-keys/${key.id}`,
    status: 200,
    headers: {
      'Content-Type': 'application/json',
      'X-Content-Type-Options': 'nosniff',
      'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
      'Cache-Control': 'no-store',
    },
    body: JSON.stringify({ data: key, links: { self: `http://x/v2/application-keys/${key.id}` } }),
  };

  it('accepts a response that matches', () => {
    expect(responseProblems(good)).toEqual([]);
  });

  it.each([
    ['an undocumented status', { status: 418 }, 'status not documented'],
    [
      'a missing security header',
      { headers: { ...good.headers, 'X-Content-Type-Options': undefined } },
      'X-Content-Type-Options is missing',
    ],
    [
      'a cacheable admin response',
      { headers: { ...good.headers, 'Cache-Control': 'max-age=60' } },
      'header Cache-Control',
    ],
    [
      'a leaked client secret',
      { body: JSON.stringify({ data: { ...key, client_secret: 's' }, links: { self: 'x' } }) },
      'must NOT have additional properties',
    ],
    [
      'a wrong field type',
      { body: JSON.stringify({ data: { ...key, reserved_rate_limit: '0' }, links: { self: 'x' } }) },
      'must be integer',
    ],
    ['a body that is not JSON', { body: 'oops' }, 'not JSON'],
    [
      'a wrong content type',
      { headers: { ...good.headers, 'Content-Type': 'text/plain' } },
      'not application/json',
    ],
    ['a path outside the document', { path: '/v3/things' }, 'is not a route'],
  ])('reports %s', (_label, change, message) => {
    const problems = responseProblems({ ...good, ...(change as Partial<ObservedResponse>) });
    expect(problems.join('\n')).toContain(message);
  });

  it('requires Retry-After on a 503 and a valid error body on every error', () => {
    const error = {
      ...good,
      status: 503,
      body: JSON.stringify({
        errors: [{ status: '503', title: 'Service Unavailable', detail: 'x', request_id: 'r' }],
      }),
    };
    expect(responseProblems(error).join('\n')).toContain('Retry-After is missing');
    expect(responseProblems({ ...error, headers: { ...error.headers, 'Retry-After': '1' } })).toEqual([]);
    expect(
      responseProblems({
        ...error,
        headers: { ...error.headers, 'Retry-After': '1' },
        body: '{"message":"x"}',
      }).join('\n'),
    ).toContain('body');
  });
});
