import { handler as createHierarchy } from '../../functions/pcm-create-hierarchy/handler';
import { handler as createNode } from '../../functions/pcm-create-node/handler';
import { handler as createChildren } from '../../functions/pcm-create-node-children/handler';
import { handler as createProduct } from '../../functions/pcm-create-product/handler';
import { handler as deleteHierarchy } from '../../functions/pcm-delete-hierarchy/handler';
import { handler as deleteNode } from '../../functions/pcm-delete-node/handler';
import { handler as deleteParent } from '../../functions/pcm-delete-node-parent/handler';
import { handler as deleteProduct } from '../../functions/pcm-delete-product/handler';
import { handler as getHierarchy } from '../../functions/pcm-get-hierarchy/handler';
import { handler as getNode } from '../../functions/pcm-get-node/handler';
import { handler as listHierarchies } from '../../functions/pcm-list-hierarchies/handler';
import { handler as hierarchyChildren } from '../../functions/pcm-list-hierarchy-children/handler';
import { handler as nodeChildren } from '../../functions/pcm-list-node-children/handler';
import { handler as nodeProducts } from '../../functions/pcm-list-node-products/handler';
import { handler as listNodes } from '../../functions/pcm-list-nodes/handler';
import { handler as productNodes } from '../../functions/pcm-list-product-nodes/handler';
import { handler as updateNode } from '../../functions/pcm-update-node/handler';
import { handler as writeParent } from '../../functions/pcm-write-node-parent/handler';
import { handler as writeProducts } from '../../functions/pcm-write-node-products/handler';
import { uuidv7After } from '../../lib/ids';
import { hierarchyRepository } from '../../lib/store/hierarchy-repository';
import { nodeRepository } from '../../lib/store/node-repository';
import {
  bearer,
  createTestStore,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';
import { recordOperationOrder } from '../support/operation-order';

/** `/pcm/hierarchies/{id}/nodes…` and `/pcm/products/{id}/nodes` through the handlers on DynamoDB Local. */

const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };
const DATE = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const UUID = expect.stringMatching(/^[0-9a-f-]{36}$/);

let store: TestStore;
let token: string;

beforeAll(async () => {
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store);
});

type AnyHandler = Parameters<typeof invoke>[0];
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** The path parameters of a path of these routes. */
function parametersOf(path: string): Record<string, string> {
  const parts = (path.split('?')[0] ?? '').split('/');
  if (parts[2] === 'products') return { product_id: parts[3] as string };
  return {
    hierarchy_id: parts[3] as string,
    ...(parts[4] === 'nodes' && parts[5] !== undefined ? { node_id: parts[5] } : {}),
  };
}

const call = (handler: AnyHandler, method: Method, path: string, body?: unknown, as = token) =>
  invoke(handler, {
    method,
    path,
    pathParameters: parametersOf(path),
    headers: bearer(as, {
      ...HEADERS,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    }),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const unique = (text: string) => `${text}-${Math.random().toString(36).slice(2, 10)}`;

async function newHierarchy(name = 'Apparel'): Promise<string> {
  const response = await call(createHierarchy, 'POST', '/pcm/hierarchies', {
    data: { type: 'hierarchy', attributes: { name } },
  });
  expect(response.status).toBe(201);
  return response.body.data.id;
}

const nodeBody = (attributes: Record<string, unknown>, parent?: string, sortOrder?: number) => ({
  data: {
    type: 'node',
    attributes,
    ...(parent === undefined ? {} : { relationships: { parent: { data: { type: 'node', id: parent } } } }),
    ...(sortOrder === undefined ? {} : { meta: { sort_order: sortOrder } }),
  },
});
const create = (h: string, attributes: Record<string, unknown>, parent?: string, sortOrder?: number) =>
  call(createNode, 'POST', `/pcm/hierarchies/${h}/nodes`, nodeBody(attributes, parent, sortOrder));
async function newNode(h: string, name: string, parent?: string, sortOrder?: number): Promise<string> {
  const response = await create(h, { name }, parent, sortOrder);
  expect([response.status, response.body.errors]).toEqual([201, undefined]);
  return response.body.data.id;
}
async function newProduct(): Promise<string> {
  const response = await call(createProduct, 'POST', '/pcm/products', {
    data: { type: 'product', attributes: { name: 'Tee', commodity_type: 'physical', sku: unique('tee') } },
  });
  expect(response.status).toBe(201);
  return response.body.data.id;
}
const productsBody = (ids: string[]) => ({ data: ids.map((id) => ({ type: 'product', id })) });
const attach = (h: string, n: string, ids: string[]) =>
  call(writeProducts, 'POST', `/pcm/hierarchies/${h}/nodes/${n}/relationships/products`, productsBody(ids));
const detach = (h: string, n: string, ids: string[]) =>
  call(writeProducts, 'DELETE', `/pcm/hierarchies/${h}/nodes/${n}/relationships/products`, productsBody(ids));
const moveUnder = (h: string, n: string, parent: string) =>
  call(writeParent, 'PUT', `/pcm/hierarchies/${h}/nodes/${n}/relationships/parent`, {
    data: { type: 'node', id: parent },
  });
const ids = (response: { body: { data: { id: string }[] } }) => response.body.data.map((item) => item.id);
const parentOf = async (h: string, n: string) =>
  (await call(getNode, 'GET', `/pcm/hierarchies/${h}/nodes/${n}`)).body.data.relationships.parent.data.id;

describe('nodes', () => {
  it('POST creates a top-level node in the platform shape: its parent the hierarchy', async () => {
    const h = await newHierarchy('Apparel');
    const response = await create(h, { name: 'Shirts', slug: 'shirts' }, undefined, 5);
    expect(response.status).toBe(201);
    const id = response.body.data.id;
    expect(response.body).toEqual({
      data: {
        id: UUID,
        type: 'node',
        attributes: { name: 'Shirts', description: '', slug: 'shirts', curated_products: [] },
        relationships: {
          children: { links: { related: `/hierarchies/${h}/nodes/${id}/children` } },
          parent: { data: { type: 'node', id: h } },
          products: { links: { related: `/hierarchies/${h}/nodes/${id}/products` } },
        },
        meta: {
          sort_order: 5,
          created_at: DATE,
          updated_at: DATE,
          parent_name: 'Apparel',
          owner: 'store',
        },
      },
    });
    const read = await call(getNode, 'GET', `/pcm/hierarchies/${h}/nodes/${id}`);
    expect(read.body.data).toEqual(response.body.data);
  });

  it('a parent at creation, children lists in sort order, every depth in the node list', async () => {
    const h = await newHierarchy();
    const top = await newNode(h, 'Top');
    const low = await newNode(h, 'Low', top, 1);
    const high = await newNode(h, 'High', top, 9);
    const none = await newNode(h, 'None', top);
    const later = await newNode(h, 'Later', top);
    const deep = await newNode(h, 'Deep', low);
    const child = await call(getNode, 'GET', `/pcm/hierarchies/${h}/nodes/${low}`);
    expect(child.body.data.relationships.parent.data).toEqual({ type: 'node', id: top });
    expect(child.body.data.meta.parent_name).toBe('Top');
    const children = await call(nodeChildren, 'GET', `/pcm/hierarchies/${h}/nodes/${top}/children`);
    expect(ids(children)).toEqual([high, low, later, none]);
    expect(children.body.meta.results.total).toBe(4);
    expect(ids(await call(hierarchyChildren, 'GET', `/pcm/hierarchies/${h}/children`))).toEqual([top]);
    const all = await call(listNodes, 'GET', `/pcm/hierarchies/${h}/nodes?page[limit]=3`);
    expect([all.body.meta.results.total, all.body.data.length]).toEqual([6, 3]);
    const rest = await call(listNodes, 'GET', `/pcm/hierarchies/${h}/nodes?page[offset]=3`);
    expect([...ids(all), ...ids(rest)].sort()).toEqual([top, low, high, none, later, deep].sort());
  });

  it("the node lists answer the route's 404s before a bad page, and list nothing of another store's", async () => {
    const h = await newHierarchy();
    const top = await newNode(h, 'Top');
    await newNode(h, 'Child', top);
    const missing = uuidv7After(undefined);
    const lists = (hierarchy: string, node: string, query: string) => [
      call(listNodes, 'GET', `/pcm/hierarchies/${hierarchy}/nodes${query}`),
      call(hierarchyChildren, 'GET', `/pcm/hierarchies/${hierarchy}/children${query}`),
      call(nodeChildren, 'GET', `/pcm/hierarchies/${hierarchy}/nodes/${node}/children${query}`),
    ];
    const errorsOf = async (calls: ReturnType<typeof lists>) =>
      (await Promise.all(calls)).map((res) => [res.status, res.body.errors?.[0]?.detail]);
    const notFound = [404, 'hierarchy not found'];
    expect(await errorsOf(lists(missing, top, '?page[limit]=0'))).toEqual([notFound, notFound, notFound]);
    expect(await errorsOf(lists(missing, 'not-a-uuid', ''))).toEqual([notFound, notFound, notFound]);
    const [badPage, badChildrenPage, nodeMissing] = await errorsOf(lists(h, missing, '?page[limit]=0'));
    expect([badPage?.[0], badChildrenPage?.[0], nodeMissing]).toEqual([400, 400, [404, 'node not found']]);
    expect((await Promise.all(lists(h, top, '?page[limit]=0')))[2]?.status).toBe(400);
    // Another store's token names this store's hierarchy and node: 404s, their nodes never listed.
    const other = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    const theirs = await tokenFor(other);
    const foreign = [
      call(listNodes, 'GET', `/pcm/hierarchies/${h}/nodes`, undefined, theirs),
      call(hierarchyChildren, 'GET', `/pcm/hierarchies/${h}/children`, undefined, theirs),
      call(nodeChildren, 'GET', `/pcm/hierarchies/${h}/nodes/${top}/children`, undefined, theirs),
    ];
    expect(await errorsOf(foreign)).toEqual([notFound, notFound, notFound]);
  });

  it("the moves read the hierarchy's links beside the route, its 404s and the body's 400 still in order", async () => {
    const h = await newHierarchy();
    const [a, b] = [await newNode(h, 'A'), await newNode(h, 'B')];
    const missing = uuidv7After(undefined);
    const moves = (hierarchy: string, node: string, body: unknown = { data: { type: 'node', id: b } }) => [
      call(writeParent, 'PUT', `/pcm/hierarchies/${hierarchy}/nodes/${node}/relationships/parent`, body),
      call(deleteParent, 'DELETE', `/pcm/hierarchies/${hierarchy}/nodes/${node}/relationships/parent`),
      call(createChildren, 'POST', `/pcm/hierarchies/${hierarchy}/nodes/${node}/relationships/children`, {
        data: [{ type: 'node', id: b }],
      }),
    ];
    const errorsOf = async (calls: ReturnType<typeof moves>) =>
      (await Promise.all(calls)).map((res) => [res.status, res.body?.errors?.[0]?.detail]);
    const hierarchyMissing = [404, 'hierarchy not found'];
    const nodeMissing = [404, 'node not found'];
    expect(await errorsOf(moves(missing, a))).toEqual([hierarchyMissing, hierarchyMissing, hierarchyMissing]);
    expect(await errorsOf(moves(missing, 'not-a-uuid'))).toEqual([
      hierarchyMissing,
      hierarchyMissing,
      hierarchyMissing,
    ]);
    expect(await errorsOf(moves(h, missing))).toEqual([nodeMissing, nodeMissing, nodeMissing]);
    // A bad body is answered before the node's absence.
    expect((await errorsOf(moves(h, missing, { data: { type: 'node' } })))[0]?.[0]).toBe(400);

    // One round trip before the write: the links' Query is sent before the route's read answers.
    const { order, stop } = recordOperationOrder();
    try {
      expect((await moveUnder(h, a, b)).status).toBe(204);
    } finally {
      stop();
    }
    // (A token the container has not seen yet adds its own BatchGetItem before these.)
    const write = order.indexOf('TransactWriteItems sent');
    const routeAnswered = order.lastIndexOf('BatchGetItem answered', write);
    expect(order.indexOf('Query sent')).toBeLessThan(routeAnswered);
    expect(order.slice(routeAnswered, write).filter((step) => step.endsWith('sent'))).toEqual([]);
    expect(await parentOf(h, a)).toBe(b);
    // Another store's token names this store's hierarchy and node: 404s, nothing moves.
    const other = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    const theirs = await tokenFor(other);
    const foreign = await call(
      deleteParent,
      'DELETE',
      `/pcm/hierarchies/${h}/nodes/${a}/relationships/parent`,
      undefined,
      theirs,
    );
    expect([foreign.status, foreign.body.errors[0].detail]).toEqual(hierarchyMissing);
    expect(await parentOf(h, a)).toBe(b);
  });

  it("a node's delete reads the hierarchy's tree beside the route, its 404s still first", async () => {
    const h = await newHierarchy();
    const top = await newNode(h, 'Top');
    const low = await newNode(h, 'Low', top);
    const missing = uuidv7After(undefined);
    const remove = (hierarchy: string, node: string) =>
      call(deleteNode, 'DELETE', `/pcm/hierarchies/${hierarchy}/nodes/${node}`);
    const errorOf = async (hierarchy: string, node: string) => {
      const res = await remove(hierarchy, node);
      return [res.status, res.body?.errors?.[0]?.detail];
    };
    expect(await errorOf(missing, top)).toEqual([404, 'hierarchy not found']);
    expect(await errorOf(missing, 'not-a-uuid')).toEqual([404, 'hierarchy not found']);
    expect(await errorOf(h, missing)).toEqual([404, 'node not found']);
    const { order, stop } = recordOperationOrder();
    try {
      expect((await remove(h, top)).status).toBe(204);
    } finally {
      stop();
    }
    const write = order.indexOf('TransactWriteItems sent');
    const routeAnswered = order.lastIndexOf('BatchGetItem answered', write);
    expect(order.indexOf('Query sent')).toBeLessThan(routeAnswered);
    // The subtree went, leaves first.
    for (const node of [top, low]) expect(await nodeRepository.get(store.store.id, h, node)).toBeUndefined();
  });

  it('sibling names and slugs are unique without regard to case (409 naming the field); cousins may share', async () => {
    const h = await newHierarchy();
    const a = await newNode(h, 'A');
    const b = await newNode(h, 'B');
    await newNode(h, 'Tees', a);
    const again = await create(h, { name: 'TEES' }, a);
    expect([again.status, again.body.errors[0].source]).toEqual([409, 'data.attributes.name']);
    expect((await create(h, { name: 'Tees' }, b)).status).toBe(201);
    expect((await create(h, { name: 'X', slug: 'same' }, a)).status).toBe(201);
    const slug = await create(h, { name: 'Y', slug: 'SAME' }, a);
    expect([slug.status, slug.body.errors[0].source]).toEqual([409, 'data.attributes.slug']);
    // A move into a parent whose children hold the name is refused too.
    const tees = (await call(nodeChildren, 'GET', `/pcm/hierarchies/${h}/nodes/${b}/children`)).body.data[0]
      .id;
    expect((await moveUnder(h, tees, a)).status).toBe(409);
    // Ten creates racing for one name: exactly one wins.
    const racing = await Promise.all(Array.from({ length: 10 }, () => create(h, { name: 'Race' }, b)));
    expect(racing.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
  });

  it('PUT changes what is sent; data.id must be the path id; a rename frees the old name', async () => {
    const h = await newHierarchy();
    const n = await newNode(h, 'Old');
    const path = `/pcm/hierarchies/${h}/nodes/${n}`;
    const put = (body: Record<string, unknown>, id = n) =>
      call(updateNode, 'PUT', path, { data: { type: 'node', id, ...body } });
    const updated = await put({ attributes: { name: 'New', description: 'd' }, meta: { sort_order: 3 } });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({ name: 'New', description: 'd' });
    expect(updated.body.data.meta.sort_order).toBe(3);
    expect((await put({ attributes: { slug: 'new' } })).body.data.attributes.name).toBe('New');
    expect((await put({ attributes: {} }, h)).status).toBe(409);
    expect((await put({ attributes: { admin: 'x' } })).status).toBe(400);
    expect((await create(h, { name: 'Old' })).status).toBe(201);
  });

  it('moves: under another node with its subtree, never under itself or below, back to the top level', async () => {
    const h = await newHierarchy();
    const a = await newNode(h, 'A');
    const b = await newNode(h, 'B');
    const a1 = await newNode(h, 'A1', a);
    expect((await moveUnder(h, a, b)).status).toBe(204);
    expect(await parentOf(h, a)).toBe(b);
    expect(await parentOf(h, a1)).toBe(a);
    const cycle = await moveUnder(h, b, a1);
    expect([cycle.status, cycle.body.errors[0].source]).toEqual([422, 'data.id']);
    expect((await moveUnder(h, a, a)).status).toBe(422);
    const other = await newHierarchy();
    const foreign = await newNode(other, 'F');
    expect((await moveUnder(h, a, foreign)).status).toBe(422);
    expect(
      (await call(deleteParent, 'DELETE', `/pcm/hierarchies/${h}/nodes/${a}/relationships/parent`)).status,
    ).toBe(204);
    expect(await parentOf(h, a)).toBe(h);
    const children = await call(
      createChildren,
      'POST',
      `/pcm/hierarchies/${h}/nodes/${b}/relationships/children`,
      { data: [{ type: 'node', id: a, meta: { sort_order: 7 } }] },
    );
    expect([children.status, children.body.data.id]).toEqual([200, b]);
    const moved = await call(getNode, 'GET', `/pcm/hierarchies/${h}/nodes/${a}`);
    expect([moved.body.data.relationships.parent.data.id, moved.body.data.meta.sort_order]).toEqual([b, 7]);
    const selfChild = await call(
      createChildren,
      'POST',
      `/pcm/hierarchies/${h}/nodes/${a}/relationships/children`,
      {
        data: [{ type: 'node', id: b }],
      },
    );
    expect(selfChild.status).toBe(422);
  });

  it('POST children: a parent not in the hierarchy is 404, a child not in it 422 naming it, and nothing moves', async () => {
    const h = await newHierarchy();
    const [a, b, c] = [await newNode(h, 'A'), await newNode(h, 'B'), await newNode(h, 'C')];
    const other = await newNode(await newHierarchy('Other'), 'Elsewhere');
    const children = (parent: string, childIds: string[]) =>
      call(createChildren, 'POST', `/pcm/hierarchies/${h}/nodes/${parent}/relationships/children`, {
        data: childIds.map((id) => ({ type: 'node', id })),
      });
    const noParent = await children(other, [a]);
    expect([noParent.status, noParent.body.errors[0].detail]).toEqual([404, 'node not found']);
    const noChild = await children(c, [a, other, b]);
    expect([noChild.status, noChild.body.errors[0].source]).toEqual([422, 'data[1].id']);
    expect(noChild.body.errors[0].detail).toContain(`no node ${other} in this hierarchy`);
    expect([await parentOf(h, a), await parentOf(h, b)]).toEqual([h, h]);
    // Several children: each moves under the parent in turn, the parent answered as it is after them.
    const both = await children(c, [a, b]);
    expect([both.status, both.body.data.id]).toEqual([200, c]);
    expect([await parentOf(h, a), await parentOf(h, b)]).toEqual([c, c]);
  });

  it('at most 10 levels, the hierarchy the first: a create or a move past it is 422', async () => {
    const h = await newHierarchy();
    let parent: string | undefined;
    const chain: string[] = [];
    for (let level = 2; level <= 10; level += 1) {
      parent = await newNode(h, `L${level}`, parent);
      chain.push(parent);
    }
    const deeper = await create(h, { name: 'L11' }, parent);
    expect(deeper.status).toBe(422);
    const pair = await newNode(h, 'P');
    await newNode(h, 'Q', pair);
    // Under the 9th level the pair would reach level 11.
    expect((await moveUnder(h, pair, chain[7] as string)).status).toBe(422);
    expect((await moveUnder(h, pair, chain[6] as string)).status).toBe(204);
  });

  it('two moves A under B and B under A at once never both succeed', async () => {
    for (let round = 0; round < 3; round += 1) {
      const h = await newHierarchy();
      const a = await newNode(h, 'A');
      const b = await newNode(h, 'B');
      const [ab, ba] = await Promise.all([moveUnder(h, a, b), moveUnder(h, b, a)]);
      expect([ab.status, ba.status].filter((status) => status === 204)).toHaveLength(1);
      const parents = [await parentOf(h, a), await parentOf(h, b)];
      expect(parents.filter((parent) => parent === h)).toHaveLength(1);
    }
  });

  it('three moves closing a cycle at once: at most two succeed, and the tree stays a tree', async () => {
    for (let round = 0; round < 3; round += 1) {
      const h = await newHierarchy();
      const [a, b, c] = [await newNode(h, 'A'), await newNode(h, 'B'), await newNode(h, 'C')] as string[];
      const moves = await Promise.all([
        moveUnder(h, a as string, b as string),
        moveUnder(h, b as string, c as string),
        moveUnder(h, c as string, a as string),
      ]);
      expect(moves.filter((move) => move.status === 204).length).toBeLessThanOrEqual(2);
      const parents = new Map<string, string>();
      for (const id of [a, b, c] as string[]) parents.set(id, await parentOf(h, id));
      // Walking up from any node reaches the hierarchy within three steps.
      for (const id of [a, b, c] as string[]) {
        let at = id;
        for (let hop = 0; hop < 3 && at !== h; hop += 1) at = parents.get(at) as string;
        expect(at).toBe(h);
      }
    }
  });

  it('ten attaches of one product at once attach it once; a node counts it once', async () => {
    const h = await newHierarchy();
    const n = await newNode(h, 'N');
    const product = await newProduct();
    const answers = await Promise.all(Array.from({ length: 10 }, () => attach(h, n, [product])));
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201));
    const listed = await call(nodeProducts, 'GET', `/pcm/hierarchies/${h}/nodes/${n}/products`);
    expect([ids(listed), listed.body.meta.results.total]).toEqual([[product], 1]);
    expect((await detach(h, n, [product])).status).toBe(200);
    const after = await call(nodeProducts, 'GET', `/pcm/hierarchies/${h}/nodes/${n}/products`);
    expect(after.body.meta.results.total).toBe(0);
  });

  it('sixteen attaches of different products to one node at once all succeed, each listed once', async () => {
    const h = await newHierarchy();
    const n = await newNode(h, 'N');
    const products = await Promise.all(Array.from({ length: 16 }, () => newProduct()));
    const answers = await Promise.all(products.map((product) => attach(h, n, [product])));
    expect(answers.map((answer) => answer.status)).toEqual(Array(16).fill(201));
    const listed = await call(
      nodeProducts,
      'GET',
      `/pcm/hierarchies/${h}/nodes/${n}/products?page[limit]=100`,
    );
    expect([[...ids(listed)].sort(), listed.body.meta.results.total]).toEqual([[...products].sort(), 16]);
  });

  it('products list in the order their attaches committed: an attach that lost the race takes seqs after', async () => {
    const h = await newHierarchy();
    const n = await newNode(h, 'N');
    const [early, late] = [await newProduct(), await newProduct()];
    // `early` takes its seq first, then `late` commits before it.
    const asRead = (await nodeRepository.get(store.store.id, h, n)) as NonNullable<
      Awaited<ReturnType<typeof nodeRepository.get>>
    >;
    const seq = uuidv7After(asRead.attach_seq);
    expect((await attach(h, n, [late])).status).toBe(201);
    const refused = nodeRepository.attach(store.store.id, asRead, [early], [seq]);
    await expect(refused).rejects.toMatchObject({ name: 'NodeWriteRefusedError', reasons: ['changed'] });
    const path = `/pcm/hierarchies/${h}/nodes/${n}/products`;
    expect(ids(await call(nodeProducts, 'GET', path))).toEqual([late]);
    // Through the API the attach reads again and lands after `late`.
    expect((await attach(h, n, [early])).status).toBe(201);
    expect(ids(await call(nodeProducts, 'GET', path))).toEqual([late, early]);
  });

  it('attaches products (201), detaches them (200), lists them curated first, and products list their nodes', async () => {
    const h = await newHierarchy();
    const n = await newNode(h, 'Shirts');
    const [p1, p2, p3] = [await newProduct(), await newProduct(), await newProduct()];
    const attached = await attach(h, n, [p1 as string, p2 as string, p3 as string]);
    expect([attached.status, attached.body.data.id]).toEqual([201, n]);
    const unknown = '00000000-0000-7000-8000-000000000000';
    const refused = await attach(h, n, [p1 as string, unknown]);
    expect([refused.status, refused.body.errors[0].detail]).toEqual([422, expect.stringContaining(unknown)]);
    expect((await attach(h, h, [p1 as string])).status).toBe(422);
    const path = `/pcm/hierarchies/${h}/nodes/${n}`;
    const curate = (curated: string[]) =>
      call(updateNode, 'PUT', path, {
        data: { type: 'node', id: n, attributes: { curated_products: curated } },
      });
    const other = await newProduct();
    expect((await curate([other])).status).toBe(422);
    expect((await curate([p3 as string, p2 as string])).body.data.attributes.curated_products).toEqual([
      p3,
      p2,
    ]);
    const listed = await call(nodeProducts, 'GET', `${path}/products`);
    expect([ids(listed), listed.body.meta.results.total]).toEqual([[p3, p2, p1], 3]);
    expect(ids(await call(nodeProducts, 'GET', `${path}/products?page[offset]=2`))).toEqual([p1]);
    const nodes = await call(productNodes, 'GET', `/pcm/products/${p1}/nodes`);
    expect([ids(nodes), nodes.body.data[0].meta.parent_name]).toEqual([[n], 'Apparel']);
    const detached = await detach(h, n, [p3 as string]);
    expect([detached.status, detached.body.data.attributes.curated_products]).toEqual([200, [p2]]);
    // Deleting a product detaches it and drops it from curated lists.
    expect((await call(deleteProduct, 'DELETE', `/pcm/products/${p2}`)).status).toBe(204);
    const after = await call(getNode, 'GET', path);
    expect(after.body.data.attributes.curated_products).toEqual([]);
    expect(ids(await call(nodeProducts, 'GET', `${path}/products`))).toEqual([p1]);
  });

  it("a product's nodes: the product (its 404) and the page are read in one round trip", async () => {
    const h = await newHierarchy();
    const n = await newNode(h, 'Shelf');
    const product = await newProduct();
    expect((await attach(h, n, [product])).status).toBe(201);
    const { order, stop } = recordOperationOrder();
    let listed: Awaited<ReturnType<typeof call>>;
    try {
      listed = await call(productNodes, 'GET', `/pcm/products/${product}/nodes`);
    } finally {
      stop();
    }
    expect(ids(listed)).toEqual([n]);
    // (A token the container has not seen yet adds its own BatchGetItem before these.)
    const productRead = order.indexOf('GetItem sent');
    expect(order.indexOf('Query sent', productRead)).toBeLessThan(
      order.indexOf('GetItem answered', productRead),
    );
    const missing = await call(
      productNodes,
      'GET',
      '/pcm/products/00000000-0000-7000-8000-000000000000/nodes',
    );
    expect([missing.status, missing.body.errors[0].title]).toEqual([404, 'Not Found']);
  });

  it('DELETE removes the node, its descendants and their attachments; products stay', async () => {
    const h = await newHierarchy();
    const keep = await newNode(h, 'Keep');
    const top = await newNode(h, 'Top');
    const mid = await newNode(h, 'Mid', top);
    const low = await newNode(h, 'Low', mid);
    const product = await newProduct();
    expect((await attach(h, low, [product])).status).toBe(201);
    expect((await call(deleteNode, 'DELETE', `/pcm/hierarchies/${h}/nodes/${top}`)).status).toBe(204);
    expect((await call(getNode, 'GET', `/pcm/hierarchies/${h}/nodes/${mid}`)).status).toBe(404);
    expect(ids(await call(listNodes, 'GET', `/pcm/hierarchies/${h}/nodes`))).toEqual([keep]);
    expect((await call(productNodes, 'GET', `/pcm/products/${product}/nodes`)).body.data).toEqual([]);
  });

  it('a node read without products and attached one before its delete: the delete reads again, detaches it, and the node goes', async () => {
    const h = await newHierarchy();
    const late = await newNode(h, 'Late');
    const product = await newProduct();
    const deleteLeaf = nodeRepository.deleteLeaf.bind(nodeRepository);
    let attachedBetween = false;
    const spy = jest.spyOn(nodeRepository, 'deleteLeaf').mockImplementation(async (...args) => {
      // Between the delete's read of the tree (no products on the node) and the node's delete.
      if (!attachedBetween) {
        attachedBetween = true;
        expect((await attach(h, late, [product])).status).toBe(201);
      }
      return deleteLeaf(...args);
    });
    try {
      expect((await call(deleteNode, 'DELETE', `/pcm/hierarchies/${h}/nodes/${late}`)).status).toBe(204);
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
    expect((await call(getNode, 'GET', `/pcm/hierarchies/${h}/nodes/${late}`)).status).toBe(404);
    const nodes = await call(productNodes, 'GET', `/pcm/products/${product}/nodes`);
    expect([nodes.body.data, nodes.body.meta.results.total]).toEqual([[], 0]);
  });

  it("a product's nodes in two hierarchies: each node with its parent's name, the hierarchy's for a top-level one", async () => {
    const [apparel, gear] = [await newHierarchy('Apparel'), await newHierarchy('Gear')];
    const top = await newNode(apparel, 'Shirts');
    const packs = await newNode(gear, 'Packs');
    const nested = await newNode(gear, 'Daypacks', packs);
    const product = await newProduct();
    expect((await attach(apparel, top, [product])).status).toBe(201);
    expect((await attach(gear, nested, [product])).status).toBe(201);
    const listed = await call(productNodes, 'GET', `/pcm/products/${product}/nodes`);
    const names = Object.fromEntries(
      listed.body.data.map((node: { id: string; meta: { parent_name: string } }) => [
        node.id,
        node.meta.parent_name,
      ]),
    );
    expect([listed.status, listed.body.meta.results.total, names]).toEqual([
      200,
      2,
      { [top]: 'Apparel', [nested]: 'Packs' },
    ]);
  });

  it('deleting a hierarchy deletes its nodes and attachments', async () => {
    const h = await newHierarchy();
    const a = await newNode(h, 'A');
    const b = await newNode(h, 'B', a);
    const product = await newProduct();
    await attach(h, b, [product]);
    const seen: string[] = [];
    for await (const node of nodeRepository.nodesOf(store.store.id, h)) seen.push(node.id);
    expect(seen).toEqual([a, b]);
    const attachments = [];
    for await (const item of nodeRepository.attachedProductsOf(store.store.id, h)) attachments.push(item);
    expect(attachments).toEqual([{ node_id: b, product_id: product }]);
    expect((await call(deleteHierarchy, 'DELETE', `/pcm/hierarchies/${h}`)).status).toBe(204);
    expect((await call(getHierarchy, 'GET', `/pcm/hierarchies/${h}`)).status).toBe(404);
    const left = [];
    for await (const node of nodeRepository.nodesOf(store.store.id, h)) left.push(node);
    expect(left).toEqual([]);
    expect((await call(productNodes, 'GET', `/pcm/products/${product}/nodes`)).body.data).toEqual([]);
  });

  it('a hierarchy delete cut short (marked, nodes left) reads as gone, and the next DELETE finishes it', async () => {
    const h = await newHierarchy('Cut short');
    const a = await newNode(h, 'A');
    await newNode(h, 'B', a);
    const product = await newProduct();
    await attach(h, a, [product]);
    // What a delete leaves when it stops right after its mark: the hierarchy marked, every node still there.
    const before = await hierarchyRepository.get(store.store.id, h);
    if (!before) throw new Error('no hierarchy');
    await hierarchyRepository.replace(store.store.id, before, {
      ...before,
      deleting: true,
      version: before.version + 1,
    });
    expect((await call(getHierarchy, 'GET', `/pcm/hierarchies/${h}`)).status).toBe(404);
    expect((await call(listNodes, 'GET', `/pcm/hierarchies/${h}/nodes`)).status).toBe(404);
    expect((await create(h, { name: 'Late' })).status).toBe(404);
    const listed = await call(listHierarchies, 'GET', '/pcm/hierarchies?page[limit]=100');
    expect(ids(listed)).not.toContain(h);
    expect((await call(deleteHierarchy, 'DELETE', `/pcm/hierarchies/${h}`)).status).toBe(204);
    expect(await hierarchyRepository.get(store.store.id, h)).toBeUndefined();
    const left = [];
    for await (const node of nodeRepository.nodesOf(store.store.id, h)) left.push(node);
    expect(left).toEqual([]);
    expect((await call(productNodes, 'GET', `/pcm/products/${product}/nodes`)).body.data).toEqual([]);
  });

  it('unknown ids are 404, bad bodies 400', async () => {
    const h = await newHierarchy();
    const missing = '00000000-0000-7000-8000-000000000001';
    expect((await call(getNode, 'GET', `/pcm/hierarchies/${h}/nodes/${missing}`)).status).toBe(404);
    expect((await call(getNode, 'GET', `/pcm/hierarchies/${missing}/nodes/${missing}`)).status).toBe(404);
    expect((await call(listNodes, 'GET', `/pcm/hierarchies/nope/nodes`)).status).toBe(404);
    expect((await create(h, { name: '' })).status).toBe(400);
    expect((await create(h, { name: 'x', extra: 1 })).status).toBe(400);
    expect((await create(h, { name: 'x' }, missing)).status).toBe(422);
  });
});
