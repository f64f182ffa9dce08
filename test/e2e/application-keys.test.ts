import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { createTestStore, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api.close());

function sdkFor(store: { clientId: string; clientSecret: string }) {
  return sdkClient(api, store);
}

function link(offset: number, limit: number) {
  return `${api.baseUrl}/v2/application-keys?page[offset]=${offset}&page[limit]=${limit}`;
}

describe('application keys through the official SDK', () => {
  let store: TestStore;
  const ids: string[] = [];

  beforeAll(async () => {
    store = await createTestStore({ rate_limit: 500 });
    ids.push(store.keyId);
    for (let i = 1; i <= 29; i += 1) {
      const { key } = await applicationKeyRepository.create(store.store.id, {
        name: `key ${i}`,
        reserved_rate_limit: i,
      });
      ids.push(key.id);
    }
    // 30 sequential key writes: seconds on a loaded machine, past the default 5 s (failed before this branch too).
  }, 60_000);

  it('lists the first page with ApplicationKeys.All()', async () => {
    const page = await sdkFor(store).ApplicationKeys.All();
    expect(page.data.map((key) => key.id)).toEqual(ids.slice(0, 25));
    expect(page.data[1]).toEqual({
      id: ids[1],
      name: 'key 1',
      type: 'application_key',
      client_id: expect.stringMatching(/^[0-9a-f]{40}$/),
      reserved_rate_limit: 1,
      meta: {
        timestamps: {
          created_at: expect.any(String),
          updated_at: expect.any(String),
          last_used_at: null,
        },
      },
    });
    expect(page.links).toEqual({
      current: link(0, 25),
      first: link(0, 25),
      last: link(25, 25),
      next: link(25, 25),
      prev: null,
    });
    expect(page.meta).toEqual({
      page: { limit: 25, offset: 0, current: 1, total: 2 },
      results: { total: 30 },
      total_reserved_rate_limit: 435,
    });
    expect(JSON.stringify(page)).not.toContain('client_secret');
  });

  it('pages with .Limit(n).Offset(m).All()', async () => {
    const sdk = sdkFor(store);
    const page = await sdk.ApplicationKeys.Limit(7).Offset(14).All();
    expect(page.data.map((key) => key.id)).toEqual(ids.slice(14, 21));
    expect(page.meta.page).toEqual({ limit: 7, offset: 14, current: 3, total: 5 });
    expect(page.links).toMatchObject({ prev: link(7, 7), next: link(21, 7), last: link(28, 7) });
    const last = await sdkFor(store).ApplicationKeys.Limit(7).Offset(28).All();
    expect(last.data.map((key) => key.id)).toEqual(ids.slice(28));
    expect(last.links).toMatchObject({ next: null, prev: link(21, 7) });
  });

  it('follows links.next over plain HTTP until the last page, seeing every key once', async () => {
    const token = (await sdkFor(store).Authenticate()).access_token;
    const seen: string[] = [];
    let url: string | null = link(0, 8);
    while (url) {
      const response: Response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: { id: string }[]; links: { next: string | null } };
      seen.push(...body.data.map((key) => key.id));
      url = body.links.next;
    }
    expect(seen).toEqual(ids);
  });

  it('creates, reads, updates and deletes a key with the SDK', async () => {
    // The SDK's own key stays unreserved: it draws on the pool the other key's reservation leaves (60/s).
    const own = await createTestStore({ rate_limit: 100 });
    const sdk = sdkFor(own);
    const created = await sdk.ApplicationKeys.Create({
      type: 'application_key',
      name: 'From the SDK',
      reserved_rate_limit: 15,
    });
    const id = created.data.id;
    expect(created.data).toMatchObject({
      name: 'From the SDK',
      reserved_rate_limit: 15,
      type: 'application_key',
    });
    expect(created.data.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.links).toEqual({ self: `${api.baseUrl}/v2/application-keys/${id}` });

    const fetched = await sdk.ApplicationKeys.Get(id);
    expect(fetched.data).toMatchObject({ id, name: 'From the SDK', reserved_rate_limit: 15 });
    expect(fetched.data.client_secret).toBeUndefined();

    const updated = await sdk.ApplicationKeys.Update(id, {
      type: 'application_key',
      name: 'Renamed',
      reserved_rate_limit: 40,
    });
    expect(updated.data).toMatchObject({ id, name: 'Renamed', reserved_rate_limit: 40 });
    expect((await sdk.ApplicationKeys.All()).meta).toMatchObject({
      results: { total: 2 },
      total_reserved_rate_limit: 40,
    });

    await expect(
      sdk.ApplicationKeys.Create({ type: 'application_key', name: 'Too greedy', reserved_rate_limit: 61 }),
    ).rejects.toEqual({
      errors: [
        {
          status: '409',
          title: 'Conflict',
          detail: 'requested reserved rate limit will exceed the maximum',
          source: 'reserved_rate_limit',
          request_id: expect.any(String),
        },
      ],
    });

    // A 204 has no body; the SDK resolves (rather than rejects) and the key is gone.
    await expect(sdk.ApplicationKeys.Delete(id)).resolves.toBeDefined();
    const after = await sdk.ApplicationKeys.All();
    expect(after.data.map((key) => key.id)).toEqual([own.keyId]);
    expect(after.meta).toMatchObject({ results: { total: 1 }, total_reserved_rate_limit: 0 });
    await expect(sdk.ApplicationKeys.Get(id)).rejects.toMatchObject({
      errors: [expect.objectContaining({ status: '404' })],
    });
  });

  it('reports a bad page limit as a 400 naming the parameter', async () => {
    await expect(sdkFor(store).ApplicationKeys.Limit(0).All()).rejects.toEqual({
      errors: [
        {
          status: '400',
          title: 'Bad Request',
          detail: 'page[limit] must be an integer from 1 to 100',
          source: 'page[limit]',
          request_id: expect.any(String),
        },
      ],
    });
  });

  it("keeps stores apart: store B sees none of A's keys and gets 404 on A's ids", async () => {
    const other = await createTestStore();
    const sdkB = sdkFor(other);
    const page = await sdkB.ApplicationKeys.All();
    expect(page.data.map((key) => key.id)).toEqual([other.keyId]);
    expect(page.meta).toMatchObject({ results: { total: 1 }, total_reserved_rate_limit: 0 });
    await expect(sdkB.ApplicationKeys.Get(ids[1] ?? '')).rejects.toMatchObject({
      errors: [expect.objectContaining({ status: '404' })],
    });
    await expect(sdkB.ApplicationKeys.Delete(ids[1] ?? '')).rejects.toMatchObject({
      errors: [expect.objectContaining({ status: '404' })],
    });
    await expect(
      sdkB.ApplicationKeys.Update(ids[1] ?? '', { type: 'application_key', name: 'stolen' }),
    ).rejects.toMatchObject({ errors: [expect.objectContaining({ status: '404' })] });
    expect((await sdkFor(store).ApplicationKeys.Get(ids[1] ?? '')).data.name).toBe('key 1');
  });
});

describe('application keys with curl-style requests', () => {
  it('creates with a JSON body and lists with percent-encoded brackets', async () => {
    const store = await createTestStore();
    const tokenResponse = await fetch(`${api.baseUrl}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${store.clientId}&client_secret=${store.clientSecret}`,
    });
    const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
    const created = await fetch(`${api.baseUrl}/v2/application-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { type: 'application_key', name: 'curl key', reserved_rate_limit: 3 } }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    expect(created.headers.get('location')).toBe(`${api.baseUrl}/v2/application-keys/${id}`);

    const listed = await fetch(`${api.baseUrl}/v2/application-keys?page%5Blimit%5D=1&page%5Boffset%5D=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { data: { id: string }[]; meta: unknown };
    expect(body.data.map((key) => key.id)).toEqual([id]);
    expect(body.meta).toEqual({
      page: { limit: 1, offset: 1, current: 2, total: 2 },
      results: { total: 2 },
      total_reserved_rate_limit: 3,
    });

    const deleted = await fetch(`${api.baseUrl}/v2/application-keys/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
  });
});
