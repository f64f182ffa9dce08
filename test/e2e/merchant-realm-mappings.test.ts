import { randomUUID } from 'node:crypto';
import { createTestStore, type TestStore, tokenFor } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

let api: LocalApi;
let owner: TestStore;
let rival: TestStore;

/** The official SDK, unmodified, pointed at the local API with a store's credentials. */
function sdkFor(store: TestStore) {
  return sdkClient(api, store);
}

beforeAll(async () => {
  api = await startLocalApi();
  [owner, rival] = await Promise.all([createTestStore(), createTestStore()]);
});
afterAll(() => api.close());

describe('merchant realm mappings through the official SDK', () => {
  it('reads the mapping with All(), sets a prefix with Update() and reads it back', async () => {
    const sdk = sdkFor(owner);
    const before = await sdk.MerchantRealmMappings.All();
    expect(before.data).toEqual({
      id: owner.store.mapping_id,
      type: 'merchant-realm-mappings',
      prefix: null,
      realm_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      store_id: owner.store.id,
    });

    const prefix = `Sdk-Shop-${randomUUID().slice(0, 8)}`;
    const updated = await sdk.MerchantRealmMappings.Update(owner.store.mapping_id, { prefix });
    expect(updated.data).toEqual({ ...before.data, prefix });

    expect((await sdk.MerchantRealmMappings.All()).data).toEqual(updated.data);
    expect((await sdk.MerchantRealmMappings.Get(owner.store.mapping_id)).data).toEqual(updated.data);

    // Another store may not take it in any case: the SDK rejects with our JSON error body.
    const rivalSdk = sdkFor(rival);
    await expect(
      rivalSdk.MerchantRealmMappings.Update(rival.store.mapping_id, { prefix: prefix.toLowerCase() }),
    ).rejects.toEqual({
      errors: [
        {
          status: '409',
          title: 'Conflict',
          detail: 'the prefix is already in use',
          source: 'data.prefix',
          request_id: expect.any(String),
        },
      ],
    });
    // Nor see or change the owner's mapping.
    await expect(
      rivalSdk.MerchantRealmMappings.Update(owner.store.mapping_id, { prefix: 'other-1' }),
    ).rejects.toEqual({
      errors: [expect.objectContaining({ status: '404' })],
    });
  });
});

describe('PUT /v2/merchant-realm-mappings/{mapping_id} over HTTP', () => {
  let token: string;
  beforeAll(async () => {
    token = await tokenFor(owner);
  });

  async function errorsOf(response: Response): Promise<Array<Record<string, unknown>>> {
    return ((await response.json()) as { errors: Array<Record<string, unknown>> }).errors;
  }

  function put(body: string, contentType: string) {
    return fetch(`${api.baseUrl}/v2/merchant-realm-mappings/${owner.store.mapping_id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      body,
    });
  }

  it('answers 415 for a body that is not JSON', async () => {
    const response = await put('prefix=shop', 'text/plain');
    expect(response.status).toBe(415);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect((await errorsOf(response))[0]).toMatchObject({ status: '415', source: 'content-type' });
  });

  it('answers 400 for malformed JSON', async () => {
    const response = await put('{"data": {', 'application/json');
    expect(response.status).toBe(400);
    expect((await errorsOf(response))[0]).toMatchObject({
      status: '400',
      detail: 'request body is not valid JSON',
      source: 'body',
    });
  });

  it('answers 400 naming data.prefix for a bad prefix sent with curl', async () => {
    const response = await put(
      '{"data":{"type":"merchant-realm-mappings","prefix":"-bad"}}',
      'application/json',
    );
    expect(response.status).toBe(400);
    expect((await errorsOf(response))[0]).toMatchObject({ status: '400', source: 'data.prefix' });
  });
});
