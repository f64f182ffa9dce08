import { handler as getHierarchy } from '../../functions/get-hierarchy/handler';
import { handler as getNode } from '../../functions/get-node/handler';
import { handler as listHierarchies } from '../../functions/list-hierarchies/handler';
import { handler as listHierarchyChildren } from '../../functions/list-hierarchy-children/handler';
import { handler as listHierarchyNodes } from '../../functions/list-hierarchy-nodes/handler';
import { handler as listHierarchyProducts } from '../../functions/list-hierarchy-products/handler';
import { handler as listNodeChildren } from '../../functions/list-node-children/handler';
import { handler as listNodeProducts } from '../../functions/list-node-products/handler';
import { handler as listNodes } from '../../functions/list-nodes/handler';
import { clearCatalogCaches } from '../../lib/catalog/cache';
import type { StoredNode } from '../../lib/catalog/hierarchy-items';
import { catalogCapacity, catalogRepository } from '../../lib/store/catalog-repository';
import { id, listChildren } from '../support/catalog-fixtures';
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

/** Nodes and hierarchies of a release: every route in-process, on DynamoDB Local. */

const [CLOTHING, SHIRTS, PANTS, POLOS, GIFTS] = [id(900), id(901), id(902), id(903), id(910)];
const [P1, P2, P3, C1, P4] = [id(1), id(2), id(3), id(5), id(4)];
const IMAGE = id(30);
const PUBLISH_TIMEOUT_MS = 30_000;

function release(name = 'Nodes') {
  return {
    catalog: { name },
    files: [
      {
        id: IMAGE,
        file_name: 'polo.png',
        mime_type: 'image/png',
        file_size: 1234,
        link: { href: 'https://img.example.com/polo.png' },
      },
    ],
    nodes: [
      {
        id: CLOTHING,
        name: 'Clothing',
        parent_id: null,
        slug: 'clothing',
        description: 'All clothing',
        created_at: '2024-01-01T00:00:00Z',
        updated_at: '2024-03-01T00:00:00Z',
      },
      { id: SHIRTS, name: 'Shirts', parent_id: CLOTHING, updated_at: '2024-01-05T00:00:00+00:00' },
      { id: PANTS, name: 'Pants & Shorts', parent_id: CLOTHING, updated_at: '2024-01-05T00:00:00Z' },
      { id: POLOS, name: 'Polos', parent_id: SHIRTS, updated_at: '2024-01-01T00:00:00Z' },
      { id: GIFTS, name: 'Gifts', parent_id: null },
    ],
    products: [
      {
        id: P1,
        attributes: { name: 'One', sku: 'ONE', status: 'live', commodity_type: 'digital' },
        node_ids: [POLOS, CLOTHING],
      },
      {
        id: P2,
        attributes: { name: 'Two', sku: 'TWO', status: 'draft', commodity_type: 'digital' },
        node_ids: [POLOS],
      },
      {
        id: P3,
        attributes: { name: 'Three', sku: 'THREE', status: 'live', commodity_type: 'physical' },
        node_ids: [POLOS],
        main_image: IMAGE,
      },
      {
        id: C1,
        attributes: { name: 'Three child', sku: 'THREE-1', status: 'live', base_product_id: P3 },
        node_ids: [PANTS],
      },
      { id: P4, attributes: { name: 'Four', sku: 'FOUR', status: 'live', commodity_type: 'digital' } },
    ],
  };
}

let store: TestStore;
let token: string;
let other: TestStore;
let otherToken: string;
let publishedAt: string;
let catalogId: string;

beforeAll(async () => {
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store);
  other = await createTestStore();
  otherToken = await tokenFor(other, 'implicit');
  const result = await publishRelease(store.store.id, release());
  catalogId = result.catalog_id;
  publishedAt = new Date(Number.parseInt(result.release_id.replace(/-/g, '').slice(0, 12), 16)).toISOString();
  await publishRelease(other.store.id, { catalog: { name: 'Other' }, nodes: [], products: [] });
}, PUBLISH_TIMEOUT_MS);

beforeEach(() => clearCatalogCaches());

type Handler = Parameters<typeof invoke>[0];

function get(
  handler: Handler,
  routeKey: string,
  path: string,
  pathParameters: Record<string, string> = {},
  query = '',
  options: { token?: string; headers?: Record<string, string> } = {},
): Promise<InvokeResult> {
  return invoke(handler, {
    method: 'GET',
    path: `${path}${query === '' ? '' : `?${query}`}`,
    routeKey,
    pathParameters,
    headers: bearer(options.token ?? token, options.headers ?? { 'svc-channel': 'web' }),
  });
}

const nodes = (query = '', options = {}) =>
  get(listNodes, 'GET /catalog/nodes', '/catalog/nodes', {}, query, options);
const node = (nodeId: string, options = {}) =>
  get(getNode, 'GET /catalog/nodes/{node_id}', `/catalog/nodes/${nodeId}`, { node_id: nodeId }, '', options);
const nodeChildren = (nodeId: string, query = '') =>
  get(
    listNodeChildren,
    'GET /catalog/nodes/{node_id}/relationships/children',
    `/catalog/nodes/${nodeId}/relationships/children`,
    { node_id: nodeId },
    query,
  );
const nodeProducts = (nodeId: string, query = '') =>
  get(
    listNodeProducts,
    'GET /catalog/nodes/{node_id}/relationships/products',
    `/catalog/nodes/${nodeId}/relationships/products`,
    { node_id: nodeId },
    query,
  );
const hierarchies = (query = '') =>
  get(listHierarchies, 'GET /catalog/hierarchies', '/catalog/hierarchies', {}, query);
const hierarchy = (hierarchyId: string) =>
  get(getHierarchy, 'GET /catalog/hierarchies/{hierarchy_id}', `/catalog/hierarchies/${hierarchyId}`, {
    hierarchy_id: hierarchyId,
  });
const hierarchyChildren = (hierarchyId: string, query = '') =>
  get(
    listHierarchyChildren,
    'GET /catalog/hierarchies/{hierarchy_id}/children',
    `/catalog/hierarchies/${hierarchyId}/children`,
    { hierarchy_id: hierarchyId },
    query,
  );
const hierarchyNodes = (hierarchyId: string, query = '') =>
  get(
    listHierarchyNodes,
    'GET /catalog/hierarchies/{hierarchy_id}/nodes',
    `/catalog/hierarchies/${hierarchyId}/nodes`,
    { hierarchy_id: hierarchyId },
    query,
  );
const hierarchyProducts = (hierarchyId: string, query = '', options = {}) =>
  get(
    listHierarchyProducts,
    'GET /catalog/hierarchies/{hierarchy_id}/products',
    `/catalog/hierarchies/${hierarchyId}/products`,
    { hierarchy_id: hierarchyId },
    query,
    options,
  );
const ids = (response: InvokeResult) => response.body.data.map((entry: { id: string }) => entry.id);

describe('GET /catalog/nodes', () => {
  it('lists every node, hierarchies included, in document order, in the platform node shape', async () => {
    const response = await nodes();
    expect(response.status).toBe(200);
    expect(ids(response)).toEqual([CLOTHING, SHIRTS, PANTS, POLOS, GIFTS]);
    expect(response.body.meta).toEqual({
      results: { total: 5 },
      page: { limit: 25, offset: 0, current: 1, total: 1 },
    });
    expect(response.body.data[0]).toEqual({
      id: CLOTHING,
      type: 'node',
      attributes: {
        name: 'Clothing',
        description: 'All clothing',
        slug: 'clothing',
        created_at: '2024-01-01T00:00:00.000Z',
        updated_at: '2024-03-01T00:00:00.000Z',
        published_at: publishedAt,
      },
      relationships: {
        children: { links: { related: `/catalog/nodes/${CLOTHING}/relationships/children` } },
        products: { links: { related: `/catalog/nodes/${CLOTHING}/relationships/products` } },
      },
      meta: { bread_crumb: [], has_children: true, hierarchy_id: CLOTHING, catalog_id: catalogId },
    });
    expect(response.body.data[3]).toEqual({
      id: POLOS,
      type: 'node',
      attributes: {
        name: 'Polos',
        description: '',
        slug: 'polos',
        created_at: publishedAt,
        updated_at: '2024-01-01T00:00:00.000Z',
        published_at: publishedAt,
      },
      relationships: {
        children: { links: { related: `/catalog/nodes/${POLOS}/relationships/children` } },
        products: { links: { related: `/catalog/nodes/${POLOS}/relationships/products` } },
        parent: { data: { type: 'node', id: SHIRTS }, links: { related: `/catalog/nodes/${SHIRTS}` } },
        hierarchy: {
          data: { type: 'hierarchy', id: CLOTHING },
          links: { related: `/catalog/hierarchies/${CLOTHING}` },
        },
      },
      meta: {
        bread_crumb: [CLOTHING, SHIRTS],
        has_children: false,
        hierarchy_id: CLOTHING,
        catalog_id: catalogId,
      },
    });
    expect(response.body.data[2].attributes.slug).toBe('pants-shorts');
  });

  it('paginates like the child list', async () => {
    const response = await nodes('page[limit]=2&page[offset]=1');
    expect(ids(response)).toEqual([SHIRTS, PANTS]);
    expect(response.body.meta).toEqual({
      results: { total: 5 },
      page: { limit: 2, offset: 1, current: 1, total: 3 },
    });
    expect(response.body.links).toEqual({
      self: '/catalog/nodes?page[offset]=1&page[limit]=2',
      first: '/catalog/nodes?page[offset]=0&page[limit]=2',
      last: '/catalog/nodes?page[offset]=4&page[limit]=2',
      prev: '/catalog/nodes?page[offset]=0&page[limit]=2',
      next: '/catalog/nodes?page[offset]=3&page[limit]=2',
    });
    expect(ids(await nodes('page[offset]=5'))).toEqual([]);
    expect((await nodes('page[limit]=101')).status).toBe(400);
  });

  it('returns the nodes in(id,...) names, oldest updated_at first and ties by id, whatever order they are named in', async () => {
    const filter = `in(id,${CLOTHING},${PANTS},nope,${POLOS.toUpperCase()},${id(999)},${SHIRTS})`;
    const response = await nodes(`filter=${filter}`);
    expect(response.status).toBe(200);
    // POLOS (Jan 1), SHIRTS and PANTS (both Jan 5: by id), CLOTHING (Mar 1).
    expect(ids(response)).toEqual([POLOS, SHIRTS, PANTS, CLOTHING]);
    expect(response.body.meta.results).toEqual({ total: 4 });
    const page = await nodes(`filter=${filter}&page[limit]=2&page[offset]=2`);
    expect(ids(page)).toEqual([PANTS, CLOTHING]);
    expect(page.body.links.self).toBe(
      `/catalog/nodes?filter=${encodeURIComponent(filter)}&page[offset]=2&page[limit]=2`,
    );
    expect(ids(await nodes(`filter=eq(id,${GIFTS})`))).toEqual([GIFTS]);
    // Expressions are ANDed.
    expect(ids(await nodes(`filter=in(id,${GIFTS},${SHIRTS}):eq(id,${SHIRTS})`))).toEqual([SHIRTS]);
  });

  it('answers 400 for a filter on anything but id, and 400 without a channel', async () => {
    const byName = await nodes('filter=eq(name,Shirts)');
    expect(byName.status).toBe(400);
    expect(byName.body.errors[0].detail).toContain('id');
    expect((await nodes('filter=in(id')).status).toBe(400);
    const noChannel = await nodes('', { headers: {} });
    expect(noChannel.status).toBe(400);
    expect(noChannel.body.errors[0].detail).toBe(
      'the SVC-Channel header is required (e.g. SVC-Channel: web)',
    );
  });

  it('serves implicit tokens alike, and another store sees its own catalog only', async () => {
    const implicit = await nodes('', { token: await tokenFor(store, 'implicit') });
    expect(ids(implicit)).toEqual([CLOTHING, SHIRTS, PANTS, POLOS, GIFTS]);
    const foreign = await nodes(`filter=in(id,${CLOTHING})`, { token: otherToken });
    expect(foreign.status).toBe(200);
    expect(foreign.body.data).toEqual([]);
    expect((await node(CLOTHING, { token: otherToken })).status).toBe(404);
  });
});

describe('GET /catalog/nodes/{node_id}', () => {
  it('returns one node, and 404 for unknown ids', async () => {
    const all = await nodes();
    const response = await node(SHIRTS.toUpperCase());
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: all.body.data[1] });
    const unknown = await node(id(999));
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].detail).toBe('node not found in the catalog');
    expect((await node('not-a-uuid')).status).toBe(404);
    expect((await node(P1)).status).toBe(404);
  });
});

describe('GET /catalog/nodes/{node_id}/relationships/children', () => {
  it("returns a node's direct children in document order", async () => {
    expect(ids(await nodeChildren(CLOTHING))).toEqual([SHIRTS, PANTS]);
    expect(ids(await nodeChildren(SHIRTS))).toEqual([POLOS]);
    const leaf = await nodeChildren(POLOS);
    expect(leaf.body.data).toEqual([]);
    expect(leaf.body.meta.results).toEqual({ total: 0 });
    const page = await nodeChildren(CLOTHING, 'page[limit]=1&page[offset]=1');
    expect(ids(page)).toEqual([PANTS]);
    expect(page.body.links.prev).toBe(
      `/catalog/nodes/${CLOTHING}/relationships/children?page[offset]=0&page[limit]=1`,
    );
    expect((await nodeChildren(id(999))).status).toBe(404);
    const filtered = await nodeChildren(CLOTHING, `filter=in(id,${PANTS},${POLOS},${SHIRTS})`);
    expect(ids(filtered)).toEqual([SHIRTS, PANTS]);
    expect(filtered.body.links.self).toBe(
      `/catalog/nodes/${CLOTHING}/relationships/children?filter=${encodeURIComponent(`in(id,${PANTS},${POLOS},${SHIRTS})`)}&page[offset]=0&page[limit]=25`,
    );
    expect((await nodeChildren(id(999), `filter=eq(id,${SHIRTS})`)).status).toBe(404);
    expect((await nodeChildren(CLOTHING, 'filter=eq(slug,x)')).status).toBe(400);
  });
});

describe('GET /catalog/nodes/{node_id}/relationships/products', () => {
  it('returns the live products placed in the node, rendered as the child list renders them', async () => {
    const response = await nodeProducts(POLOS);
    expect(response.status).toBe(200);
    expect(ids(response)).toEqual([P1, P3]);
    expect(response.body.meta.results).toEqual({ total: 2 });
    expect(ids(await nodeProducts(CLOTHING))).toEqual([P1]);
    expect(ids(await nodeProducts(GIFTS))).toEqual([]);
    const child = await nodeProducts(PANTS);
    const viaChildList = await listChildren(token, P3);
    expect(child.body.data).toEqual(viaChildList.body.data);
    expect((await nodeProducts(id(999))).status).toBe(404);
  });

  it('paginates and includes main images', async () => {
    const response = await nodeProducts(POLOS, 'include=main_image&page[limit]=1&page[offset]=1');
    expect(ids(response)).toEqual([P3]);
    expect(response.body.included).toEqual({
      main_images: [
        {
          type: 'file',
          id: IMAGE,
          file_name: 'polo.png',
          mime_type: 'image/png',
          file_size: 1234,
          link: { href: 'https://img.example.com/polo.png' },
          meta: {},
        },
      ],
    });
    expect(response.body.links.prev).toBe(
      `/catalog/nodes/${POLOS}/relationships/products?include=main_image&page[offset]=0&page[limit]=1`,
    );
    expect((await nodeProducts(POLOS, 'include=nothing')).status).toBe(400);
  });
});

describe('hierarchies', () => {
  it('lists the nodes without parent as hierarchies', async () => {
    const response = await hierarchies();
    expect(response.status).toBe(200);
    expect(ids(response)).toEqual([CLOTHING, GIFTS]);
    expect(response.body.data[0]).toEqual({
      id: CLOTHING,
      type: 'hierarchy',
      attributes: {
        name: 'Clothing',
        description: 'All clothing',
        slug: 'clothing',
        created_at: '2024-01-01T00:00:00.000Z',
        updated_at: '2024-03-01T00:00:00.000Z',
        published_at: publishedAt,
      },
      relationships: {
        children: { links: { related: `/catalog/hierarchies/${CLOTHING}/children` } },
        nodes: { links: { related: `/catalog/hierarchies/${CLOTHING}/nodes` } },
      },
      meta: { has_children: true, catalog_id: catalogId },
    });
    // Only hierarchies; GIFTS has no timestamps, so it was last updated at the publish.
    expect(ids(await hierarchies(`filter=in(id,${GIFTS},${SHIRTS},${CLOTHING})`))).toEqual([CLOTHING, GIFTS]);
  });

  it('gets one hierarchy, its direct children and all its nodes; 404 for a node below one', async () => {
    const one = await hierarchy(CLOTHING);
    expect(one.body.data.type).toBe('hierarchy');
    expect(one.body.data.id).toBe(CLOTHING);
    expect((await hierarchy(SHIRTS)).status).toBe(404);
    expect((await hierarchy(SHIRTS)).body.errors[0].detail).toBe('hierarchy not found in the catalog');
    const children = await hierarchyChildren(CLOTHING);
    expect(ids(children)).toEqual([SHIRTS, PANTS]);
    expect(children.body.data[0].type).toBe('node');
    expect(ids(await hierarchyNodes(CLOTHING))).toEqual([SHIRTS, PANTS, POLOS]);
    expect(ids(await hierarchyNodes(CLOTHING, 'page[limit]=1&page[offset]=2'))).toEqual([POLOS]);
    expect((await hierarchyNodes(GIFTS)).body).toMatchObject({ data: [], meta: { results: { total: 0 } } });
    expect(
      ids(await hierarchyNodes(CLOTHING, `filter=in(id,${CLOTHING},${POLOS},${GIFTS},${SHIRTS})`)),
    ).toEqual([POLOS, SHIRTS]);
    expect(ids(await hierarchyChildren(CLOTHING, `filter=in(id,${POLOS},${PANTS})`))).toEqual([PANTS]);
    expect((await hierarchyNodes(SHIRTS, `filter=in(id,${POLOS})`)).status).toBe(404);
    expect((await hierarchyChildren(SHIRTS)).status).toBe(404);
    expect((await hierarchyNodes(SHIRTS)).status).toBe(404);
  });
});

describe('GET /catalog/hierarchies/{hierarchy_id}/products', () => {
  it('returns the live products placed in any node of the hierarchy or in itself, once each, in document order', async () => {
    const response = await hierarchyProducts(CLOTHING);
    expect(response.status).toBe(200);
    // P1 sits in Polos and in Clothing itself: listed once. P2 is a draft; P4 is in no node.
    expect(ids(response)).toEqual([P1, P3, C1]);
    expect(response.body.meta.results).toEqual({ total: 3 });
    expect(response.body.links.first).toBe(
      `/catalog/hierarchies/${CLOTHING}/products?page[offset]=0&page[limit]=${store.store.page_length}`,
    );
    // Rendered as the node products route renders them.
    expect(response.body.data[1]).toEqual((await nodeProducts(POLOS)).body.data[1]);
    expect((await hierarchyProducts(GIFTS)).body).toMatchObject({
      data: [],
      meta: { results: { total: 0 } },
    });
  });

  it('paginates, includes main images, and answers 404 for a node below a hierarchy or an unknown id', async () => {
    const page = await hierarchyProducts(CLOTHING, 'include=main_image&page[limit]=1&page[offset]=1');
    expect(ids(page)).toEqual([P3]);
    expect(page.body.included.main_images.map((file: { id: string }) => file.id)).toEqual([IMAGE]);
    expect(page.body.links.next).toBe(
      `/catalog/hierarchies/${CLOTHING}/products?include=main_image&page[offset]=2&page[limit]=1`,
    );
    for (const unknown of [SHIRTS, id(999), 'not-a-uuid']) {
      const missing = await hierarchyProducts(unknown);
      expect(missing.status).toBe(404);
      expect(missing.body.errors[0].detail).toBe('hierarchy not found in the catalog');
    }
    const filtered = await hierarchyProducts(CLOTHING, 'filter=eq(sku,ONE)');
    expect(filtered.status).toBe(400);
    expect(filtered.body.errors[0]).toMatchObject({
      detail: 'filter is not supported on this route',
      source: 'filter',
    });
    // Another store's token: its own catalog, which lacks the hierarchy.
    expect((await hierarchyProducts(CLOTHING, '', { token: otherToken })).status).toBe(404);
  });

  it(
    'answers 409 for a release published before hierarchies listed their products',
    async () => {
      const old = await createTestStore();
      const oldToken = await tokenFor(old);
      const published = await publishRelease(old.store.id, release('Old'));
      const registry = await catalogRepository.getRegistry(old.store.id);
      const layout = registry?.catalogs[published.catalog_id]?.release;
      if (!layout) throw new Error('the release is not current');
      const read = await catalogRepository.readNodes(layout, { nodes: [CLOTHING], lists: [] });
      const { hierarchy_products: _dropped, ...stored } = JSON.parse(
        read.nodes.get(CLOTHING)?.json as string,
      ) as StoredNode;
      await catalogRepository.writeItems([
        catalogRepository.nodeItem(layout, CLOTHING, JSON.stringify(stored)),
      ]);
      const response = await hierarchyProducts(CLOTHING, '', { token: oldToken });
      expect(response.status).toBe(409);
      expect(response.body.errors[0].detail).toBe(
        'the selected release was published before hierarchies listed their products: publish the catalog again',
      );
    },
    PUBLISH_TIMEOUT_MS,
  );
});

describe('a hierarchy larger than one list item', () => {
  const ROOT = id(5000);
  const child = (n: number) => id(6000 + n);
  const product = (n: number) => id(8000 + n);
  let big: TestStore;
  let bigToken: string;

  beforeAll(async () => {
    big = await createTestStore();
    bigToken = await tokenFor(big);
    await publishRelease(big.store.id, {
      catalog: { name: 'Big' },
      nodes: [
        { id: ROOT, name: 'Root', parent_id: null },
        ...Array.from({ length: 1005 }, (_, n) => ({ id: child(n), name: `Node ${n}`, parent_id: ROOT })),
      ],
      // Product n in node n; the even ones in the hierarchy itself too.
      products: Array.from({ length: 1005 }, (_, n) => ({
        id: product(n),
        attributes: { name: `Product ${n}`, sku: `SKU-${n}`, status: 'live', commodity_type: 'digital' },
        node_ids: n % 2 === 0 ? [child(n), ROOT] : [child(n)],
      })),
    });
  }, PUBLISH_TIMEOUT_MS);

  it("serves a page of the hierarchy's products that spans two list items in two round trips", async () => {
    catalogCapacity.reset();
    const response = await hierarchyProducts(ROOT, 'page[offset]=995&page[limit]=10', { token: bigToken });
    expect(response.status).toBe(200);
    expect(ids(response)).toEqual(Array.from({ length: 10 }, (_, n) => product(995 + n)));
    expect(response.body.meta.results).toEqual({ total: 1005 });
    // The registry, the root with two list items, ten products: a few read units.
    expect(catalogCapacity.read).toBeLessThan(20);
  });

  it('serves a page that spans two list items, reading only what the page needs', async () => {
    catalogCapacity.reset();
    const response = await get(
      listHierarchyChildren,
      'GET /catalog/hierarchies/{hierarchy_id}/children',
      `/catalog/hierarchies/${ROOT}/children`,
      { hierarchy_id: ROOT },
      'page[offset]=995&page[limit]=10',
      { token: bigToken },
    );
    expect(response.status).toBe(200);
    expect(ids(response)).toEqual(Array.from({ length: 10 }, (_, n) => child(995 + n)));
    expect(response.body.meta.results).toEqual({ total: 1005 });
    // The registry, the root with two list items, ten nodes: a few read units, not a thousand nodes' worth.
    expect(catalogCapacity.read).toBeLessThan(20);
    const all = await get(listNodes, 'GET /catalog/nodes', '/catalog/nodes', {}, 'page[offset]=1000', {
      token: bigToken,
    });
    expect(ids(all)).toEqual(Array.from({ length: 6 }, (_, n) => child(999 + n)));
  });
});
