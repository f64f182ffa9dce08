import { handler } from '../../functions/create-access-token/handler';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { getDocumentClient } from '../../lib/store/client';
import { ScanCommand } from '../../lib/store/dynamodb';
import { tableName } from '../../lib/store/schema';
import { createTestStore, invoke, type TestStore } from '../support/fixtures';

let store: TestStore;
beforeAll(async () => {
  store = await createTestStore();
});

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  path: '/oauth/access_token',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});
const jsonBody = (fields: unknown) => ({
  method: 'POST',
  path: '/oauth/access_token',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(fields),
});

describe('POST /oauth/access_token', () => {
  it('issues a client_credentials token from a form body', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await invoke(
      handler,
      form({
        grant_type: 'client_credentials',
        client_id: store.clientId,
        client_secret: store.clientSecret,
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers['Cache-Control']).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^[0-9a-f-]{36}\.[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      expires: expect.any(Number),
      identifier: 'client_credentials',
    });
    expect(res.body.expires).toBeGreaterThanOrEqual(before + 3600);
    expect(res.body.expires).toBeLessThanOrEqual(before + 3601);
  });

  it('issues an implicit token from a JSON body with only the client id', async () => {
    const res = await invoke(handler, jsonBody({ grant_type: 'implicit', client_id: store.clientId }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', identifier: 'implicit', expires_in: 3600 });
  });

  it('stamps the key’s last_used_at when a token is issued', async () => {
    const fresh = await createTestStore();
    expect((await applicationKeyRepository.get(fresh.store.id, fresh.keyId, true))?.last_used_at).toBeNull();
    await invoke(handler, jsonBody({ grant_type: 'implicit', client_id: fresh.clientId }));
    const key = await applicationKeyRepository.get(fresh.store.id, fresh.keyId, true);
    expect(key?.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('stores neither the token nor the secret in clear', async () => {
    const res = await invoke(
      handler,
      jsonBody({
        grant_type: 'client_credentials',
        client_id: store.clientId,
        client_secret: store.clientSecret,
      }),
    );
    const items = await getDocumentClient().send(new ScanCommand({ TableName: tableName('keys') }));
    const dump = JSON.stringify(items.Items);
    expect(dump).not.toContain(res.body.access_token);
    expect(dump).not.toContain(store.clientSecret);
  });

  it('answers a wrong secret and an unknown client id with the same 401', async () => {
    const wrong = await invoke(
      handler,
      form({
        grant_type: 'client_credentials',
        client_id: store.clientId,
        client_secret: `${store.clientSecret}x`,
      }),
    );
    const unknown = await invoke(
      handler,
      form({
        grant_type: 'client_credentials',
        client_id: 'f'.repeat(40),
        client_secret: store.clientSecret,
      }),
    );
    const unknownImplicit = await invoke(
      handler,
      form({ grant_type: 'implicit', client_id: 'f'.repeat(40) }),
    );
    for (const res of [wrong, unknown, unknownImplicit]) {
      expect(res.status).toBe(401);
      expect(res.body.errors[0]).toMatchObject({
        status: '401',
        title: 'Unauthorized',
        detail: 'Invalid client credentials',
      });
      expect(res.raw).not.toContain(store.clientSecret);
    }
  });

  it.each([
    [{}, 'grant_type is required', 'grant_type'],
    [
      { grant_type: 'password', client_id: 'x' },
      'grant_type must be client_credentials or implicit',
      'grant_type',
    ],
    [{ grant_type: 'client_credentials', client_secret: 's' }, 'client_id is required', 'client_id'],
    [{ grant_type: 'client_credentials', client_id: 'abc' }, 'client_secret is required', 'client_secret'],
    [
      { grant_type: 'implicit', client_id: 42 },
      'client_id must be a string of 1 to 512 characters, at most 512 bytes in UTF-8',
      'client_id',
    ],
  ])('answers 400 to %p', async (body, detail, source) => {
    const res = await invoke(handler, jsonBody(body));
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ status: '400', title: 'Bad Request', detail, source });
  });

  it('answers 400 to a JSON body that is not an object', async () => {
    const res = await invoke(handler, jsonBody(['grant_type']));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toBe('body');
  });

  it('answers 400 to a request without a body', async () => {
    const res = await invoke(handler, { method: 'POST', path: '/oauth/access_token' });
    expect(res.status).toBe(400);
  });

  it('answers 415 to an unsupported content type', async () => {
    const res = await invoke(handler, {
      method: 'POST',
      path: '/oauth/access_token',
      headers: { 'content-type': 'text/plain' },
      body: 'grant_type=implicit',
    });
    expect(res.status).toBe(415);
    expect(res.body.errors[0].detail).toBe(
      'Content-Type must be application/json or application/x-www-form-urlencoded',
    );
  });

  it.each([
    ['grant_type=client_credentials&grant_type=implicit&client_id=abc', 'grant_type'],
    ['grant_type=implicit&client_id=abc&client_id=def', 'client_id'],
    ['grant_type=implicit&client_id=abc&client_id=abc', 'client_id'],
  ])('answers 400 invalid_request to a repeated form parameter (%s), issuing nothing', async (body, name) => {
    const res = await invoke(handler, {
      method: 'POST',
      path: '/oauth/access_token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.replaceAll('abc', store.clientId),
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      detail: `invalid_request: parameter ${name} is repeated`,
      source: name,
    });
  });

  it.each([
    ['application/json; charset=latin1', JSON.stringify({ grant_type: 'implicit', client_id: 'x' })],
    ['application/json;charset="ISO-8859-1"', JSON.stringify({ grant_type: 'implicit', client_id: 'x' })],
    ['application/x-www-form-urlencoded; charset=windows-1252', 'grant_type=implicit&client_id=x'],
  ])('answers 415 to a body declared in another charset than UTF-8 (%s)', async (contentType, body) => {
    const res = await invoke(handler, {
      method: 'POST',
      path: '/oauth/access_token',
      headers: { 'content-type': contentType },
      body: body.replace('"x"', JSON.stringify(store.clientId)).replace('=x', `=${store.clientId}`),
    });
    expect(res.status).toBe(415);
    expect(res.body.errors[0]).toMatchObject({
      detail: 'request body must be encoded in UTF-8',
      source: 'content-type',
    });
  });

  it.each([
    'application/json; charset=utf-8',
    'Application/JSON; Charset="UTF-8"',
    'application/json;charset=utf8',
  ])('accepts a JSON body declared as UTF-8 (%s)', async (contentType) => {
    const res = await invoke(handler, {
      method: 'POST',
      path: '/oauth/access_token',
      headers: { 'content-type': contentType },
      body: JSON.stringify({ grant_type: 'implicit', client_id: store.clientId }),
    });
    expect(res.status).toBe(200);
  });

  it.each([
    ['512 four-byte characters (2,048 bytes)', '\u{1F600}'.repeat(512), 400],
    ['129 four-byte characters (516 bytes)', '\u{1F600}'.repeat(129), 400],
    ['513 ASCII characters', 'a'.repeat(513), 400],
    ['128 four-byte characters (512 bytes)', '\u{1F600}'.repeat(128), 401],
    ['171 three-byte characters (513 bytes)', '\u4E2D'.repeat(171), 400],
    ['170 three-byte characters (510 bytes)', '\u4E2D'.repeat(170), 401],
  ])('limits client_id to 512 bytes of UTF-8, not characters: %s', async (_case, clientId, status) => {
    const res = await invoke(handler, jsonBody({ grant_type: 'implicit', client_id: clientId }));
    expect(res.status).toBe(status);
    if (status === 400) {
      expect(res.body.errors[0]).toMatchObject({
        source: 'client_id',
        detail: 'client_id must be a string of 1 to 512 characters, at most 512 bytes in UTF-8',
      });
    }
  });

  it('answers 400 to malformed JSON and 413 to an oversized body', async () => {
    const malformed = await invoke(handler, {
      method: 'POST',
      path: '/oauth/access_token',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":',
    });
    expect(malformed.status).toBe(400);
    const oversized = await invoke(
      handler,
      form({ grant_type: 'implicit', client_id: 'x'.repeat(70 * 1024) }),
    );
    expect(oversized.status).toBe(413);
  });
});
