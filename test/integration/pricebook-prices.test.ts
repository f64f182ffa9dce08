import { handler as createPrice } from '../../functions/pcm-create-price/handler';
import { handler as createModifier } from '../../functions/pcm-create-price-modifier/handler';
import { handler as createPricebook } from '../../functions/pcm-create-pricebook/handler';
import { handler as deletePrice } from '../../functions/pcm-delete-price/handler';
import { handler as deleteModifier } from '../../functions/pcm-delete-price-modifier/handler';
import { handler as deletePricebook } from '../../functions/pcm-delete-pricebook/handler';
import { handler as getPrice } from '../../functions/pcm-get-price/handler';
import { handler as getModifier } from '../../functions/pcm-get-price-modifier/handler';
import { handler as getPricebook } from '../../functions/pcm-get-pricebook/handler';
import { handler as listAllPrices } from '../../functions/pcm-list-all-prices/handler';
import { handler as listModifiers } from '../../functions/pcm-list-price-modifiers/handler';
import { handler as listPrices } from '../../functions/pcm-list-prices/handler';
import { handler as updatePrice } from '../../functions/pcm-update-price/handler';
import { handler as updateModifier } from '../../functions/pcm-update-price-modifier/handler';
import { LAMBDA_RESPONSE_BYTES } from '../../lib/catalog/size-budget';
import { getDocumentClient } from '../../lib/store/client';
import { QueryCommand } from '../../lib/store/dynamodb';
import { priceRepository } from '../../lib/store/price-repository';
import { tableName } from '../../lib/store/schema';
import { MAX_ATTRIBUTE_KEYS, PRICE_RESPONSE_BYTES_MAX, responseBytesOf } from '../../lib/validation/price';
import { expectErrorBody as expectError } from '../support/error-body';
import { type ConflictEmulator, emulateConflicts } from '../support/faults';
import { bearer, createTestStore, invoke, SHARED_STORE_RATE_LIMIT, tokenFor } from '../support/fixtures';
import { recordOperationOrder } from '../support/operation-order';

/**
 * Prices and price modifiers of price books (docs/price-books.md) on DynamoDB Local: CRUD, filters,
 * include=prices, the rules on currencies, tiers and sales, one price per sku per book (also under
 * concurrent requests), names of modifiers unique, a book's deletion emptying it, the repository's
 * interfaces for pricing a catalog, and the worst page under Lambda's response limit.
 */

const ORIGIN = 'https://api.example.test';
const HEADERS = {
  host: 'api.example.test',
  'x-forwarded-proto': 'https',
  'content-type': 'application/json',
};
const DATE = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const USD = { USD: { amount: 1000, includes_tax: false } };

async function newClient() {
  const store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  const headers = bearer(await tokenFor(store), HEADERS);
  const body = (type: string, data: Record<string, unknown>) => JSON.stringify({ data: { type, ...data } });
  const book = async (name: string, extra: Record<string, unknown> = {}) => {
    const res = await invoke(createPricebook, {
      method: 'POST',
      path: '/pcm/pricebooks',
      headers,
      body: body('pricebook', { attributes: { name, ...extra } }),
    });
    return res.body.data.id as string;
  };
  const at = (bookId: string, kind: 'prices' | 'modifiers', id?: string, query = '') => ({
    path: `/pcm/pricebooks/${bookId}/${kind}${id === undefined ? '' : `/${id}`}${query}`,
    pathParameters: {
      pricebook_id: bookId,
      ...(id === undefined ? {} : kind === 'prices' ? { price_id: id } : { modifier_id: id }),
    },
    headers,
  });
  return {
    storeId: store.store.id,
    book,
    getBook: (id: string, query = '') =>
      invoke(getPricebook, {
        method: 'GET',
        path: `/pcm/pricebooks/${id}${query}`,
        pathParameters: { pricebook_id: id },
        headers,
      }),
    removeBook: (id: string) =>
      invoke(deletePricebook, {
        method: 'DELETE',
        path: `/pcm/pricebooks/${id}`,
        pathParameters: { pricebook_id: id },
        headers,
      }),
    create: (bookId: string, attributes: unknown) =>
      invoke(createPrice, {
        method: 'POST',
        ...at(bookId, 'prices'),
        body: body('product-price', { attributes }),
      }),
    get: (bookId: string, id: string) => invoke(getPrice, { method: 'GET', ...at(bookId, 'prices', id) }),
    update: (bookId: string, id: string, data: Record<string, unknown>) =>
      invoke(updatePrice, { method: 'PUT', ...at(bookId, 'prices', id), body: body('product-price', data) }),
    remove: (bookId: string, id: string) =>
      invoke(deletePrice, { method: 'DELETE', ...at(bookId, 'prices', id) }),
    list: (bookId: string, query = '') =>
      invoke(listPrices, { method: 'GET', ...at(bookId, 'prices', undefined, query) }),
    listAll: (query = '') =>
      invoke(listAllPrices, { method: 'GET', path: `/pcm/pricebooks/prices${query}`, headers }),
    createModifier: (bookId: string, attributes: unknown) =>
      invoke(createModifier, {
        method: 'POST',
        ...at(bookId, 'modifiers'),
        body: body('price-modifier', { attributes }),
      }),
    getModifier: (bookId: string, id: string) =>
      invoke(getModifier, { method: 'GET', ...at(bookId, 'modifiers', id) }),
    updateModifier: (bookId: string, id: string, data: Record<string, unknown>) =>
      invoke(updateModifier, {
        method: 'PUT',
        ...at(bookId, 'modifiers', id),
        body: body('price-modifier', data),
      }),
    removeModifier: (bookId: string, id: string) =>
      invoke(deleteModifier, { method: 'DELETE', ...at(bookId, 'modifiers', id) }),
    listModifiers: (bookId: string, query = '') =>
      invoke(listModifiers, { method: 'GET', ...at(bookId, 'modifiers', undefined, query) }),
  };
}

type Client = Awaited<ReturnType<typeof newClient>>;

describe('prices', () => {
  let c: Client;
  let bookId: string;
  beforeEach(async () => {
    c = await newClient();
    bookId = await c.book('Retail', { external_ref: 'erp-book' });
  });

  it('creates a price, reads it back, updates only what is sent, and deletes it (freeing its sku)', async () => {
    const attributes = {
      sku: 'TEE-1',
      currencies: {
        USD: { amount: 1999, tiers: { ten: { minimum_quantity: 10, amount: 1799 } } },
        EUR: { amount: 1899, includes_tax: true },
      },
      sales: {
        summer: {
          schedule: { valid_from: '2026-06-01T00:00:00Z', valid_to: '2026-09-01T00:00:00Z' },
          currencies: USD,
        },
      },
      external_ref: 'erp-price-1',
      admin_attributes: { cost: '900' },
      shopper_attributes: { badge: 'new' },
    };
    const created = await c.create(bookId, attributes);
    expect(created.status).toBe(201);
    const { id } = created.body.data;
    expect(created.headers.Location).toBe(`${ORIGIN}/pcm/pricebooks/${bookId}/prices/${id}`);
    expect(created.body).toEqual({
      data: {
        id,
        type: 'product-price',
        attributes: {
          ...attributes,
          currencies: {
            USD: {
              amount: 1999,
              includes_tax: false,
              tiers: { ten: { minimum_quantity: 10, amount: 1799 } },
            },
            EUR: { amount: 1899, includes_tax: true },
          },
          sales: { summer: { ...attributes.sales.summer, currencies: USD } },
          created_at: DATE,
          updated_at: DATE,
        },
        meta: { owner: 'store', pricebook_id: bookId },
      },
      links: { self: `${ORIGIN}/pcm/pricebooks/${bookId}/prices/${id}` },
    });
    expect((await c.get(bookId, id)).body).toEqual(created.body);

    expect((await c.update(bookId, id, { attributes: {} })).body).toEqual(created.body);
    const updated = await c.update(bookId, id, { id, attributes: { external_ref: 'erp-2', sku: 'tee-2' } });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({
      sku: 'tee-2',
      external_ref: 'erp-2',
      shopper_attributes: { badge: 'new' },
    });
    // The sku's claim moved: TEE-1 is free, TEE-2 (any case) is taken.
    expect((await c.create(bookId, { sku: 'TEE-1', currencies: USD })).status).toBe(201);
    expectError(await c.create(bookId, { sku: 'TEE-2', currencies: USD }), 409, /sku/, 'data.attributes.sku');

    expect((await c.remove(bookId, id)).status).toBe(204);
    expectError(await c.get(bookId, id), 404, 'price not found');
    expectError(await c.remove(bookId, id), 404, 'price not found');
    expect((await c.create(bookId, { sku: 'tee-2', currencies: USD })).status).toBe(201);
  });

  it('one price per sku per book, compared without regard to case; another book may price the same sku', async () => {
    expect((await c.create(bookId, { sku: 'Mug', currencies: USD })).status).toBe(201);
    expectError(await c.create(bookId, { sku: 'MUG', currencies: USD }), 409, /sku/, 'data.attributes.sku');
    const other = await c.book('Wholesale');
    expect((await c.create(other, { sku: 'mug', currencies: USD })).status).toBe(201);
    const second = (await c.create(bookId, { sku: 'Cup', currencies: USD })).body.data.id;
    expectError(
      await c.update(bookId, second, { attributes: { sku: 'mUG' } }),
      409,
      /sku/,
      'data.attributes.sku',
    );
    // A change of case only keeps the claim.
    expect((await c.update(bookId, second, { attributes: { sku: 'CUP' } })).body.data.attributes.sku).toBe(
      'CUP',
    );
  });

  it('lists in pages with eq(sku|external_ref) and in(sku); include=prices; across books', async () => {
    for (const n of [1, 2, 3]) {
      expect(
        (await c.create(bookId, { sku: `S-${n}`, currencies: USD, external_ref: `ref-${n}` })).status,
      ).toBe(201);
    }
    const page = await c.list(bookId, '?page[limit]=2');
    expect(page.body.data.map((p: { attributes: { sku: string } }) => p.attributes.sku)).toEqual([
      'S-1',
      'S-2',
    ]);
    expect(page.body.meta.results.total).toBe(3);
    expect(page.body.links.next).toBe(
      `${ORIGIN}/pcm/pricebooks/${bookId}/prices?page[offset]=2&page[limit]=2`,
    );
    const bySku = await c.list(bookId, '?filter=eq(sku,s-2)');
    expect(bySku.body.data.map((p: { attributes: { sku: string } }) => p.attributes.sku)).toEqual(['S-2']);
    const inSkus = await c.list(bookId, '?filter=in(sku,S-3,s-1,nope)&page[limit]=1');
    expect(inSkus.body.meta.results.total).toBe(2);
    expect(inSkus.body.data[0].attributes.sku).toBe('S-1');
    expect(inSkus.body.links.next).toContain('filter=in(sku%2CS-3%2Cs-1%2Cnope)');
    expect((await c.list(bookId, '?filter=eq(external_ref,ref-3)')).body.data[0].attributes.sku).toBe('S-3');
    expectError(await c.list(bookId, '?filter=like(sku,S*)'), 400, /like/, 'filter');
    expectError(await c.list(bookId, '?filter=eq(name,x)'), 400, /name/, 'filter');

    const withPrices = await c.getBook(bookId, '?include=prices');
    expect(withPrices.body.included.map((p: { attributes: { sku: string } }) => p.attributes.sku)).toEqual([
      'S-1',
      'S-2',
      'S-3',
    ]);
    expect(withPrices.body.meta).toEqual({ prices: { total: 3, included: 3 } });

    const other = await c.book('Other');
    await c.create(other, { sku: 'S-1', currencies: USD });
    const all = await c.listAll('?filter=eq(sku,S-1)');
    expect(all.body.meta.results.total).toBe(2);
    expect(all.body.data.map((p: { meta: { pricebook_id: string } }) => p.meta.pricebook_id)).toEqual([
      bookId,
      other,
    ]);
    expect(all.body.data[0].pricebook_external_ref).toBe('erp-book');
    expect(all.body.data[1].pricebook_external_ref).toBeUndefined();
    expect((await c.listAll('?filter=like(external_ref,ref-*)')).body.meta.results.total).toBe(3);
    expect((await c.listAll()).body.meta.results.total).toBe(4);
    expectError(await c.listAll('?filter=gt(updated_at,2020-01-01)'), 400, /gt/, 'filter');
  });

  it("pages every book's prices in order across books, empty books among them, at any offset and limit", async () => {
    const expected: string[] = [];
    const add = async (id: string, sku: string) =>
      `${id} ${(await c.create(id, { sku, currencies: USD })).body.data.id}`;
    for (const [n, size] of [3, 0, 5, 1, 2].entries()) {
      const id = await c.book(`Book ${n}`);
      for (let p = 0; p < size; p += 1) expected.push(await add(id, `B${n}-${p}`));
    }
    const seen = (res: { body: { data: { id: string; meta: { pricebook_id: string } }[] } }) =>
      res.body.data.map((price) => `${price.meta.pricebook_id} ${price.id}`);
    const everyPage = async () => {
      for (const limit of [1, 2, 3, 4, 100])
        for (let offset = 0; offset <= expected.length + 1; offset += 1) {
          const res = await c.listAll(`?page[limit]=${limit}&page[offset]=${offset}`);
          expect(res.status).toBe(200);
          expect([limit, offset, seen(res)]).toEqual([limit, offset, expected.slice(offset, offset + limit)]);
          expect(res.body.meta.results.total).toBe(expected.length);
        }
    };
    // The store's first book (the one made before each test) holds none...
    await everyPage();
    // ...then two: its share of a page is the read made beside the counts.
    expected.unshift(await add(bookId, 'FIRST-0'), await add(bookId, 'FIRST-1'));
    await everyPage();
  }, 120_000);

  it.each([
    ['a missing sku', { currencies: USD }, 'data.attributes.sku', /sku/],
    ['a missing currencies', { sku: 'A' }, 'data.attributes.currencies', /currencies/],
    [
      'a lower-case currency code',
      { sku: 'A', currencies: { usd: { amount: 1 } } },
      'data.attributes.currencies.usd',
      /3 capital/,
    ],
    [
      'a negative amount',
      { sku: 'A', currencies: { USD: { amount: -1 } } },
      'data.attributes.currencies.USD.amount',
      /integer/,
    ],
    [
      'a fractional amount',
      { sku: 'A', currencies: { USD: { amount: 1.5 } } },
      'data.attributes.currencies.USD.amount',
      /integer/,
    ],
    [
      'a tier of minimum_quantity 0',
      { sku: 'A', currencies: { USD: { amount: 1, tiers: { t: { minimum_quantity: 0, amount: 1 } } } } },
      'data.attributes.currencies.USD.tiers.t.minimum_quantity',
      /at least 1/,
    ],
    [
      'two tiers starting at one quantity',
      {
        sku: 'A',
        currencies: {
          USD: {
            amount: 1,
            tiers: { a: { minimum_quantity: 5, amount: 1 }, b: { minimum_quantity: 5, amount: 2 } },
          },
        },
      },
      'data.attributes.currencies.USD.tiers.b.minimum_quantity',
      /both start/,
    ],
    [
      'a sale ending before it starts',
      {
        sku: 'A',
        currencies: USD,
        sales: {
          s: {
            schedule: { valid_from: '2026-02-01T00:00:00Z', valid_to: '2026-01-01T00:00:00Z' },
            currencies: USD,
          },
        },
      },
      'data.attributes.sales.s.schedule.valid_to',
      /before/,
    ],
    [
      'a permanent sale beside another',
      {
        sku: 'A',
        currencies: USD,
        sales: {
          p: { currencies: USD },
          s: { schedule: { valid_from: '2026-01-01T00:00:00Z' }, currencies: USD },
        },
      },
      'data.attributes.sales.p.schedule',
      /permanent/,
    ],
    [
      'two sales with one schedule',
      {
        sku: 'A',
        currencies: USD,
        sales: {
          a: { schedule: { valid_from: '2026-01-01T00:00:00Z' }, currencies: USD },
          b: { schedule: { valid_from: '2026-01-01T00:00:00.000Z' }, currencies: USD },
        },
      },
      'data.attributes.sales.b.schedule',
      /same schedule/,
    ],
    [
      'a bad date',
      { sku: 'A', currencies: USD, sales: { s: { schedule: { valid_to: 'tomorrow' }, currencies: USD } } },
      'data.attributes.sales.s.schedule.valid_to',
      /RFC 3339/,
    ],
    [
      'too many shopper attributes',
      {
        sku: 'A',
        currencies: USD,
        shopper_attributes: Object.fromEntries(
          Array.from({ length: MAX_ATTRIBUTE_KEYS + 1 }, (_, i) => [`k${i}`, 'v']),
        ),
      },
      'data.attributes.shopper_attributes',
      /at most 100/,
    ],
    [
      'a number as attribute value',
      { sku: 'A', currencies: USD, admin_attributes: { a: 1 } },
      'data.attributes.admin_attributes.a',
      /string/,
    ],
    [
      'an unknown attribute',
      { sku: 'A', currencies: USD, tiers: {} },
      'data.attributes.tiers',
      /not allowed/,
    ],
  ])('refuses %s with 422 naming it, writing nothing', async (_what, attributes, source, detail) => {
    expectError(await c.create(bookId, attributes), 422, detail, source);
    expect((await c.list(bookId)).body.meta.results.total).toBe(0);
  });

  it('refuses a price over the size budget, on create and on the update that would make it so', async () => {
    const big = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`key-${i}`, '"'.repeat(1000)]));
    expectError(
      await c.create(bookId, { sku: 'A', currencies: USD, admin_attributes: big(30) }),
      422,
      /bytes/,
      'data.attributes',
    );
    const id = (await c.create(bookId, { sku: 'A', currencies: USD, admin_attributes: big(9) })).body.data.id;
    expectError(
      await c.update(bookId, id, { attributes: { shopper_attributes: big(12) } }),
      422,
      /bytes/,
      'data.attributes',
    );
    expect((await c.get(bookId, id)).body.data.attributes.shopper_attributes).toBeUndefined();
  });

  it("reads a book beside the page of its prices or modifiers: one round trip, the book's 404 first", async () => {
    expect((await c.create(bookId, { sku: 'SIDE-BY-SIDE', currencies: USD })).status).toBe(201);
    for (const listing of [() => c.list(bookId), () => c.listModifiers(bookId)]) {
      const { order, stop } = recordOperationOrder();
      try {
        expect((await listing()).status).toBe(200);
      } finally {
        stop();
      }
      // (A token the container has not seen yet adds its own BatchGetItem before these.)
      const bookRead = order.indexOf('GetItem sent');
      expect(order.indexOf('Query sent', bookRead)).toBeLessThan(order.indexOf('GetItem answered', bookRead));
    }
    const missing = '00000000-0000-7000-8000-000000000000';
    expectError(await c.list(missing), 404, 'price book not found');
    expectError(await c.listModifiers(missing), 404, 'price book not found');
  });

  it('answers 404 for a book of another store, an unknown book or price, and a bad id', async () => {
    const other = await newClient();
    const foreign = await other.book('Theirs');
    const theirPrice = (await other.create(foreign, { sku: 'X', currencies: USD })).body.data.id;
    expectError(await c.create(foreign, { sku: 'X', currencies: USD }), 404, 'price book not found');
    expectError(await c.get(foreign, theirPrice), 404, 'price book not found');
    expectError(await c.list(foreign), 404, 'price book not found');
    expectError(
      await c.update(foreign, theirPrice, { attributes: { sku: 'Y' } }),
      404,
      'price book not found',
    );
    expectError(await c.remove(foreign, theirPrice), 404, 'price book not found');
    const theirModifier = (
      await other.createModifier(foreign, { name: 'big', modifier_type: 'price_increment', currencies: USD })
    ).body.data.id;
    expectError(
      await c.updateModifier(foreign, theirModifier, { attributes: { name: 'huge' } }),
      404,
      'price book not found',
    );
    expectError(await c.removeModifier(foreign, theirModifier), 404, 'price book not found');
    expectError(
      await c.updateModifier(bookId, theirModifier, { attributes: { name: 'huge' } }),
      404,
      'price modifier not found',
    );
    expectError(await c.removeModifier(bookId, theirModifier), 404, 'price modifier not found');
    expectError(await c.update(bookId, theirPrice, { attributes: { sku: 'Y' } }), 404, 'price not found');
    expectError(await c.remove(bookId, theirPrice), 404, 'price not found');
    expect((await other.get(foreign, theirPrice)).body.data.attributes.sku).toBe('X');
    expect((await other.getModifier(foreign, theirModifier)).body.data.attributes.name).toBe('big');
    expectError(await c.get(bookId, theirPrice), 404, 'price not found');
    expectError(await c.get(bookId, 'nope'), 404, 'price not found');
    expect((await c.listAll()).body.meta.results.total).toBe(0);
  });

  it("deleting a book deletes its prices, modifiers and claims; the interfaces read a book's prices by sku", async () => {
    for (let n = 0; n < 130; n += 1) await c.create(bookId, { sku: `SKU-${n}`, currencies: USD });
    await c.createModifier(bookId, { name: 'large', modifier_type: 'price_increment', currencies: USD });
    const found = await priceRepository.pricesBySku(c.storeId, bookId, [
      'sku-5',
      'SKU-129',
      'absent',
      'Sku-5',
    ]);
    expect([...found.keys()].sort()).toEqual(['SKU-129', 'Sku-5', 'sku-5']);
    expect(found.get('sku-5')).toMatchObject({
      sku: 'SKU-5',
      currencies: { USD: { amount: 1000, includes_tax: false } },
    });
    expect(found.get('sku-5')).not.toHaveProperty('version');
    const modifiers = [];
    for await (const modifier of priceRepository.modifiersOf(c.storeId, bookId)) modifiers.push(modifier);
    expect(modifiers).toEqual([expect.objectContaining({ name: 'large', modifier_type: 'price_increment' })]);

    expect((await c.removeBook(bookId)).status).toBe(204);
    const left = await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName('products'),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `PRICES#${c.storeId}#${bookId}` },
      }),
    );
    expect(left.Items).toEqual([]);
    expectError(await c.list(bookId), 404, 'price book not found');
  });
});

describe('price modifiers', () => {
  it('creates, lists with eq(name|external_ref), reads, updates, deletes; names unique and exact', async () => {
    const c = await newClient();
    const bookId = await c.book('Retail');
    const created = await c.createModifier(bookId, {
      name: 'Large',
      modifier_type: 'price_increment',
      currencies: USD,
      external_ref: 'mod-1',
    });
    expect(created.status).toBe(201);
    const { id } = created.body.data;
    expect(created.body.data).toEqual({
      id,
      type: 'price-modifier',
      attributes: {
        name: 'Large',
        modifier_type: 'price_increment',
        currencies: USD,
        external_ref: 'mod-1',
        created_at: DATE,
        updated_at: DATE,
      },
      meta: { owner: 'store', pricebook_id: bookId },
    });
    expectError(
      await c.createModifier(bookId, { name: 'Large', modifier_type: 'price_equals', currencies: USD }),
      409,
      /name/,
      'data.attributes.name',
    );
    expect(
      (await c.createModifier(bookId, { name: 'large', modifier_type: 'price_equals', currencies: USD }))
        .status,
    ).toBe(201);
    expectError(
      await c.createModifier(bookId, { name: 'x', modifier_type: 'percent', currencies: USD }),
      422,
      /price_increment/,
      'data.attributes.modifier_type',
    );
    expectError(
      await c.createModifier(bookId, { name: 'x', modifier_type: 'price_equals' }),
      422,
      /currencies/,
      'data.attributes.currencies',
    );

    expect((await c.listModifiers(bookId)).body.meta.results.total).toBe(2);
    expect(
      (await c.listModifiers(bookId, '?filter=eq(name,Large)')).body.data.map((m: { id: string }) => m.id),
    ).toEqual([id]);
    expect((await c.listModifiers(bookId, '?filter=eq(external_ref,mod-1)')).body.meta.results.total).toBe(1);
    expectError(await c.listModifiers(bookId, '?filter=eq(sku,x)'), 400, /sku/, 'filter');

    expect((await c.getModifier(bookId, id)).body.data).toEqual(created.body.data);
    const renamed = await c.updateModifier(bookId, id, {
      attributes: { name: 'XL', modifier_type: 'price_decrement' },
    });
    expect(renamed.body.data.attributes).toMatchObject({
      name: 'XL',
      modifier_type: 'price_decrement',
      external_ref: 'mod-1',
    });
    expectError(
      await c.updateModifier(bookId, id, { attributes: { name: 'large' } }),
      409,
      /name/,
      'data.attributes.name',
    );
    expect(
      (await c.createModifier(bookId, { name: 'Large', modifier_type: 'price_equals', currencies: USD }))
        .status,
    ).toBe(201);
    expect((await c.removeModifier(bookId, id)).status).toBe(204);
    expectError(await c.getModifier(bookId, id), 404, 'price modifier not found');
  });
});

describe('the worst page', () => {
  it('100 prices at the size budget, listed across books with long book references, fit a Lambda response', async () => {
    const c = await newClient();
    const bookId = await c.book('Heavy', { external_ref: '"'.repeat(2048) });
    // Quotes count four times as a response counts them: the heaviest attributes per character.
    const fill = (sku: string) => {
      const attributes = { sku, currencies: USD, admin_attributes: {} as Record<string, string> };
      for (let n = 0; responseBytesOf(attributes) < PRICE_RESPONSE_BYTES_MAX - 4200; n += 1) {
        attributes.admin_attributes[`k${n}`] = '"'.repeat(1000);
      }
      return attributes;
    };
    const creates = [];
    for (let n = 0; n < 100; n += 1) creates.push(c.create(bookId, fill(`HEAVY-${n}`)));
    expect((await Promise.all(creates)).map((res) => res.status)).toEqual(Array(100).fill(201));
    for (const res of [
      await c.listAll('?page[limit]=100'),
      await c.list(bookId, '?page[limit]=100'),
      await c.getBook(bookId, '?include=prices'),
    ]) {
      expect(res.status).toBe(200);
      const counted = Buffer.byteLength(JSON.stringify(res.raw));
      expect(counted).toBeGreaterThan(0.6 * 100 * PRICE_RESPONSE_BYTES_MAX);
      expect(counted).toBeLessThan(LAMBDA_RESPONSE_BYTES);
    }
  }, 60_000);
});

describe('prices under concurrent requests', () => {
  let conflicts: ConflictEmulator;
  beforeAll(() => {
    conflicts = emulateConflicts(getDocumentClient());
  });
  afterAll(() => conflicts.remove());

  it('ten creates of one sku in mixed case: exactly one 201', async () => {
    const c = await newClient();
    const bookId = await c.book('Race');
    const skus = ['race', 'RACE', 'Race', 'rAce', 'raCe', 'racE', 'RAce', 'raCE', 'RaCe', 'rAcE'];
    const results = await Promise.all(skus.map((sku) => c.create(bookId, { sku, currencies: USD })));
    expect(results.map((res) => res.status).sort()).toEqual([
      201, 409, 409, 409, 409, 409, 409, 409, 409, 409,
    ]);
    expect((await c.list(bookId)).body.meta.results.total).toBe(1);
  });

  it('two prices moved to one sku at once: one wins; a create racing a sku change never makes two holders', async () => {
    const c = await newClient();
    const bookId = await c.book('Race');
    const a = (await c.create(bookId, { sku: 'A', currencies: USD })).body.data.id;
    const b = (await c.create(bookId, { sku: 'B', currencies: USD })).body.data.id;
    const results = await Promise.all([
      c.update(bookId, a, { attributes: { sku: 'Target' } }),
      c.update(bookId, b, { attributes: { sku: 'TARGET' } }),
      c.create(bookId, { sku: 'target', currencies: USD }),
    ]);
    const statuses = results.map((res) => res.status);
    // Exactly one of the three took the sku: an update (200) or the create (201).
    expect(statuses.filter((status) => status === 409)).toHaveLength(2);
    expect(statuses.filter((status) => status === 200 || status === 201)).toHaveLength(1);
    const holders = (await c.list(bookId, '?filter=eq(sku,target)')).body.data;
    expect(holders).toHaveLength(1);
    // The losers kept their skus and claims.
    const skus = (await c.list(bookId)).body.data.map((p: { attributes: { sku: string } }) =>
      p.attributes.sku.toLowerCase(),
    );
    expect(new Set(skus).size).toBe(skus.length);
  });

  it('ten updates of one price to one new sku at once: every one 200, the price holding it once', async () => {
    const c = await newClient();
    const bookId = await c.book('Race');
    const id = (await c.create(bookId, { sku: 'Before', currencies: USD })).body.data.id;
    // The sku the others move it to is its own once the first commits: never "taken".
    const results = await Promise.all(
      ['After', 'AFTER', 'after', 'aFTER', 'After', 'AFTER', 'after', 'After', 'AfTeR', 'after'].map((sku) =>
        c.update(bookId, id, { attributes: { sku } }),
      ),
    );
    expect(results.map((res) => res.status)).toEqual(Array(10).fill(200));
    expect(
      (await c.list(bookId, '?filter=eq(sku,after)')).body.data.map((p: { id: string }) => p.id),
    ).toEqual([id]);
    expect((await c.create(bookId, { sku: 'before', currencies: USD })).status).toBe(201);
  });

  it('ten creates of one modifier name: exactly one 201; a create racing a book deletion leaves nothing behind', async () => {
    const c = await newClient();
    const bookId = await c.book('Race');
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        c.createModifier(bookId, { name: 'Same', modifier_type: 'price_equals', currencies: USD }),
      ),
    );
    expect(results.map((res) => res.status).sort()).toEqual([
      201, 409, 409, 409, 409, 409, 409, 409, 409, 409,
    ]);

    const doomed = await c.book('Doomed');
    const raced = await Promise.all([
      ...Array.from({ length: 5 }, (_, n) => c.create(doomed, { sku: `D-${n}`, currencies: USD })),
      c.removeBook(doomed),
    ]);
    expect(raced.every((res) => [201, 204, 404].includes(res.status))).toBe(true);
    const left = await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName('products'),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `PRICES#${c.storeId}#${doomed}` },
      }),
    );
    expect(left.Items).toEqual([]);
    expect(conflicts.conflicts.transactions).toBeGreaterThan(0);
  });
});
