import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * Hierarchies through the official SDK, unmodified, against the local server (docs/hierarchies.md):
 * `Hierarchies.Create`, `All` (with `Limit` and `Offset`), `Get`, `Update` and `Delete`.
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

it('creates, lists, reads, updates and deletes hierarchies', async () => {
  const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  const hierarchies = sdk.Hierarchies;

  const created = await hierarchies.Create({
    attributes: { name: 'Apparel', slug: 'e2e-apparel', description: 'To wear' },
  } as never);
  const id = created.data.id;
  expect(created.data).toEqual({
    id,
    type: 'hierarchy',
    attributes: { name: 'Apparel', slug: 'e2e-apparel', description: 'To wear' },
    relationships: { children: { links: { related: `/hierarchies/${id}/children` } } },
    meta: { created_at: DATE, updated_at: DATE, owner: 'store' },
  });
  const second = await hierarchies.Create({ attributes: { name: 'Footwear' } } as never);

  const taken = await hierarchies
    .Create({ attributes: { name: 'Clash', slug: 'E2E-APPAREL' } } as never)
    .catch((error: { errors: { status: string; source?: string }[] }) => error.errors[0]);
  expect(taken).toMatchObject({ status: '409', source: 'data.attributes.slug' });

  const all = await hierarchies.All();
  expect(all.data.map((hierarchy: { id: string }) => hierarchy.id)).toEqual([id, second.data.id]);
  expect(all.meta.results.total).toBe(2);
  const page = await hierarchies.Limit(1).Offset(1).All();
  expect(page.data.map((hierarchy: { id: string }) => hierarchy.id)).toEqual([second.data.id]);

  const updated = await hierarchies.Update(id, { id, attributes: { name: 'Clothing' } } as never);
  expect(updated.data.attributes).toEqual({ name: 'Clothing', slug: 'e2e-apparel', description: 'To wear' });
  expect((await hierarchies.Get(id)).data.attributes.name).toBe('Clothing');

  await hierarchies.Delete(id);
  const gone = await hierarchies
    .Get(id)
    .catch((error: { errors: { status: string; detail: string }[] }) => error.errors[0]);
  expect(gone).toMatchObject({ status: '404', detail: 'hierarchy not found' });
});
