import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * An authored catalog, the platform's way, through the official SDK unmodified (docs/publishing.md,
 * "Authored catalogs"): a hierarchy with a node, products attached to it (one live, one draft, one not
 * attached), a price book with a price, a catalog naming both, `Catalogs.Releases.Create`, polled until
 * PUBLISHED; then a storefront reads the live attached product, priced, and nothing else.
 */

/** A storefront names its channel (the store requires one by default: docs/catalog.md). */
const WEB = { 'EP-Channel': 'web' };

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

type Release = { id: string; meta: { release_status: string; total_products: number | null } };

const admin = () => sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
const storefront = () => sdkClient(api, { clientId: store.clientId });

async function product(name: string, sku: string, status: 'live' | 'draft'): Promise<string> {
  const created = await admin().PCM.Create({
    type: 'product',
    attributes: { name, sku, status, commodity_type: 'physical' },
  } as never);
  return (created as unknown as { data: { id: string } }).data.id;
}

async function waitForRelease(catalogId: string, releaseId: string): Promise<Release> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const { data } = (await admin().Catalogs.Releases.Get({ catalogId, releaseId })) as unknown as {
      data: Release;
    };
    if (data.meta.release_status === 'PUBLISHED' || data.meta.release_status === 'FAILED') return data;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`release ${releaseId} did not finish`);
}

it('publishes the live products attached to its hierarchies, priced from its price book', async () => {
  const sdk = admin();
  const hierarchy = (await sdk.Hierarchies.Create({
    type: 'hierarchy',
    attributes: { name: 'Authored apparel', slug: 'authored-apparel' },
  } as never)) as unknown as { data: { id: string } };
  const hierarchyId = hierarchy.data.id;
  const node = (await sdk.Hierarchies.Nodes.Create({
    hierarchyId,
    body: { attributes: { name: 'Shirts', slug: 'shirts' } },
  } as never)) as unknown as { data: { id: string } };
  const nodeId = node.data.id;

  const live = await product('Authored shirt', 'AUTH-SHIRT', 'live');
  const draft = await product('Draft shirt', 'AUTH-DRAFT', 'draft');
  const loose = await product('Unattached shirt', 'AUTH-LOOSE', 'live');
  await sdk.Hierarchies.Relationships.Create({
    hierarchyId,
    nodeId,
    body: [
      { type: 'product', id: live },
      { type: 'product', id: draft },
    ],
  } as never);

  const book = (await sdk.PriceBooks.Create({
    attributes: { name: 'Authored retail' },
  } as never)) as unknown as {
    data: { id: string };
  };
  await sdk.PriceBooks.Prices.Create({
    pricebookId: book.data.id,
    body: { attributes: { sku: 'AUTH-SHIRT', currencies: { USD: { amount: 2500, includes_tax: false } } } },
  } as never);

  const catalog = (await sdk.Catalogs.Create({
    attributes: { name: 'Authored', hierarchy_ids: [hierarchyId], pricebook_id: book.data.id },
  } as never)) as unknown as { data: { id: string; attributes: Record<string, unknown> } };
  expect(catalog.data.attributes).toMatchObject({ hierarchy_ids: [hierarchyId], pricebook_id: book.data.id });
  const created = (await sdk.Catalogs.Releases.Create({ catalogId: catalog.data.id })) as unknown as {
    data: Release;
  };
  const release = await waitForRelease(catalog.data.id, created.data.id);
  expect(release.meta).toMatchObject({ release_status: 'PUBLISHED', total_products: 1 });

  const shop = storefront().ShopperCatalog;
  const read = (await shop.Products.Get({ productId: live, additionalHeaders: WEB } as never)) as unknown as {
    data: { attributes: Record<string, unknown>; meta: Record<string, unknown> };
  };
  expect(read.data.attributes).toMatchObject({ name: 'Authored shirt', sku: 'AUTH-SHIRT' });
  expect(read.data.attributes.price).toEqual({ USD: { amount: 2500, includes_tax: false } });
  expect(read.data.meta.display_price).toMatchObject({ without_tax: { amount: 2500, currency: 'USD' } });
  for (const hidden of [draft, loose]) {
    await expect(
      shop.Products.Get({ productId: hidden, additionalHeaders: WEB } as never),
    ).rejects.toMatchObject({
      errors: [{ status: '404' }],
    });
  }
  const inNode = (await shop.Nodes.GetNodeProducts({
    nodeId,
    additionalHeaders: WEB,
  } as never)) as unknown as { data: { id: string }[] };
  expect(inNode.data.map((p) => p.id)).toEqual([live]);
});
