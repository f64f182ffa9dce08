import {
  childrenRelease,
  EMPTY_PARENT,
  id,
  LIVE_CHILDREN,
  PARENT,
  ROOT_NODE,
  STANDALONE,
} from '../support/catalog-fixtures';
import { createTestStore, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';
import { publishRelease } from '../support/one-process-publisher';

/** `GET /catalog`, `GET /catalog/products[/{id}]` over HTTP through the official SDK, unmodified. */

let api: LocalApi;
let store: TestStore;
let releaseId: string;

beforeAll(async () => {
  // The SDK logs "Token status" to console.info each time it authenticates.
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
  api = await startLocalApi();
  store = await createTestStore();
  releaseId = (await publishRelease(store.store.id, childrenRelease())).release_id;
});
afterAll(async () => {
  await api.close();
  jest.restoreAllMocks();
});

const storefront = () => sdkClient(api, { clientId: store.clientId });
const admin = () => sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
const WEB = { 'EP-Channel': 'web' };

type Listed = { data: { id: string; attributes: { name: string } }[]; meta: { results: { total: number } } };
const LIVE_IN_ORDER = [PARENT, ...LIVE_CHILDREN, id(301), STANDALONE, EMPTY_PARENT];

describe('ShopperCatalog through the official SDK', () => {
  it('Get: the release the context selects (implicit and client_credentials tokens alike)', async () => {
    for (const client of [storefront(), admin()]) {
      const release = await client.ShopperCatalog.Get({ additionalHeaders: WEB });
      expect(release.data.id).toBe(releaseId);
      expect(release.data.type).toBe('catalog-release');
      expect(release.data.attributes.hierarchies).toEqual([{ id: ROOT_NODE, name: 'Root' }]);
      expect(release.data.meta.total_products).toBe(LIVE_IN_ORDER.length);
    }
  });

  it('Products.Get and Products.With(...).Get: one product, with included', async () => {
    const one = await storefront().ShopperCatalog.Products.Get({
      productId: LIVE_CHILDREN[2] as string,
      additionalHeaders: WEB,
    });
    expect(one.data.id).toBe(LIVE_CHILDREN[2]);
    expect(one.data.attributes.name).toBe('Child 3');
    expect(one.data.relationships.parent).toEqual({ data: { id: PARENT, type: 'product' } });
    const withIncluded = await admin()
      .ShopperCatalog.Products.With(['main_image', 'files'])
      .Get({ productId: PARENT, additionalHeaders: WEB });
    expect(withIncluded.included).toEqual({ main_images: [], files: [] });
    await expect(
      storefront().ShopperCatalog.Products.Get({ productId: id(202), additionalHeaders: WEB }),
    ).rejects.toMatchObject({
      errors: [expect.objectContaining({ status: '404', detail: 'product not found in the catalog' })],
    });
  });

  it('Products.All pages; Products.Filter answers slug, sku and id lookups', async () => {
    const all = (await storefront()
      .ShopperCatalog.Products.Limit(4)
      .Offset(12)
      .All({ additionalHeaders: WEB })) as unknown as Listed;
    expect(all.data.map((product) => product.id)).toEqual(LIVE_IN_ORDER.slice(12, 16));
    expect(all.meta.results.total).toBe(16);
    const bySlug = (await storefront()
      .ShopperCatalog.Products.Filter({ eq: { slug: 'child-4' } })
      .All({ additionalHeaders: WEB })) as unknown as Listed;
    expect(bySlug.data.map((product) => product.attributes.name)).toEqual(['Child 4']);
    const bySku = (await admin()
      .ShopperCatalog.Products.Filter({ eq: { sku: 'SOLO' } })
      .All({ additionalHeaders: WEB })) as unknown as Listed;
    expect(bySku.data.map((product) => product.id)).toEqual([STANDALONE]);
    const cart = [LIVE_CHILDREN[0] as string, LIVE_CHILDREN[9] as string];
    const byId = (await storefront()
      .ShopperCatalog.Products.Filter({ in: { id: cart } })
      .All({ additionalHeaders: WEB })) as unknown as Listed;
    // Oldest updated first: child 10 was updated before child 1.
    expect(byId.data.map((product) => product.id)).toEqual([LIVE_CHILDREN[9], LIVE_CHILDREN[0]]);
  });
});

describe('the product routes with curl-style requests', () => {
  it('answer JSON, and 400 without the channel header', async () => {
    const token = await fetch(`${api.baseUrl}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=implicit&client_id=${store.clientId}`,
    }).then((response) => response.json() as Promise<{ access_token: string }>);
    const headers = { authorization: `Bearer ${token.access_token}` };
    const listed = await fetch(`${api.baseUrl}/catalog/products?filter=eq%28slug%2Cchild-2%29`, {
      headers: { ...headers, 'svc-channel': 'web' },
    });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-type')).toBe('application/json');
    expect(((await listed.json()) as Listed).data.map((product) => product.id)).toEqual([LIVE_CHILDREN[1]]);
    const missing = await fetch(`${api.baseUrl}/catalog`, { headers });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { errors: { source: string }[] }).errors[0]?.source).toBe(
      'SVC-Channel',
    );
  });
});
