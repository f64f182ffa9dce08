import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';
import { currencyFields } from '../support/pcm-fixtures';

/**
 * Currencies through the official SDK, unmodified, against the local server (docs/currencies.md):
 * `Currencies.Create`, `All`, `Get`, `Update` and `Delete` in the platform's legacy flat format.
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
const fields = (code: string, isDefault: boolean) => ({
  type: 'currency',
  ...currencyFields(code),
  default: isDefault,
});

it('creates, lists, reads, updates and deletes currencies, keeping one default', async () => {
  const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  const currencies = sdk.Currencies;

  const usd = await currencies.Create(fields('USD', false));
  const usdId = usd.data.id;
  expect(usd.data).toEqual({
    id: usdId,
    ...fields('USD', true),
    links: { self: `${api.baseUrl}/v2/currencies/${usdId}` },
    meta: { owner: 'store', timestamps: { created_at: DATE, updated_at: DATE } },
  });
  const eur = await currencies.Create(fields('EUR', true));
  const eurId = eur.data.id;
  expect(eur.data.default).toBe(true);
  expect((await currencies.Get(usdId)).data.default).toBe(false);

  const all = await currencies.Limit(1).All();
  expect(all.data.map((currency: { code: string }) => currency.code)).toEqual(['USD']);
  expect(all.meta.results.total).toBe(2);

  // The SDK's Update sends only what it is given (no type, no id).
  const updated = await currencies.Update(usdId, { decimal_places: 0, format: '${price}' });
  expect(updated.data).toMatchObject({ id: usdId, code: 'USD', decimal_places: 0, format: '${price}' });

  await expect(currencies.Delete(eurId)).rejects.toEqual({
    errors: [
      {
        status: '422',
        title: 'Unprocessable Entity',
        detail: 'the default currency cannot be deleted: make another currency the default first',
        source: 'currency_id',
        request_id: expect.any(String),
      },
    ],
  });
  await expect(currencies.Create(fields('eur', false))).rejects.toMatchObject({
    errors: [
      { status: '400', source: 'data.code', detail: expect.stringMatching(/^Currency already exists/) },
    ],
  });
  await currencies.Delete(usdId);
  await expect(currencies.Get(usdId)).rejects.toEqual({
    errors: [
      { status: '404', title: 'Not Found', detail: 'currency not found', request_id: expect.any(String) },
    ],
  });
  expect((await currencies.All()).data.map((currency: { id: string }) => currency.id)).toEqual([eurId]);
});
