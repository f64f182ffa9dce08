import { handler as createProduct } from '../../functions/pcm-create-product/handler';
import { handler as deleteProduct } from '../../functions/pcm-delete-product/handler';
import { handler as getProduct } from '../../functions/pcm-get-product/handler';
import { handler as updateProduct } from '../../functions/pcm-update-product/handler';
import { getRecord } from '../../lib/store/items';
import { ProductChangedError, productKeys, productRepository } from '../../lib/store/product-repository';
import {
  bearer,
  createTestStore,
  type InvokeResult,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';

/**
 * Concurrency of `/pcm/products` on DynamoDB Local: requests started together, as many Lambda containers
 * would run them. A sku and an external_ref belong to one product whatever races; partial updates of
 * different attributes all survive; a product is never deleted while a bundle that names it is written.
 */

const JSON_HEADERS = { host: 'api.example.test', 'content-type': 'application/json' };
const SKU_TAKEN = {
  status: '409',
  title: 'Conflict',
  detail: 'data.attributes.sku: Must be unique amongst products.',
  source: 'data.attributes.sku',
  request_id: expect.any(String),
};

let store: TestStore;
let token: string;

beforeAll(async () => {
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store);
});

const create = (attributes: Record<string, unknown>) =>
  invoke(createProduct, {
    method: 'POST',
    path: '/pcm/products',
    headers: bearer(token, JSON_HEADERS),
    body: JSON.stringify({ data: { type: 'product', attributes } }),
  });

const update = (id: string, attributes: Record<string, unknown>) =>
  invoke(updateProduct, {
    method: 'PUT',
    path: `/pcm/products/${id}`,
    pathParameters: { product_id: id },
    headers: bearer(token, JSON_HEADERS),
    body: JSON.stringify({ data: { type: 'product', id, attributes } }),
  });

const get = (id: string) =>
  invoke(getProduct, {
    method: 'GET',
    path: `/pcm/products/${id}`,
    pathParameters: { product_id: id },
    headers: bearer(token, JSON_HEADERS),
  });

const remove = (id: string) =>
  invoke(deleteProduct, {
    method: 'DELETE',
    path: `/pcm/products/${id}`,
    pathParameters: { product_id: id },
    headers: bearer(token, JSON_HEADERS),
  });

let counter = 0;
const unique = (label: string) => {
  counter += 1;
  return `${label}-${Date.now().toString(36)}-${counter}`;
};

const statuses = (results: InvokeResult[]) => results.map((res) => res.status).sort();

describe('sku uniqueness under concurrency', () => {
  it('ten racing creates of one sku (in any case): exactly one 201, nine 409 with the platform error', async () => {
    const sku = unique('RACE');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        create({ name: `Racer ${n}`, sku: n % 2 === 0 ? sku : sku.toLowerCase() }),
      ),
    );
    expect(statuses(results)).toEqual([201, ...Array(9).fill(409)]);
    for (const res of results.filter((r) => r.status === 409)) expect(res.body.errors).toEqual([SKU_TAKEN]);
    const winner = results.find((res) => res.status === 201)?.body.data.id;
    expect(await productRepository.idOfSku(store.store.id, sku)).toBe(winner);
    const holders = (await productRepository.all(store.store.id)).filter(
      (product) => product.attributes.sku?.toLowerCase() === sku.toLowerCase(),
    );
    expect(holders.map((product) => product.id)).toEqual([winner]);
  });

  it('ten products racing to take one free sku: exactly one 200, nine 409, the losers keep their own sku', async () => {
    const wanted = unique('WANTED');
    const ids: string[] = [];
    for (let n = 0; n < 10; n += 1) {
      const res = await create({ name: `Taker ${n}`, sku: unique(`OWN${n}`) });
      ids.push(res.body.data.id);
    }
    const before = await Promise.all(ids.map(async (id) => (await get(id)).body.data.attributes.sku));
    const results = await Promise.all(ids.map((id) => update(id, { sku: wanted })));
    expect(statuses(results)).toEqual([200, ...Array(9).fill(409)]);
    for (const res of results.filter((r) => r.status === 409)) expect(res.body.errors).toEqual([SKU_TAKEN]);
    const winnerIndex = results.findIndex((res) => res.status === 200);
    const winner = ids[winnerIndex] as string;
    expect(await productRepository.idOfSku(store.store.id, wanted)).toBe(winner);
    // The winner's old sku is free; every loser still holds its own.
    expect(await productRepository.idOfSku(store.store.id, before[winnerIndex])).toBeUndefined();
    for (const [n, id] of ids.entries()) {
      if (id === winner) continue;
      expect((await get(id)).body.data.attributes.sku).toBe(before[n]);
      expect(await productRepository.idOfSku(store.store.id, before[n])).toBe(id);
    }
  });

  it('an update to a sku a racing create takes: exactly one of them gets it', async () => {
    for (let round = 0; round < 5; round += 1) {
      const sku = unique('DUEL');
      const id = (await create({ name: 'Updater', sku: unique('MINE') })).body.data.id;
      const [updated, created] = await Promise.all([update(id, { sku }), create({ name: 'Creator', sku })]);
      // Update won (200, the create 409) or the create did (201, the update 409): never both.
      const outcome = `${updated.status} ${created.status}`;
      expect(['200 409', '409 201']).toContain(outcome);
      const loser = updated.status === 200 ? created : updated;
      expect(loser.body.errors).toEqual([SKU_TAKEN]);
      const holder = updated.status === 200 ? id : created.body.data.id;
      expect(await productRepository.idOfSku(store.store.id, sku)).toBe(holder);
    }
  });
});

describe('external_ref uniqueness under concurrency', () => {
  it('ten racing creates of one external_ref: exactly one 201, nine 409', async () => {
    const ref = unique('erp');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, n) => create({ name: `Ref ${n}`, external_ref: ref })),
    );
    expect(statuses(results)).toEqual([201, ...Array(9).fill(409)]);
    for (const res of results.filter((r) => r.status === 409)) {
      expect(res.body.errors).toEqual([
        {
          status: '409',
          title: 'Conflict',
          detail: 'data.attributes.external_ref: Must be unique amongst products.',
          source: 'data.attributes.external_ref',
          request_id: expect.any(String),
        },
      ]);
    }
    const winner = results.find((res) => res.status === 201)?.body.data.id;
    const claim = await getRecord<{ product_id: string }>(
      'products',
      productKeys.externalRef(store.store.id, ref),
      true,
    );
    expect(claim?.product_id).toBe(winner);
  });
});

describe('concurrent partial updates', () => {
  it('keeps every attribute of eight racing updates of different attributes', async () => {
    const id = (await create({ name: 'Shared', sku: unique('SHARED') })).body.data.id;
    const changes: Record<string, unknown>[] = [
      { name: 'Renamed' },
      { description: 'Described' },
      { upc_ean: '0001' },
      { mpn: 'MPN-9' },
      { tags: ['x', 'y'] },
      { status: 'live' },
      { commodity_type: 'digital' },
      { locales: { 'de-DE': { name: 'Geteilt' } } },
    ];
    const results = await Promise.all(changes.map((attributes) => update(id, attributes)));
    expect(results.map((res) => res.status)).toEqual(Array(8).fill(200));
    const product = await productRepository.get(store.store.id, id);
    expect(product?.attributes).toMatchObject(Object.assign({}, ...changes));
    expect(product?.version).toBe(9);
  });
});

describe('deletes racing bundles', () => {
  it('never leaves a bundle naming a deleted product', async () => {
    for (let round = 0; round < 6; round += 1) {
      const part = (await create({ name: 'Contested part', sku: unique('PART') })).body.data.id;
      const [deleted, bundle] = await Promise.all([
        remove(part),
        create({
          name: 'Contested bundle',
          components: { c: { name: 'C', options: [{ id: part, type: 'product', quantity: 1 }] } },
        }),
      ]);
      // Never both: either the part is gone and no bundle names it, or the bundle holds it.
      expect(deleted.status === 204 && bundle.status === 201).toBe(false);
      expect([204, 409]).toContain(deleted.status);
      expect([201, 422]).toContain(bundle.status);
      const partNow = await productRepository.get(store.store.id, part);
      if (bundle.status === 201) expect(partNow?.deleting).toBeUndefined();
      else
        expect(bundle.body.errors[0].detail).toBe(
          `data.attributes.components: product ${part} does not exist`,
        );
      if (deleted.status === 204) expect(partNow).toBeUndefined();
    }
  });
});

describe('deletes', () => {
  it('ten racing deletes of one product: exactly one 204, the others 404', async () => {
    const id = (await create({ name: 'Deleted ten times', sku: unique('DEL') })).body.data.id;
    const results = await Promise.all(Array.from({ length: 10 }, () => remove(id)));
    expect(statuses(results)).toEqual([204, 404, 404, 404, 404, 404, 404, 404, 404, 404]);
    expect(await productRepository.get(store.store.id, id)).toBeUndefined();
  });

  it('lets only the holder of a fresh mark delete, and takes over a stale one', async () => {
    const id = (await create({ name: 'Marked', sku: unique('MARK') })).body.data.id;
    const product = await productRepository.get(store.store.id, id);
    if (!product) throw new Error('no product');
    const now = Date.now();
    const mine = `${new Date(now).toISOString()}#mine`;
    const theirs = `${new Date(now).toISOString()}#theirs`;
    const staleBefore = new Date(now - 60_000).toISOString();
    expect(await productRepository.markDeleting(store.store.id, product, mine, staleBefore)).toBe(true);
    // Again with the same mark (a retry whose first answer was lost): still held.
    expect(await productRepository.markDeleting(store.store.id, product, mine, staleBefore)).toBe(true);
    expect(await productRepository.markDeleting(store.store.id, product, theirs, staleBefore)).toBe(false);
    await expect(productRepository.delete(store.store.id, product, theirs)).rejects.toBeInstanceOf(
      ProductChangedError,
    );
    // Once the mark is older than staleBefore, another delete takes it over.
    const later = new Date(now + 61_000).toISOString();
    expect(await productRepository.markDeleting(store.store.id, product, theirs, later)).toBe(true);
    await expect(productRepository.delete(store.store.id, product, mine)).rejects.toBeInstanceOf(
      ProductChangedError,
    );
    await productRepository.delete(store.store.id, product, theirs);
    expect(await productRepository.get(store.store.id, id)).toBeUndefined();
    // The holder's transaction applied again after the product is gone (its first answer lost, the retry
    // refused by its condition): done, not "not found", since only the holder could have deleted it.
    await expect(productRepository.delete(store.store.id, product, theirs)).resolves.toBeUndefined();
  });
});
