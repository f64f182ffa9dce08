import {
  childrenRelease,
  DRAFT_PARENT,
  LIVE_CHILDREN,
  PARENT,
  STANDALONE,
} from '../support/catalog-fixtures';
import { createTestStore, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';
import { publishRelease } from '../support/one-process-publisher';

let api: LocalApi;
let store: TestStore;

beforeAll(async () => {
  // The SDK logs "Token status" to console.info each time it authenticates.
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
  api = await startLocalApi();
  store = await createTestStore();
  await publishRelease(store.store.id, childrenRelease());
});
afterAll(async () => {
  await api.close();
  jest.restoreAllMocks();
});

/** The official SDK with an implicit grant: a client id and no secret, as a storefront uses it. */
function storefront() {
  return sdkClient(api, { clientId: store.clientId });
}

// The API's own header name (SVC-*); the SDK's typings only list the EP-* aliases, so the object is widened here.
const SVC_WEB = { 'SVC-Channel': 'web' } as Record<string, string>;

type Page = {
  data: { id: string; type: string; attributes: { name: string; language: string } }[];
  meta: {
    results: { total: number };
    page: { limit: number; offset: number; current: number; total: number };
  };
  links: Record<string, string | null>;
};

describe('ShopperCatalog.Products.GetProductChildren through the official SDK (implicit grant)', () => {
  it('pages with Limit and Offset', async () => {
    const page = (await storefront()
      .ShopperCatalog.Products.Limit(5)
      .Offset(5)
      .GetProductChildren({ productId: PARENT, additionalHeaders: SVC_WEB })) as unknown as Page;
    expect(page.data.map((product) => product.id)).toEqual(LIVE_CHILDREN.slice(5, 10));
    expect(page.data[0]?.type).toBe('product');
    expect(page.meta).toEqual({
      results: { total: 12 },
      page: { limit: 5, offset: 5, current: 2, total: 3 },
    });
    const base = `/catalog/products/${PARENT}/relationships/children`;
    expect(page.links).toEqual({
      self: `${base}?page[offset]=5&page[limit]=5`,
      first: `${base}?page[offset]=0&page[limit]=5`,
      last: `${base}?page[offset]=10&page[limit]=5`,
      prev: `${base}?page[offset]=0&page[limit]=5`,
      next: `${base}?page[offset]=10&page[limit]=5`,
    });
  });

  it.each([
    [{ eq: { tags: 'red' } }, ['Child 3', 'Child 6', 'Child 9', 'Child 12']],
    [{ eq: { name: 'Child 4' } }, ['Child 4']],
    [{ in: { sku: ['CH-7', 'CH-8'] } }, ['Child 7', 'Child 8']],
    [
      { in: { tags: ['blue', 'green'] }, eq: { mpn: 'MPN-2' } },
      ['Child 2', 'Child 5', 'Child 8', 'Child 11'],
    ],
    [{ eq: { upc_ean: '4000000000005', product_types: 'child' } }, ['Child 5']],
  ])('renders Filter(%j) as a filter the API accepts', async (filter, names) => {
    const page = (await storefront()
      .ShopperCatalog.Products.Limit(100)
      .Filter(filter)
      .GetProductChildren({ productId: PARENT, additionalHeaders: SVC_WEB })) as unknown as Page;
    expect(page.data.map((product) => product.attributes.name)).toEqual(names);
    expect(page.meta.results.total).toBe(names.length);
  });

  it('chains Limit, Offset and Filter', async () => {
    const page = (await storefront()
      .ShopperCatalog.Products.Limit(2)
      .Offset(2)
      .Filter({ eq: { tags: 'red' } })
      .GetProductChildren({ productId: PARENT, additionalHeaders: SVC_WEB })) as unknown as Page;
    expect(page.data.map((product) => product.attributes.name)).toEqual(['Child 9', 'Child 12']);
    expect(page.meta).toEqual({ results: { total: 4 }, page: { limit: 2, offset: 2, current: 2, total: 2 } });
    expect(page.links.next).toBeNull();
    expect(page.links.prev).toBe(
      `/catalog/products/${PARENT}/relationships/children?filter=eq(tags%2Cred)&page[offset]=0&page[limit]=2`,
    );
  });

  it('orders an in(id,...) filter by last update', async () => {
    const wanted = [LIVE_CHILDREN[0], LIVE_CHILDREN[11], LIVE_CHILDREN[6]] as string[];
    const page = (await storefront()
      .ShopperCatalog.Products.Filter({ in: { id: wanted } })
      .GetProductChildren({ productId: PARENT, additionalHeaders: SVC_WEB })) as unknown as Page;
    expect(page.data.map((product) => product.id)).toEqual([
      LIVE_CHILDREN[11],
      LIVE_CHILDREN[6],
      LIVE_CHILDREN[0],
    ]);
  });

  it('works with the EP-Channel alias the SDK types know', async () => {
    const page = (await storefront()
      .ShopperCatalog.Products.Limit(1)
      .GetProductChildren({
        productId: PARENT,
        additionalHeaders: { 'EP-Channel': 'web' },
      })) as unknown as Page;
    expect(page.data.map((product) => product.id)).toEqual([LIVE_CHILDREN[0]]);
  });

  it('rejects with the JSON error body: 400 without a channel, 404, 422', async () => {
    await expect(
      storefront().ShopperCatalog.Products.GetProductChildren({ productId: PARENT }),
    ).rejects.toEqual({
      errors: [expect.objectContaining({ status: '400', source: 'SVC-Channel' })],
    });
    await expect(
      storefront().ShopperCatalog.Products.GetProductChildren({
        productId: DRAFT_PARENT,
        additionalHeaders: SVC_WEB,
      }),
    ).rejects.toEqual({
      errors: [expect.objectContaining({ status: '404', detail: 'product not found in the catalog' })],
    });
    await expect(
      storefront().ShopperCatalog.Products.GetProductChildren({
        productId: STANDALONE,
        additionalHeaders: SVC_WEB,
      }),
    ).rejects.toEqual({ errors: [expect.objectContaining({ status: '422' })] });
  });
});

describe('the same route with curl-style requests', () => {
  it('accepts percent-encoded brackets and filters and answers JSON', async () => {
    const token = await fetch(`${api.baseUrl}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=implicit&client_id=${store.clientId}`,
    }).then((response) => response.json() as Promise<{ access_token: string }>);
    const response = await fetch(
      `${api.baseUrl}/catalog/products/${PARENT}/relationships/children?filter=eq%28tags%2Cred%29&page%5Blimit%5D=2`,
      { headers: { authorization: `Bearer ${token.access_token}`, 'svc-channel': 'web' } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as Page;
    expect(body.data.map((product) => product.attributes.name)).toEqual(['Child 3', 'Child 6']);
    expect(body.meta.page).toEqual({ limit: 2, offset: 0, current: 1, total: 2 });
  });
});
