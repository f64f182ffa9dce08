import { handler as createCurrency } from '../../functions/create-currency/handler';
import { handler as deleteCurrency } from '../../functions/delete-currency/handler';
import { handler as createHierarchy } from '../../functions/pcm-create-hierarchy/handler';
import { handler as createNode } from '../../functions/pcm-create-node/handler';
import { handler as createPricebook } from '../../functions/pcm-create-pricebook/handler';
import { handler as createProduct } from '../../functions/pcm-create-product/handler';
import { handler as deleteHierarchy } from '../../functions/pcm-delete-hierarchy/handler';
import { handler as deleteNode } from '../../functions/pcm-delete-node/handler';
import { handler as deletePricebook } from '../../functions/pcm-delete-pricebook/handler';
import { handler as deleteProduct } from '../../functions/pcm-delete-product/handler';
import { handler as listNodeProducts } from '../../functions/pcm-list-node-products/handler';
import { handler as updateHierarchy } from '../../functions/pcm-update-hierarchy/handler';
import { handler as updateNode } from '../../functions/pcm-update-node/handler';
import { handler as updatePricebook } from '../../functions/pcm-update-pricebook/handler';
import { handler as updateProduct } from '../../functions/pcm-update-product/handler';
import { handler as writeNodeProducts } from '../../functions/pcm-write-node-products/handler';
import { handler as updateCurrency } from '../../functions/update-currency/handler';
import { getDocumentClient } from '../../lib/store/client';
import {
  bearer,
  createTestStore,
  type InvokeResult,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  tokenFor,
} from '../support/fixtures';
import { currencyFields } from '../support/pcm-fixtures';

/*
 * A write that moves a unique value (a product's sku, a hierarchy's or node's slug, a book's name, a
 * currency's code) claims the new value in the transaction that writes the record, on condition that the
 * record is still as read. When the record is deleted between the read and the transaction, and another
 * record takes the value meanwhile, both conditions fail together: the answer is the record's 404, never
 * a 409 for a value of a record that no longer exists (no order of the three requests explains that 409).
 * Found by the linearizability checker; reproduced here exactly, on DynamoDB Local.
 */

type AnyHandler = Parameters<typeof invoke>[0];

let headers: Record<string, string>;

beforeAll(async () => {
  const store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  headers = bearer(await tokenFor(store), {
    host: 'api.example.test',
    'x-forwarded-proto': 'https',
    'content-type': 'application/json',
  });
});

const call = (
  handler: AnyHandler,
  method: 'POST' | 'PUT' | 'DELETE',
  path: string,
  pathParameters: Record<string, string>,
  data?: unknown,
) =>
  invoke(handler, {
    method,
    path,
    pathParameters,
    headers,
    ...(data === undefined ? {} : { body: JSON.stringify({ data }) }),
  });

const unique = (text: string) => `${text}-${Math.random().toString(36).slice(2, 10)}`;

/**
 * Runs `meanwhile` once, just before the first transaction DynamoDB is sent after this call (the
 * transactions `meanwhile` itself sends pass straight on): what another client does between a write's read
 * and its transaction.
 */
function beforeNextTransaction(meanwhile: () => Promise<void>): () => void {
  let state: 'waiting' | 'running' | 'done' = 'waiting';
  return getDocumentClient().use((next) => async (operation, body) => {
    if (operation === 'TransactWriteItems' && state === 'waiting') {
      state = 'running';
      try {
        await meanwhile();
      } finally {
        state = 'done';
      }
    }
    return next(operation, body);
  });
}

/** Whether `response` is the given status, with its errors shown when it is not. */
const outcome = (response: InvokeResult) => [
  response.status,
  response.status < 300 ? [] : response.body.errors,
];

/** A resource's create, delete and update of one unique attribute, through its handlers. */
interface Resource {
  /** Creates a record holding `value`, answering its id. */
  create: (value: string) => Promise<string>;
  remove: (id: string) => Promise<InvokeResult>;
  /** Moves the record's unique value to `value`. */
  move: (id: string, value: string) => Promise<InvokeResult>;
}

/** The id of a created record, failing with the answer when it was not created. */
function created(response: InvokeResult): string {
  expect(outcome(response)).toEqual([201, []]);
  return response.body.data.id;
}

/** A new hierarchy's id. */
async function newHierarchy(): Promise<string> {
  return created(
    await call(
      createHierarchy,
      'POST',
      '/pcm/hierarchies',
      {},
      { type: 'hierarchy', attributes: { name: 'H' } },
    ),
  );
}

/** A `/pcm` resource (`{type, attributes}` bodies) at `collection`, its id the path parameter `param`. */
function pcmResource(input: {
  collection: string;
  param: string;
  type: string;
  handlers: { create: AnyHandler; update: AnyHandler; remove: AnyHandler };
  attribute: string;
  others?: () => Record<string, unknown>;
  parameters?: Record<string, string>;
}): Resource {
  const { collection, param, type, handlers, attribute } = input;
  const byId = (id: string) => ({ ...input.parameters, [param]: id });
  return {
    create: async (value) =>
      created(
        await call(handlers.create, 'POST', collection, input.parameters ?? {}, {
          type,
          attributes: { ...input.others?.(), [attribute]: value },
        }),
      ),
    remove: (id) => call(handlers.remove, 'DELETE', `${collection}/${id}`, byId(id)),
    move: (id, value) =>
      call(handlers.update, 'PUT', `${collection}/${id}`, byId(id), {
        type,
        id,
        attributes: { [attribute]: value },
      }),
  };
}

/** Moves a record's value while another request deletes it and a third takes the value: 404. */
async function expectGoneNotTaken(resource: Resource, value: () => string): Promise<void> {
  const victim = await resource.create(value());
  const wanted = value();
  let removed: InvokeResult | undefined;
  const remove = beforeNextTransaction(async () => {
    removed = await resource.remove(victim);
    await resource.create(wanted);
  });
  try {
    const moved = await resource.move(victim, wanted);
    expect(removed?.status).toBe(204);
    expect(outcome(moved)).toEqual([404, [expect.objectContaining({ status: '404' })]]);
  } finally {
    remove();
  }
}

const products = pcmResource({
  collection: '/pcm/products',
  param: 'product_id',
  type: 'product',
  handlers: { create: createProduct, update: updateProduct, remove: deleteProduct },
  attribute: 'sku',
  others: () => ({ name: 'Tee', commodity_type: 'physical' }),
});

describe('a record deleted between its update’s read and transaction, its new value taken meanwhile', () => {
  test('a product whose sku moves answers 404, not 409', async () => {
    await expectGoneNotTaken(products, () => unique('sku'));
  });

  test('a hierarchy whose slug moves answers 404, not 409', async () => {
    const hierarchies = pcmResource({
      collection: '/pcm/hierarchies',
      param: 'hierarchy_id',
      type: 'hierarchy',
      handlers: { create: createHierarchy, update: updateHierarchy, remove: deleteHierarchy },
      attribute: 'slug',
      others: () => ({ name: 'Apparel' }),
    });
    await expectGoneNotTaken(hierarchies, () => unique('slug'));
  });

  test('a node whose slug moves answers 404, not 409', async () => {
    const hierarchy = await newHierarchy();
    const nodes = pcmResource({
      collection: `/pcm/hierarchies/${hierarchy}/nodes`,
      param: 'node_id',
      parameters: { hierarchy_id: hierarchy },
      type: 'node',
      handlers: { create: createNode, update: updateNode, remove: deleteNode },
      attribute: 'slug',
      others: () => ({ name: unique('node') }),
    });
    await expectGoneNotTaken(nodes, () => unique('slug'));
  });

  test('a price book whose name moves answers 404, not 409', async () => {
    const books = pcmResource({
      collection: '/pcm/pricebooks',
      param: 'pricebook_id',
      type: 'pricebook',
      handlers: { create: createPricebook, update: updatePricebook, remove: deletePricebook },
      attribute: 'name',
    });
    await expectGoneNotTaken(books, () => unique('book'));
  });

  test('a currency whose code moves answers 404, not 409', async () => {
    const create = (code: string) =>
      call(createCurrency, 'POST', '/v2/currencies', {}, { type: 'currency', ...currencyFields(code) });
    // The store's first currency is its default, which cannot be deleted: the racing ones come after it.
    created(await create('USD'));
    const codes = ['EUR', 'GBP'];
    const currencies: Resource = {
      create: async (code) => created(await create(code)),
      remove: (id) => call(deleteCurrency, 'DELETE', `/v2/currencies/${id}`, { currency_id: id }),
      move: (id, code) =>
        call(updateCurrency, 'PUT', `/v2/currencies/${id}`, { currency_id: id }, { type: 'currency', code }),
    };
    await expectGoneNotTaken(currencies, () => codes.shift() as string);
  });

  test('a product whose sku another request of the same change moved meanwhile answers 200: the sku is its own', async () => {
    const sku = unique('sku');
    const id = await products.create(unique('sku'));
    let first: InvokeResult | undefined;
    const remove = beforeNextTransaction(async () => {
      first = await products.move(id, sku);
    });
    try {
      const second = await products.move(id, sku);
      expect([first && outcome(first), outcome(second)]).toEqual([
        [200, []],
        [200, []],
      ]);
      expect(second.body.data.attributes.sku).toBe(sku);
    } finally {
      remove();
    }
  });
});

/** A new node with two products of the store, its products' writes, and its products list (ids). */
async function nodeWithTwoProducts() {
  const hierarchy = await newHierarchy();
  const node = created(
    await call(
      createNode,
      'POST',
      `/pcm/hierarchies/${hierarchy}/nodes`,
      { hierarchy_id: hierarchy },
      { type: 'node', attributes: { name: unique('node') } },
    ),
  );
  const ids = [await products.create(unique('sku')), await products.create(unique('sku'))] as const;
  const pathParameters = { hierarchy_id: hierarchy, node_id: node };
  const write = (method: 'POST' | 'DELETE', productIds: readonly string[]) =>
    invoke(writeNodeProducts, {
      method,
      path: `/pcm/hierarchies/${hierarchy}/nodes/${node}/relationships/products`,
      pathParameters,
      headers,
      body: JSON.stringify({ data: productIds.map((id) => ({ type: 'product', id })) }),
    });
  const listed = async () =>
    (
      await invoke(listNodeProducts, {
        method: 'GET',
        path: `/pcm/hierarchies/${hierarchy}/nodes/${node}/products`,
        pathParameters,
        headers,
      })
    ).body.data.map((product: { id: string }) => product.id);
  return { ids, write, listed };
}

describe('an attach of several products, one of them detached between its read and its transaction', () => {
  test('the attach is read again and applied whole: both products attached, as if it came after the detach', async () => {
    const { ids, write, listed } = await nodeWithTwoProducts();
    const [kept, added] = ids;
    expect((await write('POST', [kept])).status).toBe(201);
    let detached: InvokeResult | undefined;
    const remove = beforeNextTransaction(async () => {
      detached = await write('DELETE', [kept]);
    });
    try {
      const attached = await write('POST', [kept, added]);
      expect([detached?.status, attached.status]).toEqual([200, 201]);
    } finally {
      remove();
    }
    expect(await listed()).toEqual([kept, added]);
  });

  test('a detach of several products, one of them attached meanwhile, is read again and applied whole', async () => {
    const { ids, write, listed } = await nodeWithTwoProducts();
    const [first, second] = ids;
    expect((await write('POST', [first])).status).toBe(201);
    let attached: InvokeResult | undefined;
    const remove = beforeNextTransaction(async () => {
      attached = await write('POST', [second]);
    });
    try {
      const detached = await write('DELETE', [first, second]);
      expect([attached?.status, detached.status]).toEqual([201, 200]);
    } finally {
      remove();
    }
    expect(await listed()).toEqual([]);
  });
});
