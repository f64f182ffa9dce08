import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * Catalog rules through the official SDK, unmodified, against the local server (docs/catalog-rules.md):
 * `Catalogs.Rules.Create`, `All`, `Get`, `Update` and `Delete`; and the catalog's releases link, which the
 * SDK's `Catalogs.Releases.All` path matches, followed as given.
 */

let api: LocalApi;
let store: TestStore;

beforeAll(async () => {
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
  api = await startLocalApi();
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
});
afterAll(async () => {
  await api.close();
  jest.restoreAllMocks();
});

const DATE = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

it('creates, lists, reads, updates and deletes catalog rules', async () => {
  const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  const catalog = await sdk.Catalogs.Create({ attributes: { name: 'Rules catalog' } } as never);
  const catalogId = catalog.data.id;
  const rules = sdk.Catalogs.Rules;

  const web = await rules.Create({
    type: 'catalog_rule',
    attributes: { name: 'web', catalog_id: catalogId, channels: ['web'] },
  } as never);
  const id = web.data.id;
  expect(web.data).toEqual({
    id,
    type: 'catalog_rule',
    attributes: {
      name: 'web',
      catalog_id: catalogId,
      account_ids: [],
      customer_ids: [],
      channels: ['web'],
      tags: [],
      schedules: [],
      created_at: DATE,
      updated_at: DATE,
    },
    links: { self: `${api.baseUrl}/pcm/catalogs/rules/${id}` },
    meta: { owner: 'store' },
  });
  await rules.Create({
    type: 'catalog_rule',
    attributes: { name: 'summer', catalog_id: catalogId, tags: ['summer'] },
  } as never);
  const page = await rules.Limit(1).All();
  expect(page.data.map((rule: { id: string }) => rule.id)).toEqual([id]);
  expect(page.meta.results.total).toBe(2);
  const filtered = await sdk.Catalogs.Rules.Filter({ in: { id: [id] } } as never).All();
  expect(filtered.data.map((rule: { id: string }) => rule.id)).toEqual([id]);

  const updated = await rules.Update(id, {
    id,
    type: 'catalog_rule',
    attributes: { schedules: [{ valid_from: '2026-01-01T00:00:00Z', valid_to: '2027-01-01T00:00:00Z' }] },
  } as never);
  expect(updated.data.attributes).toMatchObject({
    name: 'web',
    channels: ['web'],
    schedules: [{ valid_from: '2026-01-01T00:00:00.000Z', valid_to: '2027-01-01T00:00:00.000Z' }],
  });
  expect((await rules.Get(id)).data).toEqual(updated.data);

  // A catalog a rule names is not deleted.
  await expect(sdk.Catalogs.Delete(catalogId)).rejects.toMatchObject({ errors: [{ status: '409' }] });
  await expect(
    rules.Create({ type: 'catalog_rule', attributes: { name: 'has space', catalog_id: catalogId } } as never),
  ).rejects.toMatchObject({ errors: [{ status: '422', source: 'data.attributes.name' }] });

  await rules.Delete(id);
  await expect(rules.Get(id)).rejects.toEqual({
    errors: [
      {
        status: '404',
        title: 'Not Found',
        detail: 'catalog rule not found',
        request_id: expect.any(String),
      },
    ],
  });
  // A new client: the SDK keeps the earlier Limit and Filter on its endpoint object.
  const fresh = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  expect((await fresh.Catalogs.Rules.All()).meta.results.total).toBe(1);

  // The catalog's releases link works as given (the SDK's Releases.All calls the same path).
  const related = (catalog.data as unknown as { relationships: { releases: { links: { related: string } } } })
    .relationships.releases.links.related;
  const { access_token } = await sdk.Authenticate();
  const followed = await fetch(related, { headers: { Authorization: `Bearer ${access_token}` } });
  expect(followed.status).toBe(200);
  expect(await sdk.Catalogs.Releases.All({ catalogId })).toMatchObject({ data: [] });
});
