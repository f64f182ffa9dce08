import { handler as getCatalog } from '../../functions/get-catalog/handler';
import { handler as getProduct } from '../../functions/get-catalog-product/handler';
import { handler as listProducts } from '../../functions/list-catalog-products/handler';
import { clearCatalogCaches } from '../../lib/catalog/cache';
import { scanIndex } from '../../lib/catalog/catalog-reads';
import { releaseFor } from '../../lib/catalog/list-children';
import { getConfig } from '../../lib/config/index';
import { catalogRepository } from '../../lib/store/catalog-repository';
import { getDocumentClient } from '../../lib/store/client';
import { storeRepository } from '../../lib/store/store-repository';
import {
  childrenRelease,
  DRAFT_PARENT,
  EMPTY_PARENT,
  id,
  LIVE_CHILDREN,
  listChildren,
  PARENT,
  ROOT_NODE,
  STANDALONE,
} from '../support/catalog-fixtures';
import {
  bearer,
  createTestStore,
  type InvokeResult,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';
import { publishRelease } from '../support/one-process-publisher';

/**
 * The storefront's catalog reads besides the child list: `GET /catalog`, `GET /catalog/products/{id}` and
 * `GET /catalog/products`, on DynamoDB Local through the handlers.
 */

const WEB = { 'svc-channel': 'web' };

function catalog(token: string, headers: Record<string, string> = WEB): Promise<InvokeResult> {
  return invoke(getCatalog, {
    method: 'GET',
    path: '/catalog',
    routeKey: 'GET /catalog',
    headers: bearer(token, headers),
  });
}

function product(
  token: string,
  productId: string,
  query = '',
  headers: Record<string, string> = WEB,
): Promise<InvokeResult> {
  return invoke(getProduct, {
    method: 'GET',
    path: `/catalog/products/${encodeURIComponent(productId)}${query === '' ? '' : `?${query}`}`,
    routeKey: 'GET /catalog/products/{product_id}',
    pathParameters: { product_id: productId },
    headers: bearer(token, headers),
  });
}

function products(token: string, query = '', headers: Record<string, string> = WEB): Promise<InvokeResult> {
  return invoke(listProducts, {
    method: 'GET',
    path: `/catalog/products${query === '' ? '' : `?${query}`}`,
    routeKey: 'GET /catalog/products',
    headers: bearer(token, headers),
  });
}

const ids = (response: InvokeResult) => (response.body.data as { id: string }[]).map((entry) => entry.id);

/** Live products of childrenRelease() in publish order (drafts and DRAFT_PARENT left out). */
const LIVE_IN_ORDER = [PARENT, ...LIVE_CHILDREN, id(301), STANDALONE, EMPTY_PARENT];
const child = (i: number) => LIVE_CHILDREN[i - 1] as string;

describe('storefront catalog reads', () => {
  let store: TestStore;
  let other: TestStore;
  let token: string;
  let implicit: string;
  let releaseId: string;
  let catalogId: string;

  beforeAll(async () => {
    store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    other = await createTestStore({ name: 'Other store' });
    const result = await publishRelease(store.store.id, childrenRelease());
    releaseId = result.release_id;
    catalogId = result.catalog_id;
    await publishRelease(other.store.id, {
      catalog: { name: 'Other' },
      products: [
        {
          id: id(777),
          attributes: {
            name: 'Elsewhere',
            sku: 'ELSE',
            slug: 'elsewhere',
            status: 'live',
            commodity_type: 'physical',
          },
        },
      ],
    });
    token = await tokenFor(store);
    implicit = await tokenFor(store, 'implicit');
  });

  beforeEach(() => clearCatalogCaches());

  it('GET /catalog returns the selected release in the catalog-release shape', async () => {
    const response = await catalog(implicit);
    expect(response.status).toBe(200);
    const data = response.body.data;
    expect(data.id).toBe(releaseId);
    expect(data.type).toBe('catalog-release');
    expect(data.attributes).toEqual({
      name: 'Children',
      description: '',
      catalog_id: catalogId,
      pricebook_id: null,
      published_at: data.meta.created_at,
      hierarchies: [{ id: ROOT_NODE, name: 'Root' }],
    });
    expect(data.meta).toMatchObject({
      release_status: 'PUBLISHED',
      total_products: LIVE_IN_ORDER.length,
      total_nodes: 2,
      percent_completed: 100,
    });
    expect(data.links).toEqual({ self: '/catalog' });
  });

  it('GET /catalog/products/{id} renders a live product exactly as the child list does', async () => {
    const listed = await listChildren(token, PARENT, 'page[limit]=1', {
      ...WEB,
      'accept-language': 'fr-FR',
    });
    const one = await product(implicit, child(1), '', { ...WEB, 'accept-language': 'fr-FR' });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ data: listed.body.data[0] });
    expect(one.body.data.attributes.name).toBe('Enfant 1');
    const parent = await product(token, PARENT.toUpperCase());
    expect(parent.body.data.id).toBe(PARENT);
    expect(parent.body.data.relationships.children).toEqual({
      links: { self: `/catalog/products/${PARENT}/relationships/children` },
    });
  });

  it.each([
    ['a draft', id(202)],
    ['a draft parent', DRAFT_PARENT],
    ['an unknown id', id(999)],
    ["another store's product", id(777)],
    ['an id that is no UUID', 'not-a-uuid'],
  ])('GET /catalog/products/{id} answers 404 for %s', async (_, productId) => {
    const response = await product(token, productId);
    expect(response.status).toBe(404);
    expect(response.body.errors[0]).toMatchObject({
      status: '404',
      detail: 'product not found in the catalog',
    });
  });

  it('GET /catalog/products pages through the live products in publish order with the child list meta and links', async () => {
    const first = await products(implicit, 'page[limit]=5');
    expect(first.status).toBe(200);
    expect(ids(first)).toEqual(LIVE_IN_ORDER.slice(0, 5));
    expect(first.body.meta).toEqual({
      results: { total: 16 },
      page: { limit: 5, offset: 0, current: 1, total: 4 },
    });
    expect(first.body.links).toEqual({
      self: '/catalog/products?page[offset]=0&page[limit]=5',
      first: '/catalog/products?page[offset]=0&page[limit]=5',
      last: '/catalog/products?page[offset]=15&page[limit]=5',
      prev: null,
      next: '/catalog/products?page[offset]=5&page[limit]=5',
    });
    const last = await products(implicit, 'page[limit]=5&page[offset]=15');
    expect(ids(last)).toEqual([EMPTY_PARENT]);
    // The store's page length (25) by default: everything on one page.
    const all = await products(token);
    expect(ids(all)).toEqual(LIVE_IN_ORDER);
    expect(all.body.links.last).toBeNull();
    const past = await products(token, 'page[offset]=100');
    expect(ids(past)).toEqual([]);
    expect(past.body.meta.results.total).toBe(16);
  });

  it.each([
    ['eq(slug,child-3)', [child(3)]],
    ['eq(sku,CH-5)', [child(5)]],
    ['in(sku,CH-7,CH-2,SOLO,CH-DRAFT-202)', [child(2), child(7), STANDALONE]],
    // in(id,...): oldest updated_at first (child i was updated on January 30 - i).
    [`in(id,${child(1)},${child(5)},${id(202)},${id(999)},${id(777)})`, [child(5), child(1)]],
    ['eq(slug,child-3):eq(tags,red)', [child(3)]],
    ['eq(slug,child-3):eq(tags,blue)', []],
    ['eq(slug,elsewhere)', []],
    ['eq(tags,red)', [child(3), child(6), child(9), child(12)]],
    ['eq(manufacturer_part_num,MPN-1):in(tags,odd)', [child(1), child(7)]],
    ['eq(name,Standalone)', [STANDALONE]],
    ['eq(product_types,parent)', [PARENT, EMPTY_PARENT]],
    ['in(sku,a):in(sku,b)', []],
  ])('GET /catalog/products?filter=%s', async (filter, expected) => {
    const response = await products(token, `filter=${encodeURIComponent(filter)}`);
    expect(response.status).toBe(200);
    expect(ids(response)).toEqual(expected);
    expect(response.body.meta.results.total).toBe(expected.length);
    expect(response.body.links.self).toBe(
      `/catalog/products?filter=${encodeURIComponent(filter)}&page[offset]=0&page[limit]=25`,
    );
  });

  it('answers slug, sku and id filters from lookups: no read of the release index, one batch per step', async () => {
    await catalog(token); // the registry is cached from here on (within RELEASE_CACHE_SECONDS)
    const send = jest.spyOn(getDocumentClient(), 'send');
    // The release's reads only: the token's background recheck reads the keys table whenever a loaded
    // machine lets a second pass since the token was cached.
    const productsTable = getConfig().productsTable;
    const reads = () =>
      send.mock.calls
        .map(([command]) => command as { constructor: { name: string }; input?: Record<string, any> })
        .filter((command) => command.constructor.name === 'BatchGetCommand')
        .map(
          (command) =>
            (command.input?.RequestItems as Record<string, { Keys: { sk: string }[] }> | undefined)?.[
              productsTable
            ],
        )
        .filter((request) => request !== undefined)
        .map((request) =>
          request.Keys.map((key) => key.sk.slice(0, 2))
            .sort()
            .join(','),
        );
    try {
      await products(token, 'filter=eq(slug,child-3)');
      // One lookup, then the page's product: never an index chunk (I#) of the release.
      expect(reads()).toEqual(['L#', 'P#']);
      send.mockClear();
      await products(token, 'filter=eq(slug,child-3)');
      expect(reads()).toEqual([]);
    } finally {
      send.mockRestore();
    }
  });

  it('include adds included, as on the child list', async () => {
    const withFiles = await createTestStore({ name: 'Files' });
    const image = {
      id: id(31),
      file_name: 'shirt.png',
      mime_type: 'image/png',
      file_size: 1234,
      link: { href: 'https://img.example.com/shirt.png' },
    };
    await publishRelease(withFiles.store.id, {
      catalog: { name: 'Files' },
      files: [image],
      products: [
        {
          id: id(1),
          attributes: { name: 'Shirt', sku: 'S', slug: 'shirt', status: 'live', commodity_type: 'physical' },
          main_image: id(31),
        },
      ],
    });
    const shopper = await tokenFor(withFiles, 'implicit');
    const one = await product(shopper, id(1), 'include=main_image');
    expect(one.body.included).toEqual({
      main_images: [expect.objectContaining({ type: 'file', id: id(31) })],
    });
    const listed = await products(shopper, 'filter=eq(slug,shirt)&include=main_image');
    expect(listed.body.included).toEqual(one.body.included);
    expect(listed.body.links.self).toBe(
      '/catalog/products?filter=eq(slug%2Cshirt)&include=main_image&page[offset]=0&page[limit]=25',
    );
  });

  it('finds a SKU too long for a sort key (255 four-byte characters), and answers an overlong value with nothing', async () => {
    const longSku = '😀'.repeat(255);
    const shop = await createTestStore({ name: 'Long SKUs' });
    await publishRelease(shop.store.id, {
      catalog: { name: 'Long' },
      products: [
        { id: id(1), attributes: { name: 'Long', sku: longSku, status: 'live', commodity_type: 'physical' } },
        { id: id(2), attributes: { name: 'Short', sku: 'S', status: 'live', commodity_type: 'physical' } },
      ],
    });
    const shopper = await tokenFor(shop, 'implicit');
    const found = await products(shopper, `filter=${encodeURIComponent(`eq(sku,"${longSku}")`)}`);
    expect(found.status).toBe(200);
    expect(ids(found)).toEqual([id(1)]);
    const overlong = await products(shopper, `filter=${encodeURIComponent(`eq(slug,${'x'.repeat(4000)})`)}`);
    expect(overlong.status).toBe(200);
    expect(ids(overlong)).toEqual([]);
  });

  it('answers a slug shared by more products than one lookup item holds from the release-wide index', async () => {
    // 100 products with the same 255-character name and no slug: the same derived slug, ~3 KB of entry each.
    const name = 'n'.repeat(255);
    const tags = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(250, 't'));
    const shop = await createTestStore({ name: 'Shared slugs' });
    await publishRelease(shop.store.id, {
      catalog: { name: 'Shared' },
      products: Array.from({ length: 100 }, (_, i) => ({
        id: id(1000 + i),
        attributes: { name, sku: `SH-${i}`, tags, status: 'live', commodity_type: 'physical' },
      })),
    });
    const shopper = await tokenFor(shop, 'implicit');
    const page = await products(shopper, `filter=${encodeURIComponent(`eq(slug,${name})`)}&page[offset]=90`);
    expect(page.status).toBe(200);
    expect(page.body.meta.results.total).toBe(100);
    expect(ids(page)).toEqual(Array.from({ length: 10 }, (_, i) => id(1090 + i)));
    const narrowed = await products(shopper, `filter=${encodeURIComponent(`eq(slug,${name}):eq(sku,SH-7)`)}`);
    expect(ids(narrowed)).toEqual([id(1007)]);
  });

  it('filters a release-wide index of several chunks in steps, keeping publish order across them', async () => {
    const shop = await createTestStore({ name: 'Many products' });
    await publishRelease(shop.store.id, {
      catalog: { name: 'Many' },
      products: Array.from({ length: 250 }, (_, i) => ({
        id: id(5000 + i),
        attributes: {
          name: `P ${i}`,
          sku: `M-${i}`,
          tags: [i % 2 ? 'odd' : 'even'],
          status: 'live',
          commodity_type: 'physical',
        },
      })),
    });
    const odd = Array.from({ length: 125 }, (_, i) => id(5001 + 2 * i));
    const shopper = await tokenFor(shop, 'implicit');
    const page = await products(shopper, 'filter=eq(tags,odd)&page[offset]=100&page[limit]=100');
    expect(page.body.meta.results.total).toBe(125);
    expect(ids(page)).toEqual(odd.slice(100));
    // The same scan one chunk per step: three steps (250 products, 100 per chunk), one read each.
    clearCatalogCaches();
    const registry = await catalogRepository.getRegistry(shop.store.id);
    const layout = releaseFor(registry, { channel: 'web', tag: undefined, now: new Date() });
    const send = jest.spyOn(getDocumentClient(), 'send');
    try {
      const found = await scanIndex(layout, 250, (entry) => entry.tags.includes('odd'), 1);
      expect(found.map((entry) => entry.id)).toEqual(odd);
      expect(send.mock.calls.map(([command]) => command.constructor.name)).toEqual([
        'BatchGetCommand',
        'BatchGetCommand',
        'BatchGetCommand',
      ]);
    } finally {
      send.mockRestore();
    }
  });

  it.each([
    ['page[limit]=0', 'page[limit]'],
    ['filter=eq(colour,red)', 'filter'],
    ['include=images', 'include'],
  ])('GET /catalog/products?%s is a 400 naming the parameter', async (query, source) => {
    const response = await products(token, query);
    expect(response.status).toBe(400);
    expect(response.body.errors[0].source).toBe(source);
  });

  it('needs the channel header unless the store lets requests without one match channel-less rules', async () => {
    const shop = await createTestStore({ name: 'Channels' });
    await publishRelease(shop.store.id, {
      catalog: { name: 'Web only' },
      rules: [{ name: 'web', channels: ['web'] }],
      products: [
        { id: id(1), attributes: { name: 'A', sku: 'A', status: 'live', commodity_type: 'physical' } },
      ],
    });
    await publishRelease(shop.store.id, {
      catalog: { name: 'Everywhere' },
      rules: [{ name: 'any channel' }],
      products: [
        { id: id(2), attributes: { name: 'B', sku: 'B', status: 'live', commodity_type: 'physical' } },
      ],
    });
    const shopper = await tokenFor(shop, 'implicit');
    for (const response of [
      await catalog(shopper, {}),
      await products(shopper, '', {}),
      await product(shopper, id(2), '', {}),
      await listChildren(shopper, id(2), '', {}),
    ]) {
      expect(response.status).toBe(400);
      expect(response.body.errors[0].source).toBe('SVC-Channel');
    }
    await storeRepository.setChannelRequired(shop.store.id, false);
    // A new token: the store record rides with the (cached) token check.
    const later = await tokenFor(shop, 'implicit');
    const without = await products(later, '', {});
    expect(without.status).toBe(200);
    expect(ids(without)).toEqual([id(2)]);
    expect((await catalog(later, {})).body.data.attributes.name).toBe('Everywhere');
    expect((await product(later, id(1), '', {})).status).toBe(404);
    // With a channel, the rule naming it wins (more criteria matched).
    expect(ids(await products(later, '', WEB))).toEqual([id(1)]);
    expect((await listChildren(later, id(2), '', {})).status).toBe(422);
  });
});
