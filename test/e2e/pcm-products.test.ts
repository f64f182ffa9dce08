import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * The product API (docs/products.md) through the official SDK, unmodified, over HTTP: `PCM.Create`,
 * `PCM.Get`, `PCM.All`, `PCM.Filter(...).All()`, `PCM.Limit().Offset().All()`, `PCM.Update`, `PCM.Delete`.
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

type Product = {
  id: string;
  type: string;
  attributes: Record<string, unknown> & { name: string; sku?: string; status: string };
  meta: { product_types: string[]; owner: string };
};
type One = { data: Product; included?: { component_products?: Product[] } };
type Many = { data: Product[]; meta: { results: { total: number } }; links: Record<string, string | null> };

const admin = () => sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });

describe('the SDK’s PCM endpoint', () => {
  const ids: string[] = [];

  it('creates products with PCM.Create (201, drafts unless told)', async () => {
    const sdk = admin();
    const specs = [
      { name: 'SDK shirt', sku: 'SDK-SHIRT', tags: ['Cotton'], commodity_type: 'physical' },
      { name: 'SDK hat', sku: 'SDK-HAT', status: 'live', commodity_type: 'physical' },
      { name: 'SDK ebook', sku: 'SDK-EBOOK', commodity_type: 'digital' },
    ];
    for (const attributes of specs) {
      const created = (await sdk.PCM.Create({ attributes } as never)) as unknown as One;
      expect(created.data).toMatchObject({ type: 'product', attributes: { name: attributes.name } });
      ids.push(created.data.id);
    }
    const first = (await sdk.PCM.Get(ids[0] as string)) as unknown as One;
    expect(first.data.attributes).toEqual({
      name: 'SDK shirt',
      sku: 'SDK-SHIRT',
      slug: 'sdk-shirt',
      status: 'draft',
      commodity_type: 'physical',
      tags: ['cotton'],
    });
    expect(first.data.meta).toMatchObject({ owner: 'store', product_types: ['standard'] });
  });

  it('lists them with PCM.All, PCM.Filter(...).All() and PCM.Limit().Offset().All()', async () => {
    const sdk = admin();
    const all = (await sdk.PCM.All()) as unknown as Many;
    expect(all.data.map((product) => product.id)).toEqual(ids);
    expect(all.meta.results.total).toBe(3);

    const filtered = (await sdk.PCM.Filter({
      like: { sku: 'SDK-*' },
      eq: { commodity_type: 'physical' },
    } as never).All()) as unknown as Many;
    expect(filtered.data.map((product) => product.attributes.name)).toEqual(['SDK shirt', 'SDK hat']);
    expect(filtered.meta.results.total).toBe(2);

    const page = (await sdk.PCM.Limit(1).Offset(1).All()) as unknown as Many;
    expect(page.data.map((product) => product.attributes.name)).toEqual(['SDK hat']);
    expect(page.meta.results.total).toBe(3);
    expect(page.links.next).toBe(`${api.baseUrl}/pcm/products?page[offset]=2&page[limit]=1`);
  });

  it('changes only what PCM.Update sends, and PCM.Get includes a bundle’s component products', async () => {
    const sdk = admin();
    const updated = (await sdk.PCM.Update(
      ids[1] as string,
      {
        id: ids[1],
        attributes: { description: 'A wide-brimmed hat' },
      } as never,
    )) as unknown as One;
    expect(updated.data.attributes).toMatchObject({
      name: 'SDK hat',
      sku: 'SDK-HAT',
      status: 'live',
      description: 'A wide-brimmed hat',
    });
    const bundle = (await sdk.PCM.Create({
      attributes: {
        name: 'SDK outfit',
        commodity_type: 'physical',
        components: {
          top: { name: 'Top', options: [{ id: ids[0], type: 'product', quantity: 1 }] },
          head: { name: 'Head', options: [{ id: ids[1], type: 'product', quantity: 1 }] },
        },
      },
    } as never)) as unknown as One;
    const read = (await sdk.PCM.With('component_products').Get(bundle.data.id)) as unknown as One;
    expect(read.data.meta.product_types).toEqual(['bundle']);
    expect(read.included?.component_products?.map((product) => product.id)).toEqual([ids[0], ids[1]]);
    ids.push(bundle.data.id);
  });

  it('deletes with PCM.Delete once no bundle uses the product; a taken sku is the platform error', async () => {
    const sdk = admin();
    await expect(sdk.PCM.Delete(ids[0] as string)).rejects.toEqual({
      errors: [
        {
          status: '409',
          title: 'Conflict',
          detail: `the product is a component of bundle ${ids[3]}: remove it from the bundle's components (or delete the bundle) first`,
          request_id: expect.any(String),
        },
      ],
    });
    await expect(
      sdk.PCM.Create({ attributes: { name: 'Copy', sku: 'sdk-shirt', commodity_type: 'physical' } } as never),
    ).rejects.toEqual({
      errors: [
        {
          status: '409',
          title: 'Conflict',
          detail: 'data.attributes.sku: Must be unique amongst products.',
          source: 'data.attributes.sku',
          request_id: expect.any(String),
        },
      ],
    });
    await expect(sdk.PCM.Delete(ids[3] as string)).resolves.toBeDefined();
    await expect(sdk.PCM.Delete(ids[0] as string)).resolves.toBeDefined();
    await expect(sdk.PCM.Get(ids[0] as string)).rejects.toMatchObject({
      errors: [expect.objectContaining({ status: '404', detail: 'product not found' })],
    });
    const left = (await sdk.PCM.All()) as unknown as Many;
    expect(left.data.map((product) => product.attributes.name)).toEqual(['SDK hat', 'SDK ebook']);
  });
});
