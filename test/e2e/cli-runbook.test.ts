import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore, tokenFor } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * The platform CLI's `pxm-how-to create-catalog-and-publish` runbook, replayed call by call with the bodies
 * the CLI builds from its arguments (epcc-cli `external/runbooks/pxm-how-to.epcc.yml`): a hierarchy, nodes
 * (two with `relationships.parent`), two live products each attached to a node, a currency, a price book,
 * a price per product, a catalog naming both, a release with `{"data":{"type":"catalog-release"}}`, then
 * the release polled every 3 s while not PUBLISHED, as `--retry-while-jq` does. Then a shopper reads the
 * products, priced in both currencies, and the node tree.
 */

/** A storefront names its channel (the store requires one by default: docs/catalog.md). */
const WEB = { 'EP-Channel': 'web' };

let api: LocalApi;
let store: TestStore;
let token: string;

beforeAll(async () => {
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
  api = await startLocalApi();
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store);
});
afterAll(async () => {
  await api.close();
  jest.restoreAllMocks();
});

/** The CLI's poll interval for `--retry-while-jq`. */
const POLL_MS = 3_000;

async function epcc(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function created(method: string, path: string, body: unknown): Promise<string> {
  const response = await epcc(method, path, body);
  expect([path, response.status]).toEqual([path, 201]);
  return response.body.data.id;
}

it('create-catalog-and-publish: every call answers as the CLI expects, and shoppers see the priced ranges', async () => {
  const hierarchy = await created('POST', '/pcm/hierarchies', {
    data: {
      type: 'hierarchy',
      attributes: {
        name: 'Major Appliances',
        description: 'Free standing appliances',
        slug: 'Major-Appliances-MA0',
      },
    },
  });
  const node = (attributes: Record<string, string>, parent?: string) =>
    created('POST', `/pcm/hierarchies/${hierarchy}/nodes`, {
      data: {
        type: 'node',
        attributes,
        ...(parent === undefined
          ? {}
          : { relationships: { parent: { data: { type: 'node', id: parent } } } }),
      },
    });
  const ranges = await node({ name: 'Ranges', description: 'All stoves and ovens', slug: 'Ranges-MA1' });
  // The runbook creates these two at once.
  const [electric, gas] = await Promise.all([
    node(
      { name: 'Electric Ranges', description: 'Electric stoves and ovens', slug: 'Electric-Ranges-MA2' },
      ranges,
    ),
    node({ name: 'Gas Ranges', description: 'Gas stoves and ovens', slug: 'Gas-Ranges-MA2' }, ranges),
  ]);
  const product = (name: string, sku: string, slug: string, description: string, upc: string, mpn: string) =>
    created('POST', '/pcm/products', {
      data: {
        type: 'product',
        attributes: {
          name,
          sku,
          slug,
          description,
          status: 'live',
          commodity_type: 'physical',
          upc_ean: upc,
          mpn,
        },
      },
    });
  const attach = async (nodeId: string, productId: string) => {
    const response = await epcc(
      'POST',
      `/pcm/hierarchies/${hierarchy}/nodes/${nodeId}/relationships/products`,
      {
        data: [{ type: 'product', id: productId }],
      },
    );
    expect(response.status).toBe(201);
  };
  const electricRange = await product(
    'BestEver Electric Range',
    'BE-Electric-Range-1a1a',
    'bestever-range-1a1a',
    'This electric model offers an induction heating element and convection oven.',
    '111122223333',
    'BE-R-1111-aaaa-1a1a',
  );
  await attach(electric, electricRange);
  const gasRange = await product(
    'BestEver Gas Range',
    'BE-Gas-Range-2b2b',
    'bestever-range-2b2b',
    'This gas model includes a convection oven.',
    '222233334444',
    'BE-R-2222-bbbb-2b2b',
  );
  await attach(gas, gasRange);
  await created('POST', '/v2/currencies', {
    data: {
      type: 'currency',
      code: 'GBP',
      exchange_rate: 1,
      format: '£{price}',
      decimal_point: '.',
      thousand_separator: ',',
      decimal_places: 2,
      default: false,
      enabled: true,
    },
  });
  const book = await created('POST', '/pcm/pricebooks', {
    data: {
      type: 'pricebook',
      attributes: {
        name: 'Preferred Pricing',
        description: 'Catalog with pricing suitable for high-volume customers.',
      },
    },
  });
  const price = (sku: string, usd: number, gbp: number) =>
    created('POST', `/pcm/pricebooks/${book}/prices`, {
      data: {
        type: 'product-price',
        attributes: {
          currencies: {
            USD: { amount: usd, includes_tax: false },
            GBP: { amount: gbp, includes_tax: false },
          },
          sku,
        },
      },
    });
  await Promise.all([
    price('BE-Electric-Range-1a1a', 300000, 250000),
    price('BE-Gas-Range-2b2b', 350000, 300000),
  ]);
  const catalog = await created('POST', '/pcm/catalogs', {
    data: {
      type: 'catalog',
      attributes: {
        name: 'Ranges Catalog',
        description: 'Ranges Catalog',
        pricebook_id: book,
        hierarchy_ids: [hierarchy],
      },
    },
  });
  const release = await created('POST', `/pcm/catalogs/${catalog}/releases`, {
    data: { type: 'catalog-release' },
  });

  let status = 'PENDING';
  let polls = 0;
  while (status !== 'PUBLISHED') {
    const read = await epcc('GET', `/pcm/catalogs/${catalog}/releases/${release}`);
    expect(read.status).toBe(200);
    status = read.body.data.meta.release_status;
    // A FAILED release says why in its errors: shown with the state, so a failure names its cause.
    expect([status, read.body.data.meta.errors ?? []]).toEqual([
      expect.stringMatching(/^(PENDING|IN_PROGRESS|PUBLISHED)$/),
      [],
    ]);
    polls += 1;
    if (status !== 'PUBLISHED') await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  expect(polls).toBeLessThanOrEqual(10);

  const shop = sdkClient(api, { clientId: store.clientId }).ShopperCatalog;
  const read = (await shop.Products.Get({
    productId: electricRange,
    additionalHeaders: WEB,
  } as never)) as unknown as {
    data: { attributes: Record<string, any>; meta: Record<string, any> };
  };
  expect(read.data.attributes).toMatchObject({
    name: 'BestEver Electric Range',
    sku: 'BE-Electric-Range-1a1a',
    manufacturer_part_num: 'BE-R-1111-aaaa-1a1a',
    upc_ean: '111122223333',
    price: { USD: { amount: 300000, includes_tax: false }, GBP: { amount: 250000, includes_tax: false } },
  });
  // GBP is the store's only currency of /v2/currencies, so its default (docs/currencies.md): display
  // prices are in GBP, and `EP-Currency: GBP` names it.
  expect(read.data.meta.display_price.without_tax).toEqual({
    amount: 250000,
    currency: 'GBP',
    formatted: '£2,500.00',
  });
  expect(read.data.meta.bread_crumbs).toEqual({ [electric]: [hierarchy, ranges, electric] });
  const gbp = (await shop.Products.Get({
    productId: gasRange,
    additionalHeaders: { ...WEB, 'EP-Currency': 'GBP' },
  } as never)) as unknown as { data: { attributes: Record<string, any>; meta: Record<string, any> } };
  expect(gbp.data.attributes.price.USD).toEqual({ amount: 350000, includes_tax: false });
  expect(gbp.data.meta.display_price.without_tax).toEqual({
    amount: 300000,
    currency: 'GBP',
    formatted: '£3,000.00',
  });
  const children = (await shop.Nodes.GetNodeChildren({
    nodeId: ranges,
    additionalHeaders: WEB,
  } as never)) as unknown as {
    data: { id: string }[];
  };
  expect(children.data.map((n) => n.id).sort()).toEqual([electric, gas].sort());
});
