import { gateway } from '@elasticpath/js-sdk';
import { childrenRelease, id, LEAF_NODE, PARENT, ROOT_NODE } from '../support/catalog-fixtures';
import { createTestStore, type TestStore } from '../support/fixtures';
import { type LocalApi, memoryStorage, sdkClient, startLocalApi } from '../support/local-api';
import { publishRelease } from '../support/one-process-publisher';

/** Nodes and hierarchies over HTTP, through the official SDK unmodified (implicit and client_credentials). */

let api: LocalApi;
let store: TestStore;
const [SECOND_ROOT, BRANCH] = [id(902), id(903)];

beforeAll(async () => {
  // The SDK logs "Token status" to console.info each time it authenticates.
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
  api = await startLocalApi();
  store = await createTestStore();
  const release = {
    ...childrenRelease(),
    nodes: [
      { id: ROOT_NODE, name: 'Root', parent_id: null, updated_at: '2024-05-01T00:00:00Z' },
      { id: LEAF_NODE, name: 'Leaf', parent_id: ROOT_NODE, updated_at: '2024-01-01T00:00:00Z' },
      { id: SECOND_ROOT, name: 'Second', parent_id: null, updated_at: '2024-03-01T00:00:00Z' },
      { id: BRANCH, name: 'Branch', parent_id: ROOT_NODE, updated_at: '2024-02-01T00:00:00Z' },
    ],
  };
  await publishRelease(store.store.id, release);
});
afterAll(async () => {
  await api.close();
  jest.restoreAllMocks();
});

const storefront = () => sdkClient(api, { clientId: store.clientId });
const admin = () => sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
const WEB = { 'EP-Channel': 'web' };

type Page = { data: { id: string; type: string }[]; meta: { results: { total: number } } };
const ids = (page: unknown) => (page as Page).data.map((entry) => entry.id);

describe('ShopperCatalog.Nodes', () => {
  it('All lists every node; Filter in(id,...) returns them oldest update first (breadcrumbs)', async () => {
    expect(ids(await storefront().ShopperCatalog.Nodes.All({ additionalHeaders: WEB }))).toEqual([
      ROOT_NODE,
      LEAF_NODE,
      SECOND_ROOT,
      BRANCH,
    ]);
    const crumbs = await storefront()
      .ShopperCatalog.Nodes.Filter({ in: { id: [ROOT_NODE, BRANCH, LEAF_NODE] } } as never)
      .All({ additionalHeaders: WEB });
    expect(ids(crumbs)).toEqual([LEAF_NODE, BRANCH, ROOT_NODE]);
    const paged = await admin().ShopperCatalog.Nodes.Limit(2).Offset(2).All({ additionalHeaders: WEB });
    expect(ids(paged)).toEqual([SECOND_ROOT, BRANCH]);
    expect((paged as unknown as Page).meta.results.total).toBe(4);
  });

  it('Get, GetNodeChildren and GetNodeProducts', async () => {
    const node = await storefront().ShopperCatalog.Nodes.Get({ nodeId: LEAF_NODE, additionalHeaders: WEB });
    expect(node.data.id).toBe(LEAF_NODE);
    expect(node.data.type).toBe('node');
    expect(node.data.relationships.parent.data.id).toBe(ROOT_NODE);
    const children = await storefront().ShopperCatalog.Nodes.GetNodeChildren({
      nodeId: ROOT_NODE,
      additionalHeaders: WEB,
    });
    expect(ids(children)).toEqual([LEAF_NODE, BRANCH]);
    const products = await storefront().ShopperCatalog.Nodes.GetNodeProducts({
      nodeId: LEAF_NODE,
      additionalHeaders: WEB,
    });
    expect(ids(products)).toEqual([PARENT]);
    expect((products as unknown as Page).data[0]?.type).toBe('product');
    const byProducts = await storefront().ShopperCatalog.Products.GetProductsByNode({
      nodeId: LEAF_NODE,
      additionalHeaders: WEB,
    });
    expect(ids(byProducts)).toEqual([PARENT]);
  });

  it('rejects with the JSON error body for an unknown node', async () => {
    await expect(
      storefront().ShopperCatalog.Nodes.Get({ nodeId: id(999), additionalHeaders: WEB }),
    ).rejects.toEqual({
      errors: [expect.objectContaining({ status: '404', detail: 'node not found in the catalog' })],
    });
  });
});

describe('ShopperCatalog.Hierarchies', () => {
  it('All, Get, GetHierarchyChildren and GetHierarchyNodes', async () => {
    const all = await storefront().ShopperCatalog.Hierarchies.All({ additionalHeaders: WEB });
    expect(ids(all)).toEqual([ROOT_NODE, SECOND_ROOT]);
    expect((all as unknown as Page).data.map((entry) => entry.type)).toEqual(['hierarchy', 'hierarchy']);
    // The SDK's Hierarchies.Get passes `additionalHeaders` where its request takes a version, so the
    // channel goes in the client's `headers` option instead (sent on every request).
    const withChannel = gateway({
      client_id: store.clientId,
      host: api.host,
      protocol: 'http',
      storage: memoryStorage(),
      headers: WEB,
    } as never);
    const one = await withChannel.ShopperCatalog.Hierarchies.Get({ hierarchyId: SECOND_ROOT });
    expect(one.data.attributes.name).toBe('Second');
    const children = await storefront().ShopperCatalog.Hierarchies.GetHierarchyChildren({
      hierarchyId: ROOT_NODE,
      additionalHeaders: WEB,
    });
    expect(ids(children)).toEqual([LEAF_NODE, BRANCH]);
    const nodes = await admin().ShopperCatalog.Hierarchies.GetHierarchyNodes({
      hierarchyId: ROOT_NODE,
      additionalHeaders: WEB,
    });
    expect(ids(nodes)).toEqual([LEAF_NODE, BRANCH]);
    await expect(withChannel.ShopperCatalog.Hierarchies.Get({ hierarchyId: LEAF_NODE })).rejects.toEqual({
      errors: [expect.objectContaining({ status: '404', detail: 'hierarchy not found in the catalog' })],
    });
  });

  it("Products.GetProductsByHierarchy lists the live products of the hierarchy's nodes", async () => {
    const products = await storefront().ShopperCatalog.Products.GetProductsByHierarchy({
      hierarchyId: ROOT_NODE,
      additionalHeaders: WEB,
    });
    // The parent sits in the leaf, below the root.
    expect(ids(products)).toEqual([PARENT]);
    expect((products as unknown as Page).meta.results.total).toBe(1);
    expect((products as unknown as Page).data[0]?.type).toBe('product');
    const byNode = await storefront().ShopperCatalog.Products.GetProductsByNode({
      nodeId: LEAF_NODE,
      additionalHeaders: WEB,
    });
    expect((products as unknown as Page).data).toEqual((byNode as unknown as Page).data);
    const empty = await admin().ShopperCatalog.Products.GetProductsByHierarchy({
      hierarchyId: SECOND_ROOT,
      additionalHeaders: WEB,
    });
    expect(ids(empty)).toEqual([]);
    await expect(
      storefront().ShopperCatalog.Products.GetProductsByHierarchy({
        hierarchyId: LEAF_NODE,
        additionalHeaders: WEB,
      }),
    ).rejects.toEqual({
      errors: [expect.objectContaining({ status: '404', detail: 'hierarchy not found in the catalog' })],
    });
  });
});

describe('curl-style requests', () => {
  it('accept percent-encoded filters and brackets', async () => {
    const token = await fetch(`${api.baseUrl}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=implicit&client_id=${store.clientId}`,
    }).then((response) => response.json() as Promise<{ access_token: string }>);
    const response = await fetch(
      `${api.baseUrl}/catalog/nodes?filter=${encodeURIComponent(`in(id,${SECOND_ROOT},${ROOT_NODE})`)}&page%5Blimit%5D=1`,
      { headers: { authorization: `Bearer ${token.access_token}`, 'svc-channel': 'web' } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as Page & { links: { next: string } };
    expect(ids(body)).toEqual([SECOND_ROOT]);
    expect(body.meta.results.total).toBe(2);
    expect(body.links.next).toBe(
      `/catalog/nodes?filter=${encodeURIComponent(`in(id,${SECOND_ROOT},${ROOT_NODE})`)}&page[offset]=1&page[limit]=1`,
    );
  });
});
