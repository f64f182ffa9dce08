import { handler as listKeys } from '../../functions/list-application-keys/handler';
import { getConfig } from '../../lib/config/index';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { getDocumentClient } from '../../lib/store/client';
import { bearer, createTestStore, invoke, type TestStore, tokenFor } from '../support/fixtures';

/** `GET /v2/application-keys?filter=`: eq/in on name and client_id, through the shared filter grammar. */

const ORIGIN = 'https://api.example.test';
const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };

function list(token: string, filter: string, query = '') {
  return invoke(listKeys, {
    method: 'GET',
    path: `/v2/application-keys?filter=${encodeURIComponent(filter)}${query}`,
    headers: bearer(token, HEADERS),
  });
}

let store: TestStore;
let other: TestStore;
let token: string;
/** Keys in creation order: the fixture's first key ("First key", 0), then `name i` reserving i. */
const keys: { id: string; name: string; client_id: string }[] = [];
const ids = (body: { data: { id: string }[] }) => body.data.map((key) => key.id);

beforeAll(async () => {
  store = await createTestStore({ rate_limit: 1000 });
  other = await createTestStore({ name: 'Other store' });
  token = await tokenFor(store);
  keys.push({ id: store.keyId, name: 'First key', client_id: store.clientId });
  for (let i = 1; i <= 6; i += 1) {
    const { key } = await applicationKeyRepository.create(store.store.id, {
      // Two keys share each of three names.
      name: `Storefront ${Math.ceil(i / 2)}`,
      reserved_rate_limit: i,
    });
    keys.push(key);
  }
});
afterEach(() => jest.restoreAllMocks());

describe('GET /v2/application-keys?filter=', () => {
  it('eq(name,...) returns the keys with that name; totals count them, the reserved total stays the store', async () => {
    const response = await list(token, 'eq(name,Storefront 2)');
    expect(response.status).toBe(200);
    expect(ids(response.body)).toEqual([keys[3]?.id, keys[4]?.id]);
    expect(response.body.meta).toEqual({
      page: { limit: 25, offset: 0, current: 1, total: 1 },
      results: { total: 2 },
      total_reserved_rate_limit: 21,
    });
  });

  it('in(name,...) and in(client_id,...) return the matching keys in creation order', async () => {
    const byName = await list(token, 'in(name,"Storefront 3",First key)');
    expect(ids(byName.body)).toEqual([keys[0]?.id, keys[5]?.id, keys[6]?.id]);
    const clients = [keys[6]?.client_id, keys[1]?.client_id].join(',');
    const byClient = await list(token, `in(client_id,${clients})`);
    expect(ids(byClient.body)).toEqual([keys[1]?.id, keys[6]?.id]);
    expect(byClient.body.meta.results.total).toBe(2);
  });

  it('ANDs expressions joined by ":"', async () => {
    const both = await list(token, `eq(client_id,${keys[3]?.client_id}):eq(name,Storefront 2)`);
    expect(ids(both.body)).toEqual([keys[3]?.id]);
    const neither = await list(token, `eq(client_id,${keys[3]?.client_id}):eq(name,Storefront 1)`);
    expect(neither.body.data).toEqual([]);
    expect(neither.body.meta.results.total).toBe(0);
    expect(neither.body.meta.page.total).toBe(1);
  });

  it('pages the filtered list and keeps the filter in every link', async () => {
    const response = await list(token, 'in(name,Storefront 1,Storefront 2)', '&page[limit]=3&page[offset]=3');
    expect(ids(response.body)).toEqual([keys[4]?.id]);
    const filter = 'filter=in(name%2CStorefront%201%2CStorefront%202)';
    expect(response.body.links).toEqual({
      current: `${ORIGIN}/v2/application-keys?${filter}&page[offset]=3&page[limit]=3`,
      first: `${ORIGIN}/v2/application-keys?${filter}&page[offset]=0&page[limit]=3`,
      last: `${ORIGIN}/v2/application-keys?${filter}&page[offset]=3&page[limit]=3`,
      next: null,
      prev: `${ORIGIN}/v2/application-keys?${filter}&page[offset]=0&page[limit]=3`,
    });
    expect(response.body.meta.page).toEqual({ limit: 3, offset: 3, current: 2, total: 2 });
  });

  it("never returns another store's key, even by its client id", async () => {
    const response = await list(token, `in(client_id,${other.clientId},${keys[2]?.client_id})`);
    expect(ids(response.body)).toEqual([keys[2]?.id]);
    const unknown = await list(token, `eq(client_id,${'x'.repeat(300)})`);
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toEqual([]);
  });

  it('reads only the named clients for a client_id filter, and every key for a name filter', async () => {
    const send = jest.spyOn(getDocumentClient(), 'send');
    // Auth is cached by now: what remains is the store (GetItem) and the keys.
    await list(token, 'eq(name,Storefront 1)');
    // The rate limiter's leases (the limits table) are not the list's reads, nor is the token's background
    // recheck (a batch read of its token item), which a loaded machine may let fall in between.
    const limitsTable = getConfig().limitsTable;
    const ownRead = ([command]: unknown[]) => {
      const input = (command as { input?: { TableName?: string; RequestItems?: object } }).input;
      if (input?.TableName === limitsTable) return false;
      return !JSON.stringify(input?.RequestItems ?? {}).includes('"TOKEN#');
    };
    const commands = () =>
      send.mock.calls
        .filter(ownRead)
        .map(([command]) => command.constructor.name)
        .sort();
    expect(commands()).toEqual(['GetCommand', 'QueryCommand']);
    send.mockClear();
    await list(token, `eq(client_id,${keys[1]?.client_id})`);
    expect(commands()).toEqual(['BatchGetCommand', 'BatchGetCommand', 'GetCommand']);
  });

  it.each([
    [
      'eq(reserved_rate_limit,1)',
      "unknown attribute 'reserved_rate_limit' at character 4; expected one of name, client_id",
    ],
    ['eq(id,abc)', "unknown attribute 'id' at character 4; expected one of name, client_id"],
    ['like(name,Store*)', "unknown operator 'like' at character 1; expected eq or in"],
    [
      'eq(name,a,b)',
      "eq(name,...) takes exactly one value, found ',' at character 10; use in(name,...) for several values",
    ],
    ['', 'filter is empty; expected an expression such as eq(sku,ABC-1)'],
  ])('400 for %p, with source filter', async (filter, detail) => {
    const response = await list(token, filter);
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      expect.objectContaining({ status: '400', source: 'filter', detail }),
    ]);
  });
});
