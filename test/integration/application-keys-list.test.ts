import { handler as listKeys } from '../../functions/list-application-keys/handler';
import { uuidv7 } from '../../lib/ids';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { getDocumentClient } from '../../lib/store/client';
import { BatchWriteCommand, UpdateCommand } from '../../lib/store/dynamodb';
import { keysTable, tableName } from '../../lib/store/schema';
import { bearer, createTestStore, invoke, type TestStore, tokenFor } from '../support/fixtures';

const ORIGIN = 'https://api.example.test';
const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function list(token: string, query = '') {
  return invoke(listKeys, {
    method: 'GET',
    path: `/v2/application-keys${query}`,
    headers: bearer(token, HEADERS),
  });
}

function link(offset: number, limit: number) {
  return `${ORIGIN}/v2/application-keys?page[offset]=${offset}&page[limit]=${limit}`;
}

describe('GET /v2/application-keys', () => {
  let store: TestStore;
  let token: string;
  /** Ids in creation order: the fixture's first key, then 29 more. */
  const ids: string[] = [];
  const reserved: number[] = [];

  beforeAll(async () => {
    store = await createTestStore({ rate_limit: 1000 });
    token = await tokenFor(store);
    ids.push(store.keyId);
    reserved.push(0);
    for (let i = 1; i < 30; i += 1) {
      const { key } = await applicationKeyRepository.create(store.store.id, {
        name: `key ${String(i).padStart(2, '0')}`,
        reserved_rate_limit: i,
      });
      ids.push(key.id);
      reserved.push(i);
    }
  });

  it('returns the first 25 keys in creation order with the list shape (data, links, meta) and totals', async () => {
    const response = await list(token);
    expect(response.status).toBe(200);
    expect(response.headers['Content-Type']).toBe('application/json');
    expect(response.body.data.map((key: { id: string }) => key.id)).toEqual(ids.slice(0, 25));
    expect(response.body.links).toEqual({
      current: link(0, 25),
      first: link(0, 25),
      last: link(25, 25),
      next: link(25, 25),
      prev: null,
    });
    expect(response.body.meta).toEqual({
      page: { limit: 25, offset: 0, current: 1, total: 2 },
      results: { total: 30 },
      total_reserved_rate_limit: 435,
    });
  });

  it('renders each key with exactly the application key fields and never a secret', async () => {
    const response = await list(token, '?page[limit]=2');
    const [first, second] = response.body.data;
    expect(Object.keys(first).sort()).toEqual(
      ['client_id', 'id', 'meta', 'name', 'reserved_rate_limit', 'type'].sort(),
    );
    expect(first).toMatchObject({
      id: store.keyId,
      name: 'First key',
      type: 'application_key',
      client_id: store.clientId,
      reserved_rate_limit: 0,
    });
    // The fixture's key issued the token, so it has been used; the second key never was.
    expect(first.meta.timestamps.last_used_at).toMatch(ISO_MS);
    expect(first.meta.timestamps.created_at).toMatch(ISO_MS);
    expect(first.meta.timestamps.updated_at).toMatch(ISO_MS);
    expect(second.meta.timestamps.last_used_at).toBeNull();
    expect(second).toMatchObject({ name: 'key 01', reserved_rate_limit: 1 });
    expect(response.raw).not.toContain(store.clientSecret);
    expect(response.raw).not.toMatch(/secret/i);
  });

  it('pages with page[limit] and page[offset], brackets raw or percent-encoded', async () => {
    const raw = await list(token, '?page[limit]=10&page[offset]=10');
    const encoded = await list(token, '?page%5Blimit%5D=10&page%5Boffset%5D=10');
    for (const response of [raw, encoded]) {
      expect(response.status).toBe(200);
      expect(response.body.data.map((key: { id: string }) => key.id)).toEqual(ids.slice(10, 20));
      expect(response.body.links).toEqual({
        current: link(10, 10),
        first: link(0, 10),
        last: link(20, 10),
        next: link(20, 10),
        prev: link(0, 10),
      });
      expect(response.body.meta.page).toEqual({ limit: 10, offset: 10, current: 2, total: 3 });
    }
  });

  it('has no next link on the last page and counts its partial page', async () => {
    const response = await list(token, '?page[offset]=25');
    expect(response.body.data.map((key: { id: string }) => key.id)).toEqual(ids.slice(25));
    expect(response.body.links).toMatchObject({ next: null, prev: link(0, 25), last: link(25, 25) });
    expect(response.body.meta.page).toEqual({ limit: 25, offset: 25, current: 2, total: 2 });
  });

  it('answers an offset past the end with an empty page that links back', async () => {
    const response = await list(token, '?page[offset]=40&page[limit]=10');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    expect(response.body.links).toMatchObject({ next: null, prev: link(30, 10), last: link(20, 10) });
    expect(response.body.meta).toEqual({
      page: { limit: 10, offset: 40, current: 5, total: 3 },
      results: { total: 30 },
      total_reserved_rate_limit: 435,
    });
  });

  it('accepts the largest limit and offset', async () => {
    const all = await list(token, '?page[limit]=100');
    expect(all.body.data).toHaveLength(30);
    expect(all.body.links).toMatchObject({ next: null, prev: null, last: link(0, 100) });
    const far = await list(token, '?page[offset]=10000');
    expect(far.status).toBe(200);
    expect(far.body.data).toEqual([]);
  });

  it.each([
    ['page[limit]', '0'],
    ['page[limit]', '101'],
    ['page[limit]', '-1'],
    ['page[limit]', '1.5'],
    ['page[limit]', 'abc'],
    ['page[limit]', ''],
    ['page[offset]', '-1'],
    ['page[offset]', '10001'],
    ['page[offset]', '1.5'],
    ['page[offset]', 'abc'],
    ['page[offset]', ''],
  ])('rejects %s=%p with a 400 naming the parameter', async (name, value) => {
    const response = await list(token, `?${name}=${encodeURIComponent(value)}`);
    expect(response.status).toBe(400);
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0]).toMatchObject({ status: '400', title: 'Bad Request', source: name });
  });

  it('needs a client_credentials token', async () => {
    const missing = await invoke(listKeys, { method: 'GET', path: '/v2/application-keys' });
    expect(missing.status).toBe(401);
    expect(missing.body.errors[0]).toMatchObject({
      status: '401',
      detail: 'Unable to validate access token',
    });
    const implicit = await list(await tokenFor(store, 'implicit'));
    expect(implicit.status).toBe(403);
  });

  it('builds links from the request scheme and host', async () => {
    const response = await invoke(listKeys, {
      method: 'GET',
      path: '/v2/application-keys?page[limit]=50',
      headers: bearer(token, { host: '127.0.0.1:3000', 'x-forwarded-proto': 'http' }),
    });
    expect(response.body.links.first).toBe(
      'http://127.0.0.1:3000/v2/application-keys?page[offset]=0&page[limit]=50',
    );
  });
});

describe('GET /v2/application-keys totals', () => {
  it('reads totals from the store counters fresh, not from the cached auth context', async () => {
    const store = await createTestStore({ rate_limit: 50 });
    const token = await tokenFor(store);
    // Warm the auth cache with the store as it is now (1 key, nothing reserved).
    expect((await list(token)).body.meta.results.total).toBe(1);
    await applicationKeyRepository.create(store.store.id, { name: 'second', reserved_rate_limit: 20 });
    const response = await list(token);
    expect(response.body.meta).toEqual({
      page: { limit: 25, offset: 0, current: 1, total: 1 },
      results: { total: 2 },
      total_reserved_rate_limit: 20,
    });
    expect(response.body.data).toHaveLength(2);
  });

  it('takes totals from the store counters rather than counting keys per request', async () => {
    const store = await createTestStore();
    const token = await tokenFor(store);
    // Counters that disagree with the key items (1 key, 0 reserved): the response follows the counters.
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName('keys'),
        Key: keysTable.store(store.store.id),
        UpdateExpression: 'SET key_count = :count, reserved_rate_limit_total = :reserved',
        ExpressionAttributeValues: { ':count': 1234, ':reserved': 99 },
      }),
    );
    const response = await list(token);
    expect(response.body.data).toHaveLength(1);
    expect(response.body.meta).toEqual({
      page: { limit: 25, offset: 0, current: 1, total: 50 },
      results: { total: 1234 },
      total_reserved_rate_limit: 99,
    });
    expect(response.body.links.last).toBe(link(1225, 25));
  });

  it('answers an offset inside a single page but past its keys with an empty page', async () => {
    const store = await createTestStore();
    const token = await tokenFor(store);
    const response = await list(token, '?page[offset]=1');
    expect(response.body.data).toEqual([]);
    expect(response.body.meta.page).toEqual({ limit: 25, offset: 1, current: 1, total: 1 });
    expect(response.body.links).toMatchObject({ prev: link(0, 25), next: null, last: link(0, 25) });
  });
});

describe('GET /v2/application-keys deep offsets', () => {
  it('skips past more keys than one DynamoDB page holds and still returns the right page', async () => {
    const store = await createTestStore();
    const token = await tokenFor(store);
    // 1,204 more keys written in batches (the fixture's key comes first); counters set to match.
    const ids = [store.keyId];
    const now = new Date().toISOString();
    const items = Array.from({ length: 1204 }, (_, i) => {
      const id = uuidv7();
      ids.push(id);
      return {
        ...keysTable.applicationKey(store.store.id, id),
        id,
        store_id: store.store.id,
        name: `bulk ${i}`,
        client_id: `bulk${String(i).padStart(36, '0')}`,
        reserved_rate_limit: 0,
        created_at: now,
        updated_at: now,
        last_used_at: null,
      };
    });
    for (let i = 0; i < items.length; i += 25) {
      await getDocumentClient().send(
        new BatchWriteCommand({
          RequestItems: {
            [tableName('keys')]: items.slice(i, i + 25).map((item) => ({ PutRequest: { Item: item } })),
          },
        }),
      );
    }
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName('keys'),
        Key: keysTable.store(store.store.id),
        UpdateExpression: 'SET key_count = :count',
        ExpressionAttributeValues: { ':count': ids.length },
      }),
    );

    const deep = await list(token, '?page[offset]=1150&page[limit]=40');
    expect(deep.status).toBe(200);
    expect(deep.body.data.map((key: { id: string }) => key.id)).toEqual(ids.slice(1150, 1190));
    expect(deep.body.meta.page).toEqual({ limit: 40, offset: 1150, current: 29, total: 31 });
    const tail = await list(token, '?page[offset]=1200&page[limit]=100');
    expect(tail.body.data.map((key: { id: string }) => key.id)).toEqual(ids.slice(1200));
    expect(tail.body.links).toMatchObject({ next: null, last: link(1200, 100) });
    const past = await list(token, '?page[offset]=1205');
    expect(past.body.data).toEqual([]);
  }, 30_000);
});
