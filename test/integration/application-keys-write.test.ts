import { handler as createKey } from '../../functions/create-application-key/handler';
import { handler as deleteKey } from '../../functions/delete-application-key/handler';
import { handler as getKey } from '../../functions/get-application-key/handler';
import { handler as listKeys } from '../../functions/list-application-keys/handler';
import { handler as updateKey } from '../../functions/update-application-key/handler';
import { handler as updateMapping } from '../../functions/update-merchant-realm-mapping/handler';
import { authenticate, clearAuthCache } from '../../lib/auth/authenticate';
import { issueAccessToken } from '../../lib/auth/issue-token';
import { hashSecret } from '../../lib/auth/secrets';
import { getConfig } from '../../lib/config/index';
import { writeCaller } from '../../lib/http/write-caller';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { getDocumentClient } from '../../lib/store/client';
import { UpdateCommand } from '../../lib/store/dynamodb';
import { mappingRepository } from '../../lib/store/mapping-repository';
import { keysTable, tableName } from '../../lib/store/schema';
import { storeRepository } from '../../lib/store/store-repository';
import { bearer, createTestStore, invoke, type TestStore, tokenFor } from '../support/fixtures';

const ORIGIN = 'https://api.example.test';
const HEADERS = {
  host: 'api.example.test',
  'x-forwarded-proto': 'https',
  'content-type': 'application/json',
};
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_ID = '0190a0c0-ffff-7fff-8fff-ffffffffffff';

function post(token: string, body: unknown) {
  return invoke(createKey, {
    method: 'POST',
    path: '/v2/application-keys',
    headers: bearer(token, HEADERS),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function put(token: string, id: string, body: unknown) {
  return invoke(updateKey, {
    method: 'PUT',
    path: `/v2/application-keys/${id}`,
    headers: bearer(token, HEADERS),
    pathParameters: { id },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function get(token: string, id: string) {
  return invoke(getKey, {
    method: 'GET',
    path: `/v2/application-keys/${id}`,
    headers: bearer(token, HEADERS),
    pathParameters: { id },
  });
}

function remove(token: string, id: string) {
  return invoke(deleteKey, {
    method: 'DELETE',
    path: `/v2/application-keys/${id}`,
    headers: bearer(token, HEADERS),
    pathParameters: { id },
  });
}

async function counters(storeId: string) {
  const store = await storeRepository.get(storeId, true);
  return { key_count: store?.key_count, reserved_rate_limit_total: store?.reserved_rate_limit_total };
}

let store: TestStore;
let token: string;

beforeAll(async () => {
  store = await createTestStore({ rate_limit: 100 });
  token = await tokenFor(store);
});

describe('POST /v2/application-keys', () => {
  it('creates a key, shows its secret once and counts it', async () => {
    const before = await counters(store.store.id);
    const response = await post(token, {
      data: { type: 'application_key', name: 'Storefront', reserved_rate_limit: 10 },
    });
    expect(response.status).toBe(201);
    const data = response.body.data;
    expect(Object.keys(data)).toEqual([
      'id',
      'name',
      'type',
      'client_id',
      'reserved_rate_limit',
      'client_secret',
      'meta',
    ]);
    expect(data).toMatchObject({ name: 'Storefront', type: 'application_key', reserved_rate_limit: 10 });
    expect(data.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(data.meta.timestamps.created_at).toMatch(ISO_MS);
    expect(data.meta.timestamps.updated_at).toBe(data.meta.timestamps.created_at);
    expect(data.meta.timestamps.last_used_at).toBeNull();
    expect(response.body.links).toEqual({ self: `${ORIGIN}/v2/application-keys/${data.id}` });
    expect(response.headers.Location).toBe(`${ORIGIN}/v2/application-keys/${data.id}`);
    expect(response.headers['Cache-Control']).toBe('no-store');
    expect(await counters(store.store.id)).toEqual({
      key_count: (before.key_count ?? 0) + 1,
      reserved_rate_limit_total: (before.reserved_rate_limit_total ?? 0) + 10,
    });

    // The new credentials work, and the secret is never shown again.
    const issued = await issueAccessToken({
      grant_type: 'client_credentials',
      client_id: data.client_id,
      client_secret: data.client_secret,
    });
    expect(issued.identifier).toBe('client_credentials');
    const fetched = await get(token, data.id);
    expect(fetched.status).toBe(200);
    expect(fetched.raw).not.toContain(data.client_secret);
    expect(fetched.body.data.client_secret).toBeUndefined();
    expect(fetched.body.data.meta.timestamps.last_used_at).toMatch(ISO_MS);
    const listed = await invoke(listKeys, {
      method: 'GET',
      path: '/v2/application-keys?page[limit]=100',
      headers: bearer(token, HEADERS),
    });
    expect(listed.raw).not.toContain(data.client_secret);
  });

  it('defaults reserved_rate_limit to 0 and ignores read-only fields', async () => {
    const response = await post(token, {
      data: { type: 'application_key', name: 'Plain', id: UNKNOWN_ID, client_id: 'mine', client_secret: 'x' },
    });
    expect(response.status).toBe(201);
    expect(response.body.data.reserved_rate_limit).toBe(0);
    expect(response.body.data.id).not.toBe(UNKNOWN_ID);
    expect(response.body.data.client_id).toMatch(/^[0-9a-f]{40}$/);
    expect(response.body.data.client_secret).not.toBe('x');
  });

  it('accepts a 255-character name and a 1-character name', async () => {
    expect((await post(token, { data: { type: 'application_key', name: 'n'.repeat(255) } })).status).toBe(
      201,
    );
    expect((await post(token, { data: { type: 'application_key', name: 'n' } })).status).toBe(201);
  });

  it.each([
    ['no body', undefined, 'body'],
    ['a JSON array', [], 'body'],
    ['no data', { name: 'x' }, 'data'],
    ['data not an object', { data: 'x' }, 'data'],
    ['no type', { data: { name: 'x' } }, 'data.type'],
    ['a wrong type', { data: { type: 'application_keys', name: 'x' } }, 'data.type'],
    ['no name', { data: { type: 'application_key' } }, 'data.name'],
    ['an empty name', { data: { type: 'application_key', name: '' } }, 'data.name'],
    ['a blank name', { data: { type: 'application_key', name: '   ' } }, 'data.name'],
    ['a 256-character name', { data: { type: 'application_key', name: 'n'.repeat(256) } }, 'data.name'],
    ['a numeric name', { data: { type: 'application_key', name: 5 } }, 'data.name'],
    [
      'a negative reserved_rate_limit',
      { data: { type: 'application_key', name: 'x', reserved_rate_limit: -1 } },
      'data.reserved_rate_limit',
    ],
    [
      'a fractional reserved_rate_limit',
      { data: { type: 'application_key', name: 'x', reserved_rate_limit: 1.5 } },
      'data.reserved_rate_limit',
    ],
    [
      'a string reserved_rate_limit',
      { data: { type: 'application_key', name: 'x', reserved_rate_limit: '5' } },
      'data.reserved_rate_limit',
    ],
    [
      'a null reserved_rate_limit',
      { data: { type: 'application_key', name: 'x', reserved_rate_limit: null } },
      'data.reserved_rate_limit',
    ],
    [
      'a huge reserved_rate_limit',
      { data: { type: 'application_key', name: 'x', reserved_rate_limit: 1e300 } },
      'data.reserved_rate_limit',
    ],
  ])('rejects %s with a 400 naming the field and creates nothing', async (_case, body, source) => {
    const before = await counters(store.store.id);
    const response = await invoke(createKey, {
      method: 'POST',
      path: '/v2/application-keys',
      headers: bearer(token, HEADERS),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0]).toMatchObject({ status: '400', title: 'Bad Request', source });
    expect(await counters(store.store.id)).toEqual(before);
  });

  it('rejects malformed JSON and non-JSON bodies', async () => {
    const malformed = await post(token, '{"data":');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].source).toBe('body');
    const form = await invoke(createKey, {
      method: 'POST',
      path: '/v2/application-keys',
      headers: bearer(token, { 'content-type': 'application/x-www-form-urlencoded' }),
      body: 'name=x',
    });
    expect(form.status).toBe(415);
  });

  it('refuses a reservation over the store rate limit with 409 and leaves the counters alone', async () => {
    const own = await createTestStore({ rate_limit: 30 });
    const ownToken = await tokenFor(own);
    expect(
      (await post(ownToken, { data: { type: 'application_key', name: 'a', reserved_rate_limit: 20 } }))
        .status,
    ).toBe(201);
    const response = await post(ownToken, {
      data: { type: 'application_key', name: 'b', reserved_rate_limit: 11 },
    });
    expect(response.status).toBe(409);
    expect(response.body.errors[0]).toMatchObject({
      status: '409',
      title: 'Conflict',
      detail: 'requested reserved rate limit will exceed the maximum',
      source: 'reserved_rate_limit',
    });
    expect(await counters(own.store.id)).toEqual({ key_count: 2, reserved_rate_limit_total: 20 });
    // Exactly up to the limit is allowed.
    expect(
      (await post(ownToken, { data: { type: 'application_key', name: 'c', reserved_rate_limit: 10 } }))
        .status,
    ).toBe(201);
    expect(await counters(own.store.id)).toEqual({ key_count: 3, reserved_rate_limit_total: 30 });
  });
});

describe("a key write starting from the store its caller's token check read", () => {
  it('counts right when the store changed between the token check and the write, and refuses past the limit', async () => {
    const own = await createTestStore({ rate_limit: 100 });
    const ownToken = await tokenFor(own);
    const caller = { storeId: own.store.id, keyId: own.keyId, tokenHash: hashSecret(ownToken) };
    const read = await storeRepository.get(own.store.id, true);
    expect(read?.key_count).toBe(1);
    // Another write changes the counters after the read the caller carries.
    await applicationKeyRepository.create(own.store.id, { name: 'between', reserved_rate_limit: 5 });
    const { key } = await applicationKeyRepository.create(
      own.store.id,
      { name: 'after', reserved_rate_limit: 7 },
      undefined,
      { ...caller, store: read },
    );
    expect(await counters(own.store.id)).toEqual({ key_count: 3, reserved_rate_limit_total: 12 });
    await applicationKeyRepository.delete(own.store.id, key.id, { ...caller, store: read });
    expect(await counters(own.store.id)).toEqual({ key_count: 2, reserved_rate_limit_total: 5 });
    // The read shows room the store no longer has: the transaction's condition refuses the first round, the
    // second reads the store again and answers 409, the counters untouched.
    await applicationKeyRepository.create(own.store.id, { name: 'filler', reserved_rate_limit: 90 });
    await expect(
      applicationKeyRepository.create(own.store.id, { name: 'over', reserved_rate_limit: 7 }, undefined, {
        ...caller,
        store: read,
      }),
    ).rejects.toMatchObject({ status: 409 });
    expect(await counters(own.store.id)).toEqual({ key_count: 3, reserved_rate_limit_total: 95 });
  });

  it("hands the write the store only when this request's token check read it, not from the token cache", async () => {
    const own = await createTestStore({ rate_limit: 100 });
    const ownToken = await tokenFor(own);
    const event = { headers: { authorization: `Bearer ${ownToken}` } };
    clearAuthCache();
    const fresh = await authenticate(event.headers.authorization);
    expect(writeCaller({ ...event, auth: fresh }).store).toEqual(fresh.store);
    const cached = await authenticate(event.headers.authorization);
    expect(cached.limits).toBeUndefined();
    expect(writeCaller({ ...event, auth: cached }).store).toBeUndefined();
    // Through the route, on a token check that reads (a new container's first request): 201, counted.
    clearAuthCache();
    const created = await post(ownToken, {
      data: { type: 'application_key', name: 'n', reserved_rate_limit: 3 },
    });
    expect(created.status).toBe(201);
    expect(await counters(own.store.id)).toEqual({ key_count: 2, reserved_rate_limit_total: 3 });
  });
});

describe('GET /v2/application-keys/{id}', () => {
  it('returns the key with its self link', async () => {
    const response = await get(token, store.keyId);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: {
        id: store.keyId,
        name: 'First key',
        type: 'application_key',
        client_id: store.clientId,
        reserved_rate_limit: 0,
        meta: {
          timestamps: {
            created_at: expect.stringMatching(ISO_MS),
            updated_at: expect.stringMatching(ISO_MS),
            last_used_at: expect.stringMatching(ISO_MS),
          },
        },
      },
      links: { self: `${ORIGIN}/v2/application-keys/${store.keyId}` },
    });
  });

  it('finds an id written in upper case', async () => {
    const response = await get(token, store.keyId.toUpperCase());
    expect(response.status).toBe(200);
    expect(response.body.data.id).toBe(store.keyId);
  });

  it.each([
    ['an unknown UUID', UNKNOWN_ID],
    ['a word', 'not-a-uuid'],
    ['an encoded path', '..%2F..'],
    ['a 2000-character id', 'x'.repeat(2000)],
  ])('answers 404 for %s', async (_case, id) => {
    const response = await get(token, id);
    expect(response.status).toBe(404);
    expect(response.body.errors[0]).toMatchObject({ status: '404', title: 'Not Found' });
  });
});

describe('PUT /v2/application-keys/{id}', () => {
  let own: TestStore;
  let ownToken: string;
  let keyId: string;
  beforeAll(async () => {
    own = await createTestStore({ rate_limit: 50 });
    ownToken = await tokenFor(own);
    const { key } = await applicationKeyRepository.create(own.store.id, {
      name: 'editable',
      reserved_rate_limit: 5,
    });
    keyId = key.id;
  });

  it('renames a key without touching the counters', async () => {
    const before = await applicationKeyRepository.get(own.store.id, keyId, true);
    const response = await put(ownToken, keyId, { data: { type: 'application_key', name: 'renamed' } });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: keyId, name: 'renamed', reserved_rate_limit: 5 });
    expect(response.body.data.meta.timestamps.created_at).toBe(before?.created_at);
    expect(response.body.data.meta.timestamps.updated_at > (before?.updated_at ?? '')).toBe(true);
    expect(response.body.links).toEqual({ self: `${ORIGIN}/v2/application-keys/${keyId}` });
    expect(await counters(own.store.id)).toEqual({ key_count: 2, reserved_rate_limit_total: 5 });
    expect((await get(ownToken, keyId)).body.data.name).toBe('renamed');
  });

  it.each([
    ['a rename', { name: 'last words' }],
    ['a reservation change', { reserved_rate_limit: 2 }],
  ])(
    'answers 200 to %s that took effect though the key was deleted right after it',
    async (_case, changes) => {
      // The histories checker found a rename answering 404 after its write had committed (a get saw the
      // new name): the answer came from a read made after the write, and the key was deleted in between.
      const { key } = await applicationKeyRepository.create(own.store.id, {
        name: 'short-lived',
        reserved_rate_limit: 0,
      });
      const stop = getDocumentClient().use((next) => async (operation, body) => {
        const result = await next(operation, body);
        if (operation === 'TransactWriteItems' && body.includes(key.id)) {
          stop();
          await applicationKeyRepository.delete(own.store.id, key.id);
        }
        return result;
      });
      try {
        const response = await put(ownToken, key.id, { data: { type: 'application_key', ...changes } });
        expect(response.status).toBe(200);
        expect(response.body.data).toMatchObject({
          id: key.id,
          name: 'short-lived',
          reserved_rate_limit: 0,
          ...changes,
        });
      } finally {
        stop();
      }
      expect(await applicationKeyRepository.get(own.store.id, key.id, true)).toBeUndefined();
      expect(await counters(own.store.id)).toEqual({ key_count: 2, reserved_rate_limit_total: 5 });
    },
  );

  it('applies the difference of a new reserved rate limit to the total, up and down', async () => {
    const up = await put(ownToken, keyId, { data: { type: 'application_key', reserved_rate_limit: 45 } });
    expect(up.status).toBe(200);
    expect(up.body.data).toMatchObject({ name: 'renamed', reserved_rate_limit: 45 });
    expect(await counters(own.store.id)).toEqual({ key_count: 2, reserved_rate_limit_total: 45 });
    const down = await put(ownToken, keyId, {
      data: { type: 'application_key', name: 'both', reserved_rate_limit: 3 },
    });
    expect(down.status).toBe(200);
    expect(down.body.data).toMatchObject({ name: 'both', reserved_rate_limit: 3 });
    expect(await counters(own.store.id)).toEqual({ key_count: 2, reserved_rate_limit_total: 3 });
  });

  it('allows raising a key to exactly the limit and refuses one over with 409', async () => {
    expect(
      (await put(ownToken, keyId, { data: { type: 'application_key', reserved_rate_limit: 50 } })).status,
    ).toBe(200);
    const over = await put(ownToken, keyId, { data: { type: 'application_key', reserved_rate_limit: 51 } });
    expect(over.status).toBe(409);
    expect(over.body.errors[0]).toMatchObject({
      detail: 'requested reserved rate limit will exceed the maximum',
      source: 'reserved_rate_limit',
    });
    expect((await get(ownToken, keyId)).body.data.reserved_rate_limit).toBe(50);
    expect(await counters(own.store.id)).toEqual({ key_count: 2, reserved_rate_limit_total: 50 });
  });

  it('keeps the counters when the same reserved rate limit is sent again', async () => {
    const same = await put(ownToken, keyId, { data: { type: 'application_key', reserved_rate_limit: 50 } });
    expect(same.status).toBe(200);
    expect(same.body.data.reserved_rate_limit).toBe(50);
    expect(await counters(own.store.id)).toEqual({ key_count: 2, reserved_rate_limit_total: 50 });
  });

  it('lets a store whose rate limit was lowered under its reservations lower them, not raise them', async () => {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName('keys'),
        Key: keysTable.store(own.store.id),
        UpdateExpression: 'SET rate_limit = :limit',
        ExpressionAttributeValues: { ':limit': 20 },
      }),
    );
    const down = await put(ownToken, keyId, { data: { type: 'application_key', reserved_rate_limit: 30 } });
    expect(down.status).toBe(200);
    expect(await counters(own.store.id)).toEqual({ key_count: 2, reserved_rate_limit_total: 30 });
    const up = await put(ownToken, keyId, { data: { type: 'application_key', reserved_rate_limit: 31 } });
    expect(up.status).toBe(409);
    const within = await put(ownToken, keyId, { data: { type: 'application_key', reserved_rate_limit: 20 } });
    expect(within.status).toBe(200);
    expect(await counters(own.store.id)).toEqual({ key_count: 2, reserved_rate_limit_total: 20 });
  });

  it.each([
    ['no type', { data: { name: 'x' } }, 'data.type'],
    ['a wrong type', { data: { type: 'key', name: 'x' } }, 'data.type'],
    ['nothing to change', { data: { type: 'application_key' } }, 'data'],
    ['an empty name', { data: { type: 'application_key', name: '' } }, 'data.name'],
    ['a null name', { data: { type: 'application_key', name: null } }, 'data.name'],
    [
      'a negative reserved_rate_limit',
      { data: { type: 'application_key', reserved_rate_limit: -5 } },
      'data.reserved_rate_limit',
    ],
  ])('rejects %s with a 400 and changes nothing', async (_case, body, source) => {
    const before = await applicationKeyRepository.get(own.store.id, keyId, true);
    const response = await put(ownToken, keyId, body);
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatchObject({ status: '400', source });
    expect(await applicationKeyRepository.get(own.store.id, keyId, true)).toEqual(before);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    const body = { data: { type: 'application_key', name: 'x' } };
    expect((await put(ownToken, UNKNOWN_ID, body)).status).toBe(404);
    expect((await put(ownToken, 'nope', body)).status).toBe(404);
  });
});

describe('DELETE /v2/application-keys/{id}', () => {
  it('deletes the key and its client lookup and takes it off the counters', async () => {
    const own = await createTestStore({ rate_limit: 50 });
    const ownToken = await tokenFor(own);
    const { key } = await applicationKeyRepository.create(own.store.id, {
      name: 'doomed',
      reserved_rate_limit: 12,
    });
    expect(await counters(own.store.id)).toEqual({ key_count: 2, reserved_rate_limit_total: 12 });
    const response = await remove(ownToken, key.id);
    expect(response.status).toBe(204);
    expect(response.raw).toBe('');
    expect(await counters(own.store.id)).toEqual({ key_count: 1, reserved_rate_limit_total: 0 });
    expect(await applicationKeyRepository.get(own.store.id, key.id, true)).toBeUndefined();
    expect(await applicationKeyRepository.findClient(key.client_id)).toBeUndefined();
    expect((await get(ownToken, key.id)).status).toBe(404);
    const again = await remove(ownToken, key.id);
    expect(again.status).toBe(404);
    expect(await counters(own.store.id)).toEqual({ key_count: 1, reserved_rate_limit_total: 0 });
  });

  it("revokes the deleted key's credentials and tokens", async () => {
    const own = await createTestStore();
    const adminToken = await tokenFor(own);
    const { key, clientSecret } = await applicationKeyRepository.create(own.store.id, {
      name: 'to revoke',
      reserved_rate_limit: 0,
    });
    const { access_token: doomedToken } = await issueAccessToken({
      grant_type: 'client_credentials',
      client_id: key.client_id,
      client_secret: clientSecret,
    });
    expect((await get(doomedToken, key.id)).status).toBe(200);
    expect((await remove(adminToken, key.id)).status).toBe(204);
    // A container may keep a validated token up to AUTH_CACHE_SECONDS (<= 2 s); a fresh one refuses it.
    clearAuthCache();
    const refused = await get(doomedToken, own.keyId);
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].detail).toBe('Unable to validate access token');
    await expect(
      issueAccessToken({
        grant_type: 'client_credentials',
        client_id: key.client_id,
        client_secret: clientSecret,
      }),
    ).rejects.toMatchObject({ status: 401 });
    // The other key's token still works.
    expect((await get(adminToken, own.keyId)).status).toBe(200);
  });

  it('stops a cached token of a deleted key once its cache entry expires (AUTH_CACHE_SECONDS, <= 2 s)', async () => {
    const own = await createTestStore();
    const adminToken = await tokenFor(own);
    const { key, clientSecret } = await applicationKeyRepository.create(own.store.id, {
      name: 'cached',
      reserved_rate_limit: 0,
    });
    const { access_token: cachedToken } = await issueAccessToken({
      grant_type: 'client_credentials',
      client_id: key.client_id,
      client_secret: clientSecret,
    });
    expect((await get(cachedToken, own.keyId)).status).toBe(200);
    expect((await remove(adminToken, key.id)).status).toBe(204);
    // This container validated the token before the delete and may serve it from its cache until then.
    expect((await get(cachedToken, own.keyId)).status).toBe(200);
    const cacheSeconds = getConfig().authCacheSeconds;
    expect(cacheSeconds).toBeGreaterThan(0);
    expect(cacheSeconds).toBe(2);
    const realNow = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(realNow + cacheSeconds * 1000 + 1);
    try {
      const refused = await get(cachedToken, own.keyId);
      expect(refused.status).toBe(401);
    } finally {
      clock.mockRestore();
    }
  });

  /** A store, its admin token, and a second key of it with a client_credentials token (to be deleted). */
  async function leakedKeyToken() {
    const own = await createTestStore();
    const adminToken = await tokenFor(own);
    const { key, clientSecret } = await applicationKeyRepository.create(own.store.id, {
      name: 'leaked',
      reserved_rate_limit: 0,
    });
    const { access_token: leaked } = await issueAccessToken({
      grant_type: 'client_credentials',
      client_id: key.client_id,
      client_secret: clientSecret,
    });
    return { own, adminToken, key, leaked };
  }

  it("refuses a deleted key's cached token for every write at once, though reads may still use the cache", async () => {
    const { own, adminToken, key, leaked } = await leakedKeyToken();
    // This container validates the leaked token and caches it; then the store deletes its key.
    expect((await get(leaked, own.keyId)).status).toBe(200);
    expect((await remove(adminToken, key.id)).status).toBe(204);
    const headers = bearer(leaked, HEADERS);
    const created = await invoke(createKey, {
      method: 'POST',
      path: '/v2/application-keys',
      headers,
      body: JSON.stringify({ data: { type: 'application_key', name: 'planted' } }),
    });
    const renamed = await invoke(updateKey, {
      method: 'PUT',
      path: `/v2/application-keys/${own.keyId}`,
      pathParameters: { id: own.keyId },
      headers,
      body: JSON.stringify({ data: { type: 'application_key', name: 'taken over' } }),
    });
    const deleted = await invoke(deleteKey, {
      method: 'DELETE',
      path: `/v2/application-keys/${own.keyId}`,
      pathParameters: { id: own.keyId },
      headers,
    });
    const mapping = await invoke(updateMapping, {
      method: 'PUT',
      path: `/v2/merchant-realm-mappings/${own.store.mapping_id}`,
      pathParameters: { mapping_id: own.store.mapping_id },
      headers,
      body: JSON.stringify({ data: { type: 'merchant-realm-mappings', prefix: 'taken-over' } }),
    });
    expect([created.status, renamed.status, deleted.status, mapping.status]).toEqual([401, 401, 401, 401]);
    // Nothing changed: one key left (the store's own), untouched; the mapping has no prefix.
    expect(await counters(own.store.id)).toEqual({ key_count: 1, reserved_rate_limit_total: 0 });
    expect((await applicationKeyRepository.get(own.store.id, own.keyId, true))?.name).toBe('First key');
    expect((await mappingRepository.get(own.store.mapping_id, true))?.prefix).toBeNull();
    // The refused write also dropped the token from this container's cache: reads stop too.
    expect((await get(leaked, own.keyId)).status).toBe(401);
  });

  it("refuses a deleted key's cached token for a prefix write that would change nothing (no transaction to check it)", async () => {
    const { own, adminToken, key, leaked } = await leakedKeyToken();
    const setPrefix = (token: string) =>
      invoke(updateMapping, {
        method: 'PUT',
        path: `/v2/merchant-realm-mappings/${own.store.mapping_id}`,
        pathParameters: { mapping_id: own.store.mapping_id },
        headers: bearer(token, HEADERS),
        body: JSON.stringify({
          data: { type: 'merchant-realm-mappings', prefix: `same-${own.store.id.slice(0, 8)}` },
        }),
      });
    // The leaked token sets the prefix (this container now caches it), then its key is deleted.
    expect((await setPrefix(leaked)).status).toBe(200);
    expect((await remove(adminToken, key.id)).status).toBe(204);
    // The same prefix again is a no-op write: still 401 for the deleted key's token, 200 for a live one.
    expect((await setPrefix(leaked)).status).toBe(401);
    expect((await setPrefix(adminToken)).status).toBe(200);
  });

  describe('a key deleted between authentication and the write', () => {
    /** A store with its first key, a second ("doomed") key and a token of the doomed key this container validated. */
    async function doomedCaller() {
      const own = await createTestStore({ rate_limit: 50 });
      const { key: doomed, clientSecret } = await applicationKeyRepository.create(own.store.id, {
        name: 'doomed',
        reserved_rate_limit: 4,
      });
      const { access_token: doomedToken } = await issueAccessToken({
        grant_type: 'client_credentials',
        client_id: doomed.client_id,
        client_secret: clientSecret,
      });
      expect((await get(doomedToken, own.keyId)).status).toBe(200);
      return { own, doomed, doomedToken };
    }

    /** Makes the next call of `method` delete the doomed key first: the write runs after the caller was authenticated. */
    function deleteFirst<T extends object>(target: T, method: keyof T, storeId: string, keyId: string) {
      const original = (target[method] as (...args: unknown[]) => Promise<unknown>).bind(target);
      return jest.spyOn(target, method as never).mockImplementationOnce((async (...args: unknown[]) => {
        await applicationKeyRepository.delete(storeId, keyId);
        return original(...args);
      }) as never);
    }

    afterEach(() => jest.restoreAllMocks());

    it('refuses a key create with 401 and creates nothing', async () => {
      const { own, doomed, doomedToken } = await doomedCaller();
      deleteFirst(applicationKeyRepository, 'create', own.store.id, doomed.id);
      const response = await post(doomedToken, {
        data: { type: 'application_key', name: 'planted', reserved_rate_limit: 3 },
      });
      expect(response.status).toBe(401);
      expect(response.body.errors[0].detail).toBe('Unable to validate access token');
      // Only the doomed key's delete moved the counters; the refused create left the store's one key alone.
      expect(await counters(own.store.id)).toEqual({ key_count: 1, reserved_rate_limit_total: 0 });
      const page = await applicationKeyRepository.list(own.store.id, { limit: 10, offset: 0 });
      expect(page.keys.map((key) => key.name)).toEqual(['First key']);
      // The refusal dropped the token from this container's cache: its reads stop too.
      expect((await get(doomedToken, own.keyId)).status).toBe(401);
    });

    it.each([
      ['a rename', { name: 'taken over' }],
      ['a reservation change', { reserved_rate_limit: 7 }],
      ['a rename keeping the reservation', { name: 'taken over', reserved_rate_limit: 0 }],
    ])('refuses %s of another key with 401 and changes nothing', async (_case, changes) => {
      const { own, doomed, doomedToken } = await doomedCaller();
      deleteFirst(applicationKeyRepository, 'update', own.store.id, doomed.id);
      const response = await put(doomedToken, own.keyId, { data: { type: 'application_key', ...changes } });
      expect(response.status).toBe(401);
      const key = await applicationKeyRepository.get(own.store.id, own.keyId, true);
      expect([key?.name, key?.reserved_rate_limit]).toEqual(['First key', 0]);
      expect(await counters(own.store.id)).toEqual({ key_count: 1, reserved_rate_limit_total: 0 });
    });

    it.each([
      ['a rename', { name: 'still mine' }],
      ['a reservation change', { reserved_rate_limit: 9 }],
    ])("answers 401, not 404, to %s of the caller's own deleted key", async (_case, changes) => {
      const { own, doomed, doomedToken } = await doomedCaller();
      deleteFirst(applicationKeyRepository, 'update', own.store.id, doomed.id);
      const response = await put(doomedToken, doomed.id, { data: { type: 'application_key', ...changes } });
      expect(response.status).toBe(401);
      expect(await applicationKeyRepository.get(own.store.id, doomed.id, true)).toBeUndefined();
      expect(await counters(own.store.id)).toEqual({ key_count: 1, reserved_rate_limit_total: 0 });
    });

    it('refuses a delete of another key with 401 and deletes nothing', async () => {
      const { own, doomed, doomedToken } = await doomedCaller();
      deleteFirst(applicationKeyRepository, 'delete', own.store.id, doomed.id);
      expect((await remove(doomedToken, own.keyId)).status).toBe(401);
      expect((await applicationKeyRepository.get(own.store.id, own.keyId, true))?.name).toBe('First key');
      expect(await applicationKeyRepository.findClient(own.clientId)).toBeDefined();
      expect(await counters(own.store.id)).toEqual({ key_count: 1, reserved_rate_limit_total: 0 });
    });

    it('refuses a mapping prefix change with 401 and changes nothing', async () => {
      const { own, doomed, doomedToken } = await doomedCaller();
      deleteFirst(mappingRepository, 'changePrefix', own.store.id, doomed.id);
      const prefix = `race-${own.store.id.slice(-12)}`;
      const response = await invoke(updateMapping, {
        method: 'PUT',
        path: `/v2/merchant-realm-mappings/${own.store.mapping_id}`,
        pathParameters: { mapping_id: own.store.mapping_id },
        headers: bearer(doomedToken, HEADERS),
        body: JSON.stringify({ data: { type: 'merchant-realm-mappings', prefix } }),
      });
      expect(response.status).toBe(401);
      const mapping = await mappingRepository.get(own.store.mapping_id, true);
      expect([mapping?.prefix, mapping?.version]).toEqual([null, 0]);
      expect(await mappingRepository.getReservation(prefix)).toBeUndefined();
    });
  });

  it('lets a store delete the key its own token came from, and then that token stops working', async () => {
    const own = await createTestStore();
    const ownToken = await tokenFor(own);
    expect((await remove(ownToken, own.keyId)).status).toBe(204);
    expect(await counters(own.store.id)).toEqual({ key_count: 0, reserved_rate_limit_total: 0 });
    clearAuthCache();
    expect((await remove(ownToken, own.keyId)).status).toBe(401);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    expect((await remove(token, UNKNOWN_ID)).status).toBe(404);
    expect((await remove(token, 'abc')).status).toBe(404);
  });
});

describe('store isolation', () => {
  it("never shows or changes another store's keys", async () => {
    const a = await createTestStore({ rate_limit: 40 });
    const b = await createTestStore({ rate_limit: 40 });
    const tokenA = await tokenFor(a);
    const tokenB = await tokenFor(b);
    const { key } = await applicationKeyRepository.create(a.store.id, {
      name: 'A only',
      reserved_rate_limit: 9,
    });

    const listB = await invoke(listKeys, {
      method: 'GET',
      path: '/v2/application-keys',
      headers: bearer(tokenB),
    });
    expect(listB.body.data.map((k: { id: string }) => k.id)).toEqual([b.keyId]);
    expect(listB.body.meta).toMatchObject({ results: { total: 1 }, total_reserved_rate_limit: 0 });

    for (const id of [key.id, a.keyId]) {
      expect((await get(tokenB, id)).status).toBe(404);
      expect((await put(tokenB, id, { data: { type: 'application_key', name: 'hijack' } })).status).toBe(404);
      expect((await remove(tokenB, id)).status).toBe(404);
    }
    expect(await applicationKeyRepository.get(a.store.id, key.id, true)).toMatchObject({
      name: 'A only',
      reserved_rate_limit: 9,
    });
    expect(await counters(a.store.id)).toEqual({ key_count: 2, reserved_rate_limit_total: 9 });
    expect(await counters(b.store.id)).toEqual({ key_count: 1, reserved_rate_limit_total: 0 });
    expect((await get(tokenA, key.id)).status).toBe(200);
  });
});
