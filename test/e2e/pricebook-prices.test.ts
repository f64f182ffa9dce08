import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * Prices and price modifiers of price books through the official SDK, unmodified, against the local server
 * (docs/price-books.md): `PriceBooks.Prices.Create`, `Filter(…).All`, `Limit`, `Get`, `Update`, `Delete`, and
 * the same of `PriceBooks.PriceModifiers`.
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
const USD = { USD: { amount: 1999, includes_tax: false } };

it('creates, filters, reads, updates and deletes prices of a price book', async () => {
  const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  const pricebookId = (await sdk.PriceBooks.Create({ attributes: { name: 'Retail' } } as never)).data.id;
  const prices = sdk.PriceBooks.Prices;

  const created = await prices.Create({
    pricebookId,
    body: { attributes: { sku: 'TEE-1', currencies: USD } },
  } as never);
  const priceId = created.data.id;
  expect(created.data).toEqual({
    id: priceId,
    type: 'product-price',
    attributes: { sku: 'TEE-1', currencies: USD, created_at: DATE, updated_at: DATE },
    meta: { owner: 'store', pricebook_id: pricebookId },
  });
  await prices.Create({ pricebookId, body: { attributes: { sku: 'TEE-2', currencies: USD } } } as never);
  await expect(
    prices.Create({ pricebookId, body: { attributes: { sku: 'tee-1', currencies: USD } } } as never),
  ).rejects.toMatchObject({ errors: [{ status: '409', source: 'data.attributes.sku' }] });

  const filtered = await prices.Filter({ eq: { sku: 'tee-2' } } as never).All({ pricebookId } as never);
  expect(filtered.data.map((price: { attributes: { sku: string } }) => price.attributes.sku)).toEqual([
    'TEE-2',
  ]);
  // The endpoint object keeps its filter: clear it before paging the whole book.
  prices.Filter(undefined as never);
  const page = await prices.Limit(1).All({ pricebookId } as never);
  expect(page.data.map((price: { id: string }) => price.id)).toEqual([priceId]);
  expect(page.meta.results.total).toBe(2);

  const updated = await prices.Update({
    pricebookId,
    priceId,
    body: { attributes: { external_ref: 'erp-1' } },
  } as never);
  expect(updated.data.attributes).toMatchObject({ sku: 'TEE-1', external_ref: 'erp-1', currencies: USD });
  expect((await prices.Get({ pricebookId, priceId } as never)).data).toEqual(updated.data);
  await prices.Delete({ pricebookId, priceId } as never);
  await expect(prices.Get({ pricebookId, priceId } as never)).rejects.toMatchObject({
    errors: [{ status: '404', detail: 'price not found' }],
  });
});

it('creates, lists, reads, updates and deletes price modifiers', async () => {
  const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  const pricebookId = (await sdk.PriceBooks.Create({ attributes: { name: 'Modifiers' } } as never)).data.id;
  const modifiers = sdk.PriceBooks.PriceModifiers;

  const created = await modifiers.Create({
    pricebookId,
    body: { attributes: { name: 'large', modifier_type: 'price_increment', currencies: USD } },
  } as never);
  const priceModifierId = created.data.id;
  expect(created.data).toMatchObject({
    type: 'price-modifier',
    attributes: { name: 'large', modifier_type: 'price_increment', currencies: USD },
    meta: { pricebook_id: pricebookId },
  });
  await expect(
    modifiers.Create({
      pricebookId,
      body: { attributes: { name: 'large', modifier_type: 'price_equals', currencies: USD } },
    } as never),
  ).rejects.toMatchObject({ errors: [{ status: '409', source: 'data.attributes.name' }] });
  expect((await modifiers.All({ pricebookId } as never)).meta.results.total).toBe(1);
  const updated = await modifiers.Update({
    pricebookId,
    priceModifierId,
    body: { attributes: { modifier_type: 'price_equals' } },
  } as never);
  expect(updated.data.attributes.modifier_type).toBe('price_equals');
  expect((await modifiers.Get({ pricebookId, priceModifierId } as never)).data).toEqual(updated.data);
  await modifiers.Delete({ pricebookId, priceModifierId } as never);
  expect((await modifiers.All({ pricebookId } as never)).data).toEqual([]);
});
