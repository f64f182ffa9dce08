import { buildHandler } from '../../functions/create-handler';
import { handler as putDocument } from '../../functions/pcm-put-catalog-document/handler';
import { clearAuthCache } from '../../lib/auth/authenticate';
import { generateAccessToken, hashSecret } from '../../lib/auth/secrets';
import {
  ConflictError,
  NotFoundError,
  ServiceUnavailableError,
  UnprocessableEntityError,
} from '../../lib/http/errors';
import { ok } from '../../lib/http/response';
import { tokenRepository } from '../../lib/store/token-repository';
import { bearer, createTestStore, invoke, type TestStore, tokenFor } from '../support/fixtures';

/** A small admin route for the middleware tests: echoes what the stack derived, or throws on request. */
const adminEcho = buildHandler('test-admin-echo', { auth: 'admin', body: 'json' }, {}, async (event) => {
  const fail = event.queryStringParameters?.fail;
  if (fail === 'not-found') throw new NotFoundError();
  if (fail === 'conflict') throw new ConflictError('the prefix is already in use', 'data.prefix');
  if (fail === 'unprocessable') throw new UnprocessableEntityError('the product is not a base product');
  if (fail === 'unavailable')
    throw Object.assign(new Error('Rate of requests exceeds'), { name: 'ThrottlingException' });
  if (fail === 'unavailable-typed') throw new ServiceUnavailableError('try later', 3);
  if (fail === 'crash')
    throw new TypeError(`secret internals at /var/task/index.mjs: ${event.headers.authorization}`);
  return ok({ store_id: event.auth.storeId, kind: event.auth.kind, body: event.parsedBody ?? null });
});
const anyEcho = buildHandler('test-any-echo', { auth: 'any' }, {}, async (event) =>
  ok({ kind: event.auth.kind }),
);

let store: TestStore;
let adminToken: string;

beforeAll(async () => {
  store = await createTestStore();
  adminToken = await tokenFor(store);
});

function expectErrorBody(body: any, status: number, title: string, detail: string, source?: string) {
  expect(body).toEqual({
    errors: [
      {
        status: String(status),
        title,
        detail,
        ...(source === undefined ? {} : { source }),
        request_id: expect.any(String),
      },
    ],
  });
}

describe('auth middleware', () => {
  it('passes a client_credentials token on an admin route and resolves its store', async () => {
    const res = await invoke(adminEcho, { method: 'GET', path: '/echo', headers: bearer(adminToken) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ store_id: store.store.id, kind: 'client_credentials', body: null });
  });

  it.each([
    ['no Authorization header', undefined],
    ['a non-Bearer scheme', 'Basic dXNlcjpwYXNz'],
    ['a malformed bearer value', 'Bearer not a token!'],
    ['a token of another shape', 'Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    [
      'a well-formed token nobody issued',
      'Bearer 0190a0c0-0000-7000-8000-000000000001.0190a0c0-0000-7000-8000-000000000003.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ],
  ])('answers 401 for %s', async (_case, authorization) => {
    const res = await invoke(adminEcho, { method: 'GET', path: '/echo', headers: { authorization } });
    expect(res.status).toBe(401);
    expect(res.headers['Content-Type']).toBe('application/json');
    expectErrorBody(res.body, 401, 'Unauthorized', 'Unable to validate access token');
  });

  it('answers 401 to a real token whose store id was swapped for another store’s', async () => {
    const other = await createTestStore();
    const forged = adminToken.replace(store.store.id, other.store.id);
    expect(forged).not.toBe(adminToken);
    const res = await invoke(adminEcho, { method: 'GET', path: '/echo', headers: bearer(forged) });
    expect(res.status).toBe(401);
  });

  it('answers 403 to an implicit (storefront) token on an admin route', async () => {
    const implicit = await tokenFor(store, 'implicit');
    const res = await invoke(adminEcho, { method: 'GET', path: '/echo', headers: bearer(implicit) });
    expect(res.status).toBe(403);
    expectErrorBody(res.body, 403, 'Forbidden', 'This token is not allowed to perform this operation');
  });

  it('lets an implicit token through on a route that accepts any token', async () => {
    const implicit = await tokenFor(store, 'implicit');
    const res = await invoke(anyEcho, { method: 'GET', path: '/echo', headers: bearer(implicit) });
    expect(res).toMatchObject({ status: 200, body: { kind: 'implicit' } });
  });

  it('rejects an expired token even while its item still exists (before TTL removes it)', async () => {
    const token = generateAccessToken(store.store.id, store.keyId);
    await tokenRepository.issue(
      hashSecret(token),
      {
        store_id: store.store.id,
        key_id: store.keyId,
        kind: 'client_credentials',
        expires_at: Math.floor(Date.now() / 1000) - 1,
      },
      new Date().toISOString(),
    );
    clearAuthCache();
    const res = await invoke(adminEcho, { method: 'GET', path: '/echo', headers: bearer(token) });
    expect(res.status).toBe(401);
    expectErrorBody(res.body, 401, 'Unauthorized', 'Unable to validate access token');
  });

  it('never echoes the token in an error response', async () => {
    const res = await invoke(adminEcho, {
      method: 'GET',
      path: '/echo?fail=crash',
      headers: bearer(adminToken),
    });
    expect(res.status).toBe(500);
    expect(res.raw).not.toContain(adminToken);
  });
});

describe('body parsing', () => {
  it('parses a JSON body', async () => {
    const res = await invoke(adminEcho, {
      method: 'POST',
      path: '/echo',
      headers: bearer(adminToken, { 'content-type': 'application/json; charset=utf-8' }),
      body: '{"data":{"a":1}}',
    });
    expect(res).toMatchObject({ status: 200, body: { body: { data: { a: 1 } } } });
  });

  it('parses a base64-encoded JSON body', async () => {
    const res = await invoke(adminEcho, {
      method: 'POST',
      path: '/echo',
      headers: bearer(adminToken, { 'content-type': 'application/json' }),
      body: Buffer.from('{"x":true}').toString('base64'),
      isBase64Encoded: true,
    });
    expect(res).toMatchObject({ status: 200, body: { body: { x: true } } });
  });

  it('answers 400 to malformed JSON', async () => {
    const res = await invoke(adminEcho, {
      method: 'POST',
      path: '/echo',
      headers: bearer(adminToken, { 'content-type': 'application/json' }),
      body: '{"data":',
    });
    expect(res.status).toBe(400);
    expectErrorBody(res.body, 400, 'Bad Request', 'request body is not valid JSON', 'body');
  });

  it('answers 415 to a body that is not JSON', async () => {
    const res = await invoke(adminEcho, {
      method: 'POST',
      path: '/echo',
      headers: bearer(adminToken, { 'content-type': 'text/plain' }),
      body: 'hello',
    });
    expect(res.status).toBe(415);
    expectErrorBody(
      res.body,
      415,
      'Unsupported Media Type',
      'Content-Type must be application/json',
      'content-type',
    );
  });

  it('ignores a body of any size on a route that takes none', async () => {
    const res = await invoke(anyEcho, {
      method: 'GET',
      path: '/echo',
      headers: bearer(adminToken, { 'content-type': 'text/plain; charset=latin1' }),
      body: 'x'.repeat(70 * 1024),
    });
    expect(res.status).toBe(200);
  });

  it('answers 413 to a body over 64 KiB, before parsing it', async () => {
    const res = await invoke(adminEcho, {
      method: 'POST',
      path: '/echo',
      headers: bearer(adminToken, { 'content-type': 'application/json' }),
      body: `{"pad":"${'x'.repeat(64 * 1024)}"}`,
    });
    expect(res.status).toBe(413);
    expectErrorBody(res.body, 413, 'Payload Too Large', 'request body must be at most 65536 bytes');
  });

  it('answers 413 to a document over 5 MB, pointing at the uploads that take larger ones', async () => {
    const res = await invoke(putDocument, {
      method: 'PUT',
      path: '/pcm/catalogs/0190a4a4-0000-7000-8000-000000000000/document',
      routeKey: 'PUT /pcm/catalogs/{catalog_id}/document',
      pathParameters: { catalog_id: '0190a4a4-0000-7000-8000-000000000000' },
      headers: bearer(adminToken, { 'content-type': 'application/json' }),
      body: `{"pad":"${'x'.repeat(5 * 1024 * 1024)}"}`,
    });
    expectErrorBody(
      res.body,
      413,
      'Payload Too Large',
      'request body must be at most 5242880 bytes: upload a larger document with POST /pcm/catalogs/{catalog_id}/document-uploads (docs/catalog-api.md)',
    );
  });
});

describe('error middleware', () => {
  it.each([
    ['not-found', 404, 'Not Found', 'The requested resource could not be found', undefined],
    ['conflict', 409, 'Conflict', 'the prefix is already in use', 'data.prefix'],
    ['unprocessable', 422, 'Unprocessable Entity', 'the product is not a base product', undefined],
  ])('maps a thrown %s to %i', async (fail, status, title, detail, source) => {
    const res = await invoke(adminEcho, {
      method: 'GET',
      path: `/echo?fail=${fail}`,
      headers: bearer(adminToken),
    });
    expect(res.status).toBe(status);
    expectErrorBody(res.body, status, title, detail, source);
  });

  it('maps DynamoDB throttling to 503 with Retry-After', async () => {
    const res = await invoke(adminEcho, {
      method: 'GET',
      path: '/echo?fail=unavailable',
      headers: bearer(adminToken),
    });
    expect(res.status).toBe(503);
    expect(res.headers['Retry-After']).toBe('1');
    expectErrorBody(
      res.body,
      503,
      'Service Unavailable',
      'The service is temporarily unavailable, please retry',
    );
  });

  it('keeps the Retry-After of a typed 503', async () => {
    const res = await invoke(adminEcho, {
      method: 'GET',
      path: '/echo?fail=unavailable-typed',
      headers: bearer(adminToken),
    });
    expect(res.status).toBe(503);
    expect(res.headers['Retry-After']).toBe('3');
  });

  it('turns an unexpected error into a generic 500 without stack or internals', async () => {
    const res = await invoke(adminEcho, {
      method: 'GET',
      path: '/echo?fail=crash',
      headers: bearer(adminToken),
    });
    expect(res.status).toBe(500);
    expectErrorBody(res.body, 500, 'Internal Server Error', 'An unexpected error occurred');
    expect(res.raw).not.toMatch(/var\/task|TypeError|stack/);
  });
});
