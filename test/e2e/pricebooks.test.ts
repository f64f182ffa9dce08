import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * Price books through the official SDK, unmodified, against the local server (docs/price-books.md):
 * `PriceBooks.Create`, `All`, `Get`, `Update` and `Delete`.
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

it('creates, lists, reads, updates and deletes price books', async () => {
  const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  const books = sdk.PriceBooks;

  const retail = await books.Create({ attributes: { name: 'Retail', description: 'Shop prices' } } as never);
  const id = retail.data.id;
  expect(retail.data).toEqual({
    id,
    type: 'pricebook',
    attributes: { name: 'Retail', description: 'Shop prices', created_at: DATE, updated_at: DATE },
    meta: { owner: 'store' },
  });
  await books.Create({ attributes: { name: 'Wholesale' } } as never);
  const all = await books.Limit(1).All();
  expect(all.data.map((book: { id: string }) => book.id)).toEqual([id]);
  expect(all.meta.results.total).toBe(2);

  // The SDK's Update adds the type, not the id.
  const updated = await books.Update(id, { attributes: { external_ref: 'erp-7' } } as never);
  expect(updated.data.attributes).toMatchObject({
    name: 'Retail',
    description: 'Shop prices',
    external_ref: 'erp-7',
  });
  expect((await books.Get(id)).data).toEqual(updated.data);

  await expect(books.Create({ attributes: { name: 'Wholesale' } } as never)).rejects.toMatchObject({
    errors: [{ status: '409', source: 'data.attributes.name' }],
  });
  await books.Delete(id);
  await expect(books.Get(id)).rejects.toEqual({
    errors: [
      { status: '404', title: 'Not Found', detail: 'price book not found', request_id: expect.any(String) },
    ],
  });
  expect((await books.All()).meta.results.total).toBe(1);
});
