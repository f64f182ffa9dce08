import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * Nodes through the official SDK, unmodified, against the local server (docs/hierarchies.md):
 * `Hierarchies.Nodes.Create` (a parent in `relationships`, `meta.sort_order`), `All`, `Get`, `Update`,
 * `GetNodeChildren`, `Delete`, and `Hierarchies.Relationships.Create`, `Delete`, `Products`, `ChangeParent`,
 * `DeleteParent` and `CreateChildrenSortOrder`.
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

type Listed = { data: { id: string }[] };
const idsOf = (list: Listed) => list.data.map((item) => item.id);
const statusOf = (error: { errors: { status: string; source?: string }[] }) => error.errors[0];

it('builds a tree, moves nodes, attaches products and deletes nodes through the SDK', async () => {
  const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  const hierarchyId = (await sdk.Hierarchies.Create({ attributes: { name: 'Apparel' } } as never)).data.id;
  const nodes = sdk.Hierarchies.Nodes;
  const relationships = sdk.Hierarchies.Relationships;

  const shirts = await nodes.Create({
    hierarchyId,
    body: { attributes: { name: 'Shirts', slug: 'shirts' }, meta: { sort_order: 2 } },
  } as never);
  expect(shirts.data).toMatchObject({
    type: 'node',
    attributes: { name: 'Shirts', slug: 'shirts', description: '', curated_products: [] },
    relationships: { parent: { data: { type: 'node', id: hierarchyId } } },
    meta: { sort_order: 2, parent_name: 'Apparel', owner: 'store' },
  });
  const shirtsId = shirts.data.id;
  const tees = await nodes.Create({
    hierarchyId,
    body: {
      attributes: { name: 'Tees' },
      relationships: { parent: { data: { type: 'node', id: shirtsId } } },
    },
  } as never);
  const teesId = tees.data.id;
  expect(tees.data.relationships.parent.data.id).toBe(shirtsId);
  const shoesId = (await nodes.Create({ hierarchyId, body: { attributes: { name: 'Shoes' } } } as never)).data
    .id;

  const clash = await nodes
    .Create({ hierarchyId, body: { attributes: { name: 'SHIRTS' } } } as never)
    .catch(statusOf);
  expect(clash).toMatchObject({ status: '409', source: 'data.attributes.name' });

  expect(idsOf(await nodes.All({ hierarchyId }))).toEqual([shirtsId, teesId, shoesId]);
  expect(idsOf(await nodes.GetNodeChildren({ hierarchyId, nodeId: shirtsId }))).toEqual([teesId]);
  // The SDK keeps Limit and Offset for the endpoint's later calls: set back to the first page after.
  expect(idsOf(await nodes.Limit(1).Offset(1).All({ hierarchyId }))).toEqual([teesId]);
  nodes.Limit(25).Offset(0);
  const renamed = await nodes.Update({
    hierarchyId,
    nodeId: teesId,
    body: { id: teesId, attributes: { name: 'T-shirts' } },
  } as never);
  expect(renamed.data.attributes.name).toBe('T-shirts');
  expect((await nodes.Get({ hierarchyId, nodeId: teesId })).data.attributes.name).toBe('T-shirts');

  // Moves: Tees under Shoes, then back to the top level, then Shoes' child again with a sort order.
  await relationships.ChangeParent({
    hierarchyId,
    nodeId: teesId,
    body: { type: 'node', id: shoesId },
  } as never);
  expect((await nodes.Get({ hierarchyId, nodeId: teesId })).data.relationships.parent.data.id).toBe(shoesId);
  const cycle = await relationships
    .ChangeParent({ hierarchyId, nodeId: shoesId, body: { type: 'node', id: teesId } } as never)
    .catch(statusOf);
  expect(cycle).toMatchObject({ status: '422' });
  await relationships.DeleteParent({ hierarchyId, nodeId: teesId } as never);
  expect((await nodes.Get({ hierarchyId, nodeId: teesId })).data.relationships.parent.data.id).toBe(
    hierarchyId,
  );
  const parent: { data: { id: string } } = (await relationships.CreateChildrenSortOrder({
    hierarchyId,
    nodeId: shoesId,
    body: [{ type: 'node', id: teesId, meta: { sort_order: 5 } }],
  } as never)) as never;
  expect(parent.data.id).toBe(shoesId);
  const sorted: { data: { meta: { sort_order: number } } } = (await nodes.Get({
    hierarchyId,
    nodeId: teesId,
  })) as never;
  expect(sorted.data.meta.sort_order).toBe(5);

  // Products: attach two, curate one, list them curated first, detach one.
  const product = (sku: string) =>
    sdk.PCM.Create({ type: 'product', attributes: { name: sku, sku, commodity_type: 'physical' } } as never);
  const first = (await product('e2e-node-1')).data.id;
  const second = (await product('e2e-node-2')).data.id;
  const attached = await relationships.Create({
    hierarchyId,
    nodeId: teesId,
    body: [
      { type: 'product', id: first },
      { type: 'product', id: second },
    ],
  } as never);
  expect(attached.data.id).toBe(teesId);
  await nodes.Update({
    hierarchyId,
    nodeId: teesId,
    body: { id: teesId, attributes: { curated_products: [second] } },
  } as never);
  expect(idsOf(await relationships.Products({ hierarchyId, nodeId: teesId } as never))).toEqual([
    second,
    first,
  ]);
  const detached: { data: { attributes: { curated_products: string[] } } } = (await relationships.Delete({
    hierarchyId,
    nodeId: teesId,
    body: [{ type: 'product', id: second }],
  } as never)) as never;
  expect(detached.data.attributes.curated_products).toEqual([]);
  expect(idsOf(await relationships.Products({ hierarchyId, nodeId: teesId } as never))).toEqual([first]);

  // Deleting Shoes deletes Tees too; the product stays.
  await nodes.Delete({ hierarchyId, nodeId: shoesId });
  const gone = await nodes.Get({ hierarchyId, nodeId: teesId }).catch(statusOf);
  expect(gone).toMatchObject({ status: '404' });
  const kept: { data: { id: string } } = (await sdk.PCM.Get(first)) as never;
  expect(kept.data.id).toBe(first);
});
