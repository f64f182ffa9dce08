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

const admin = (of: TestStore = store) =>
  sdkClient(api, { clientId: of.clientId, clientSecret: of.clientSecret });
const storefront = (of: TestStore = store) => sdkClient(api, { clientId: of.clientId });

async function product(
  name: string,
  sku: string,
  status: 'live' | 'draft',
  of: TestStore = store,
): Promise<string> {
  const created = await admin(of).PCM.Create({
    type: 'product',
    attributes: { name, sku, status, commodity_type: 'physical' },
  } as never);
  return (created as unknown as { data: { id: string } }).data.id;
}

async function waitForRelease(catalogId: string, releaseId: string, of: TestStore = store): Promise<Release> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const { data } = (await admin(of).Catalogs.Releases.Get({ catalogId, releaseId })) as unknown as {
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
  // Shoppers of the web channel get it by a catalog rule; another channel gets no catalog.
  await sdk.Catalogs.Rules.Create({
    type: 'catalog_rule',
    attributes: { name: 'authored-web', catalog_id: catalog.data.id, channels: ['web'] },
  } as never);

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
  await expect(
    shop.Products.Get({ productId: live, additionalHeaders: { 'EP-Channel': 'pos' } } as never),
  ).rejects.toMatchObject({ errors: [{ status: '404', detail: 'no catalog for this context' }] });
});

async function finished(jobId: string, of: TestStore): Promise<string> {
  for (;;) {
    const job = (await admin(of).PCM.Jobs.Get(jobId)) as unknown as {
      data: { attributes: { status: string } };
    };
    if (job.data.attributes.status === 'success' || job.data.attributes.status === 'failed')
      return job.data.attributes.status;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('publishes built children priced by their modifiers, bundles with their components, the highest-priority book, sales and curated products first', async () => {
  // A store of its own: with no rules, shoppers get a store's oldest catalog.
  const rich = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  const sdk = admin(rich);
  const hierarchyId = (
    (await sdk.Hierarchies.Create({
      type: 'hierarchy',
      attributes: { name: 'Rich', slug: 'rich' },
    } as never)) as any
  ).data.id as string;
  const nodeId = (
    (await sdk.Hierarchies.Nodes.Create({
      hierarchyId,
      body: { attributes: { name: 'All', slug: 'all' } },
    } as never)) as any
  ).data.id as string;

  // A parent with a colour variation: red costs 300 more (a price book modifier its option names).
  const tee = await product('Rich tee', 'RICH-TEE', 'live', rich);
  const colour = await sdk.PCMVariations.CreateVariation({ attributes: { name: 'Colour' } } as never);
  const red = await sdk.PCMVariations.CreateVariationsOption(colour.data.id, {
    attributes: { name: 'Red', description: 'Red' },
  } as never);
  await sdk.PCMVariations.CreateVariationsOption(colour.data.id, {
    attributes: { name: 'Blue', description: 'Blue' },
  } as never);
  await sdk.PCMVariations.CreateVariationsModifier(colour.data.id, red.data.id, {
    attributes: { type: 'price', reference_name: 'red-surcharge' },
  } as never);
  await sdk.PCM.VariationsRelationships.Create(tee, [colour.data.id]);
  const build = (await sdk.PCM.BuildChildProducts(tee)) as unknown as { data: { id: string } };
  expect(await finished(build.data.id, rich)).toBe('success');
  const children = (
    (await sdk.PCM.GetChildProducts(tee)) as unknown as {
      data: { id: string; attributes: { sku: string } }[];
    }
  ).data;
  const redChild = children.find((child) => child.attributes.sku.endsWith('Red'))?.id as string;
  expect(redChild).toBeDefined();

  // A bundle without an sku whose component is attached nowhere; a mug on sale; a curated cap.
  const component = await product('Rich sticker', 'RICH-STICKER', 'draft', rich);
  const bundle = (
    (await sdk.PCM.Create({
      type: 'product',
      attributes: {
        name: 'Rich bundle',
        status: 'live',
        commodity_type: 'physical',
        components: {
          sticker: { name: 'Sticker', options: [{ id: component, type: 'product', quantity: 2 }] },
        },
      },
    } as never)) as any
  ).data.id as string;
  const mug = await product('Rich mug', 'RICH-MUG', 'live', rich);
  const cap = await product('Rich cap', 'RICH-CAP', 'live', rich);
  await sdk.Hierarchies.Relationships.Create({
    hierarchyId,
    nodeId,
    body: [tee, bundle, mug, cap].map((id) => ({ type: 'product', id })),
  } as never);
  await sdk.Hierarchies.Nodes.Update({
    hierarchyId,
    nodeId,
    body: { type: 'node', id: nodeId, attributes: { curated_products: [cap] } },
  } as never);

  // Two books: the high one prices the tee, the low one everything (the tee too, lower).
  const book = async (name: string) =>
    ((await sdk.PriceBooks.Create({ attributes: { name } } as never)) as any).data.id as string;
  const [low, high] = [await book('Rich low'), await book('Rich high')];
  const price = (pricebookId: string, sku: string, amount: number, extra: Record<string, unknown> = {}) =>
    sdk.PriceBooks.Prices.Create({
      pricebookId,
      body: { attributes: { sku, currencies: { USD: { amount, includes_tax: false } }, ...extra } },
    } as never);
  await price(high, 'RICH-TEE', 2000);
  await price(low, 'RICH-TEE', 1500);
  await price(low, 'RICH-STICKER', 100);
  await price(low, 'RICH-CAP', 900);
  await price(low, 'RICH-MUG', 1200, {
    sales: {
      spring: {
        schedule: { valid_from: '2020-01-01T00:00:00Z', valid_to: '2099-01-01T00:00:00Z' },
        currencies: { USD: { amount: 1000, includes_tax: false } },
      },
    },
  });
  await sdk.PriceBooks.PriceModifiers.Create({
    pricebookId: low,
    body: {
      attributes: {
        name: 'red-surcharge',
        modifier_type: 'price_increment',
        currencies: { USD: { amount: 300, includes_tax: false } },
      },
    },
  } as never);

  const catalog = (
    (await sdk.Catalogs.Create({
      attributes: {
        name: 'Rich',
        hierarchy_ids: [hierarchyId],
        pricebook_ids: [
          { id: low, priority: 1 },
          { id: high, priority: 9 },
        ],
      },
    } as never)) as any
  ).data.id as string;
  const created = (await sdk.Catalogs.Releases.Create({ catalogId: catalog })) as unknown as {
    data: Release;
  };
  const release = await waitForRelease(catalog, created.data.id, rich);
  expect(release.meta).toMatchObject({ release_status: 'PUBLISHED' });

  const shop = storefront(rich).ShopperCatalog;
  const read = async (productId: string) =>
    ((await shop.Products.Get({ productId, additionalHeaders: WEB } as never)) as any).data as {
      attributes: Record<string, any>;
      meta: Record<string, any>;
    };
  const teeRead = await read(tee);
  expect([teeRead.attributes.price.USD.amount, teeRead.meta.pricebook_id]).toEqual([2000, high]);
  const redRead = await read(redChild);
  expect([redRead.attributes.price.USD.amount, redRead.meta.pricebook_id]).toEqual([2300, high]);
  const mugRead = await read(mug);
  expect(mugRead.meta).toMatchObject({
    sale_id: 'spring',
    sale_expires: '2099-01-01T00:00:00.000Z',
    display_price: { without_tax: { amount: 1000 } },
    original_price: { USD: { amount: 1200, includes_tax: false } },
  });
  const bundleRead = await read(bundle);
  expect(bundleRead.attributes.sku).toBeUndefined();
  expect(bundleRead.meta.component_products[component]).toMatchObject({
    price: { USD: { amount: 100, includes_tax: false } },
    pricebook_id: low,
  });
  // The component is in the release for the bundle, but a draft is not served on its own.
  await expect(
    shop.Products.Get({ productId: component, additionalHeaders: WEB } as never),
  ).rejects.toMatchObject({
    errors: [{ status: '404' }],
  });
  const inNode = (await shop.Nodes.GetNodeProducts({
    nodeId,
    additionalHeaders: WEB,
  } as never)) as unknown as {
    data: { id: string; attributes: { curated_product?: boolean } }[];
  };
  expect(inNode.data.map((p) => p.id)).toEqual([cap, tee, bundle, mug]);
  expect(inNode.data[0]?.attributes.curated_product).toBe(true);
});
