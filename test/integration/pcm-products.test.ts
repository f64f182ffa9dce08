import { handler as createProduct } from '../../functions/pcm-create-product/handler';
import { handler as deleteProduct } from '../../functions/pcm-delete-product/handler';
import { handler as getComponentProducts } from '../../functions/pcm-get-component-products/handler';
import { handler as getProduct } from '../../functions/pcm-get-product/handler';
import { handler as listProducts } from '../../functions/pcm-list-products/handler';
import { handler as updateProduct } from '../../functions/pcm-update-product/handler';
import { getRecord } from '../../lib/store/items';
import { productKeys, productRepository } from '../../lib/store/product-repository';
import {
  bearer,
  createTestStore,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';
import { recordOperationOrder } from '../support/operation-order';

/**
 * `/pcm/products`: the platform's product authoring API on DynamoDB Local: bodies, defaults, the response
 * shape, partial updates, filters and pages, bundles, and deletes that free the sku.
 */

const ORIGIN = 'https://api.example.test';
const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };
const JSON_HEADERS = { ...HEADERS, 'content-type': 'application/json' };

let store: TestStore;
let token: string;

beforeAll(async () => {
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store);
});

const create = (attributes: Record<string, unknown>, as = token) =>
  invoke(createProduct, {
    method: 'POST',
    path: '/pcm/products',
    headers: bearer(as, JSON_HEADERS),
    body: JSON.stringify({ data: { type: 'product', attributes } }),
  });

const get = (id: string, query = '', as = token) =>
  invoke(getProduct, {
    method: 'GET',
    path: `/pcm/products/${id}${query}`,
    pathParameters: { product_id: id },
    headers: bearer(as, HEADERS),
  });

const list = (query = '', as = token) =>
  invoke(listProducts, { method: 'GET', path: `/pcm/products${query}`, headers: bearer(as, HEADERS) });

const update = (id: string, data: Record<string, unknown>, as = token) =>
  invoke(updateProduct, {
    method: 'PUT',
    path: `/pcm/products/${id}`,
    pathParameters: { product_id: id },
    headers: bearer(as, JSON_HEADERS),
    body: JSON.stringify({ data: { type: 'product', id, ...data } }),
  });

const remove = (id: string, as = token) =>
  invoke(deleteProduct, {
    method: 'DELETE',
    path: `/pcm/products/${id}`,
    pathParameters: { product_id: id },
    headers: bearer(as, HEADERS),
  });

let counter = 0;
/** A sku no other test of the run uses. */
const sku = (label: string) => {
  counter += 1;
  return `${label}-${Date.now().toString(36)}-${counter}`;
};

async function created(attributes: Record<string, unknown>): Promise<string> {
  const res = await create(attributes);
  expect(res.status).toBe(201);
  return res.body.data.id;
}

describe('POST /pcm/products', () => {
  it('creates a draft physical product with a slug from its name, tags in lower case, and the platform shape', async () => {
    const code = sku('TEE');
    const res = await create({ name: 'Crew Neck Tée', sku: code, tags: ['Summer', 'SALE'] });
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    expect(res.headers.Location).toBe(`${ORIGIN}/pcm/products/${id}`);
    expect(res.body).toEqual({
      data: {
        id,
        type: 'product',
        attributes: {
          name: 'Crew Neck Tée',
          sku: code,
          slug: 'crew-neck-tee',
          status: 'draft',
          commodity_type: 'physical',
          tags: ['summer', 'sale'],
        },
        relationships: {
          children: { data: [], links: { self: `/products/${id}/children` } },
          component_products: {
            data: [],
            links: { self: `/products/${id}/relationships/component_products` },
          },
          files: { data: [], links: { self: `/products/${id}/relationships/files` } },
          main_image: { data: null },
          templates: { data: [], links: { self: `/products/${id}/relationships/templates` } },
          variations: { data: [], links: { self: `/products/${id}/relationships/variations` } },
        },
        meta: {
          created_at: res.body.data.meta.created_at,
          updated_at: res.body.data.meta.created_at,
          owner: 'store',
          product_types: ['standard'],
          variations: [],
          variation_matrix: {},
        },
      },
    });
    expect(Date.parse(res.body.data.meta.created_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('keeps every attribute the platform lists, as sent', async () => {
    const attributes = {
      name: 'Engraved pen',
      sku: sku('PEN'),
      slug: 'engraved-pen',
      description: 'A pen',
      status: 'live',
      commodity_type: 'physical',
      upc_ean: '0123456789012',
      mpn: 'MPN-1',
      external_ref: sku('ext'),
      tags: ['gift'],
      locales: { 'fr-FR': { name: 'Stylo gravé', description: 'Un stylo' } },
      custom_inputs: {
        engraving: {
          name: 'Engraving',
          validation_rules: [{ type: 'string', options: { max_length: 255 } }],
          required: false,
        },
      },
      build_rules: { default: 'include', exclude: [['opt-a', 'opt-b']] },
      extensions: { 'products-pens': { ink: 'blue', refills: 2, gift_wrap: true, note: null } },
    };
    const res = await create(attributes);
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toEqual(attributes);
    expect((await get(res.body.data.id)).body.data.attributes).toEqual(attributes);
  });

  it.each([
    ['no name', { sku: 'x' }, 'data.attributes.name', 'data.attributes.name is required'],
    [
      'an unknown attribute',
      { name: 'x', colour: 'red' },
      'data.attributes.colour',
      'data.attributes.colour is not allowed',
    ],
    [
      '21 tags',
      { name: 'x', tags: Array.from({ length: 21 }, (_, n) => `t${n}`) },
      'data.attributes.tags',
      'data.attributes.tags must be a list of at most 20 tags',
    ],
    [
      'a tag with a comma',
      { name: 'x', tags: ['a,b'] },
      'data.attributes.tags[0]',
      'data.attributes.tags[0] must be 1 to 255 characters without commas, spaces, < or >',
    ],
    [
      'a custom input longer than 255',
      {
        name: 'x',
        custom_inputs: {
          note: { name: 'Note', validation_rules: [{ type: 'string', options: { max_length: 256 } }] },
        },
      },
      'data.attributes.custom_inputs.note.validation_rules[0].options.max_length',
      'data.attributes.custom_inputs.note.validation_rules[0].options.max_length must be an integer from 1 to 255',
    ],
    [
      'a slug with a space',
      { name: 'x', slug: 'a b' },
      'data.attributes.slug',
      'data.attributes.slug must be 1 to 255 characters: A-Z, a-z, 0-9, hyphen, underscore and period',
    ],
    [
      'a bad status',
      { name: 'x', status: 'archived' },
      'data.attributes.status',
      'data.attributes.status must be draft or live',
    ],
    [
      'a component key with special characters',
      { name: 'x', components: { 'a b': { name: 'A', options: [] } } },
      'data.attributes.components.a b.options',
      'data.attributes.components.a b.options must be a list of 1 to 1500 options',
    ],
  ])(
    'refuses %s with 422, naming the attribute, and creates nothing',
    async (_label, attributes, source, detail) => {
      const before = (await list()).body.meta.results.total;
      const res = await create(attributes);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([
        { status: '422', title: 'Unprocessable Entity', detail, source, request_id: expect.any(String) },
      ]);
      expect((await list()).body.meta.results.total).toBe(before);
    },
  );

  it('takes a bundle of 1,500 options in all (a body over 64 KB), and refuses 1,501 with 422', async () => {
    const id = await created({ name: 'Part', sku: sku('PART') });
    const options = (count: number) =>
      Array.from({ length: count }, () => ({ id, type: 'product', quantity: 1 }));
    const full = await create({
      name: 'Full bundle',
      components: { a: { name: 'A', options: options(800) }, b: { name: 'B', options: options(700) } },
    });
    expect(full.status).toBe(201);
    expect(full.body.data.attributes.components.b.options).toHaveLength(700);
    const res = await create({
      name: 'Huge bundle',
      components: { a: { name: 'A', options: options(800) }, b: { name: 'B', options: options(701) } },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({
      detail: 'data.attributes.components: a bundle may have at most 1500 options in all, got 1501',
      source: 'data.attributes.components',
    });
  });

  it('keeps map keys that name object machinery (constructor, __proto__) as plain keys', async () => {
    const body =
      '{"data":{"type":"product","attributes":{"name":"Odd keys","extensions":{"-":{"constructor":true,"__proto__":"x"}},"custom_inputs":{"constructor":{"name":"C"}}}}}';
    const res = await invoke(createProduct, {
      method: 'POST',
      path: '/pcm/products',
      headers: bearer(token, JSON_HEADERS),
      body,
    });
    expect(res.status).toBe(201);
    const stored = await get(res.body.data.id);
    expect(JSON.stringify(stored.body.data.attributes.extensions)).toBe(
      '{"-":{"constructor":true,"__proto__":"x"}}',
    );
    expect(JSON.stringify(stored.body.data.attributes.custom_inputs)).toBe('{"constructor":{"name":"C"}}');
  });

  it('refuses a product of another type with 422', async () => {
    const res = await invoke(createProduct, {
      method: 'POST',
      path: '/pcm/products',
      headers: bearer(token, JSON_HEADERS),
      body: JSON.stringify({ data: { type: 'catalog', attributes: { name: 'x' } } }),
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source).toBe('data.type');
  });
});

describe('GET /pcm/products/{product_id}', () => {
  it('is 404 for an unknown id and for an id that is not a UUID', async () => {
    for (const id of ['0190a0a0-0000-7000-8000-000000000000', 'nope']) {
      const res = await get(id);
      expect(res.status).toBe(404);
      expect(res.body.errors[0].detail).toBe('product not found');
    }
  });

  it('includes the component products, and empty main images and files', async () => {
    const part = await created({ name: 'Part A', sku: sku('PA') });
    const other = await created({ name: 'Part B', sku: sku('PB') });
    const bundle = await created({
      name: 'Kit',
      components: {
        first: { name: 'First', options: [{ id: part, type: 'product', quantity: 2, default: true }] },
        second: { name: 'Second', min: 1, max: 1, options: [{ id: other, type: 'product', quantity: 1 }] },
      },
    });
    const res = await get(bundle, '?include=component_products,main_image,files');
    expect(res.status).toBe(200);
    expect(res.body.data.meta.product_types).toEqual(['bundle']);
    expect(res.body.data.relationships.component_products.data).toEqual([
      { type: 'product', id: part },
      { type: 'product', id: other },
    ]);
    expect(res.body.included.component_products.map((p: { id: string }) => p.id)).toEqual([part, other]);
    expect(res.body.included.main_images).toEqual([]);
    expect(res.body.included.files).toEqual([]);
    expect((await get(bundle)).body.included).toBeUndefined();
  });

  it('refuses an include it does not know with 400', async () => {
    const id = await created({ name: 'Plain', sku: sku('PL') });
    const res = await get(id, '?include=variations');
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ source: 'include' });
  });
});

describe('GET /pcm/products', () => {
  let own: TestStore;
  let ownToken: string;
  const ids: string[] = [];

  beforeAll(async () => {
    own = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    ownToken = await tokenFor(own);
    const specs = [
      { name: 'Red shirt', sku: 'SHIRT-RED', tags: ['red', 'shirt'], status: 'live', mpn: 'M-1' },
      { name: 'Blue shirt', sku: 'SHIRT-BLUE', tags: ['blue', 'shirt'], external_ref: 'erp-2' },
      { name: 'Red hat', sku: 'HAT-RED', tags: ['red'], commodity_type: 'digital', upc_ean: '123' },
    ];
    for (const attributes of specs) {
      const res = await create(attributes, ownToken);
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
  });

  const names = (res: { body: { data: { attributes: { name: string } }[] } }) =>
    res.body.data.map((product) => product.attributes.name);

  it('lists the store’s products oldest first, with total and platform links', async () => {
    const res = await list('?page[limit]=2&page[offset]=1', ownToken);
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['Blue shirt', 'Red hat']);
    expect(res.body.meta.results).toEqual({ total: 3 });
    expect(res.body.links).toEqual({
      self: `${ORIGIN}/pcm/products?page[offset]=1&page[limit]=2`,
      first: `${ORIGIN}/pcm/products?page[offset]=0&page[limit]=2`,
      last: `${ORIGIN}/pcm/products?page[offset]=2&page[limit]=2`,
      prev: `${ORIGIN}/pcm/products?page[offset]=0&page[limit]=2`,
      next: null,
    });
  });

  it.each([
    ['eq(sku,shirt-red)', ['Red shirt']],
    ['eq(tags,RED)', ['Red shirt', 'Red hat']],
    ['like(name,*shirt)', ['Red shirt', 'Blue shirt']],
    ['like(sku,shirt-*):eq(tags,blue)', ['Blue shirt']],
    ['in(sku,HAT-RED,SHIRT-BLUE)', ['Blue shirt', 'Red hat']],
    ['eq(status,live)', ['Red shirt']],
    ['eq(commodity_type,digital)', ['Red hat']],
    ['eq(mpn,M-1)', ['Red shirt']],
    ['eq(manufacturer_part_num,M-1)', ['Red shirt']],
    ['eq(upc_ean,123)', ['Red hat']],
    ['eq(external_ref,erp-2)', ['Blue shirt']],
    ['eq(product_types,standard)', ['Red shirt', 'Blue shirt', 'Red hat']],
    ['eq(owner,store):like(name,Blue*)', ['Blue shirt']],
    ['eq(sku,none)', []],
  ])('filters %s', async (filter, expected) => {
    const res = await list(`?filter=${encodeURIComponent(filter)}`, ownToken);
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(expected);
    expect(res.body.meta.results.total).toBe(expected.length);
    expect(res.body.links.first).toBe(
      `${ORIGIN}/pcm/products?filter=${encodeURIComponent(filter)}&page[offset]=0&page[limit]=25`,
    );
  });

  it('filters by id with in, and pages a filtered list', async () => {
    const res = await list(
      `?filter=${encodeURIComponent(`in(id,${ids[0]},${ids[2]})`)}&page[limit]=1&page[offset]=1`,
      ownToken,
    );
    expect(names(res)).toEqual(['Red hat']);
    expect(res.body.meta.results.total).toBe(2);
  });

  it.each([
    ['gt(sku,a)', "unknown operator 'gt' at character 1; expected eq, like or in"],
    ['like(id,a*)', "like cannot be used with attribute 'id' at character 6; use eq(id,...)"],
    [
      'in(commodity_type,physical)',
      "in cannot be used with attribute 'commodity_type' at character 4; use eq(commodity_type,...)",
    ],
    ['eq(colour,red)', expect.stringContaining("unknown attribute 'colour'")],
    ['eq(sku', expect.any(String)],
  ])('refuses the filter %s with 400', async (filter, detail) => {
    const res = await list(`?filter=${encodeURIComponent(filter)}`, ownToken);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ status: '400', source: 'filter', detail });
  });

  it.each([
    ['page[limit]=101', 'page[limit]'],
    ['page[offset]=10001', 'page[offset]'],
  ])('refuses %s with 400', async (query, source) => {
    const res = await list(`?${query}`, ownToken);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toBe(source);
  });

  it('shows another store none of these products', async () => {
    const res = await list('?filter=eq(sku,SHIRT-RED)');
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.results.total).toBe(0);
  });
});

describe('PUT /pcm/products/{product_id}', () => {
  it('changes only the attributes sent', async () => {
    const code = sku('UPD');
    const id = await created({ name: 'Before', sku: code, description: 'kept', tags: ['a'] });
    const res = await update(id, { attributes: { name: 'After', status: 'live' } });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toEqual({
      name: 'After',
      sku: code,
      slug: 'before',
      description: 'kept',
      status: 'live',
      commodity_type: 'physical',
      tags: ['a'],
    });
    expect(res.body.data.meta.updated_at > res.body.data.meta.created_at).toBe(true);
    const empty = await update(id, { attributes: {} });
    expect(empty.body.data.attributes).toEqual(res.body.data.attributes);
  });

  it('is 409 when data.id is not the path’s, and 422 without data.id; nothing changes', async () => {
    const id = await created({ name: 'Fixed', sku: sku('FIX') });
    const other = '0190a0a0-0000-7000-8000-000000000001';
    const mismatch = await invoke(updateProduct, {
      method: 'PUT',
      path: `/pcm/products/${id}`,
      pathParameters: { product_id: id },
      headers: bearer(token, JSON_HEADERS),
      body: JSON.stringify({ data: { type: 'product', id: other, attributes: { name: 'x' } } }),
    });
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.errors[0]).toMatchObject({
      detail: 'data.id must be the id of the path',
      source: 'data.id',
    });
    const missing = await invoke(updateProduct, {
      method: 'PUT',
      path: `/pcm/products/${id}`,
      pathParameters: { product_id: id },
      headers: bearer(token, JSON_HEADERS),
      body: JSON.stringify({ data: { type: 'product', attributes: { name: 'x' } } }),
    });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].detail).toBe('data.id is required');
    expect((await get(id)).body.data.attributes.name).toBe('Fixed');
  });

  it('is 404 for an unknown product', async () => {
    const res = await update('0190a0a0-0000-7000-8000-000000000002', { attributes: { name: 'x' } });
    expect(res.status).toBe(404);
  });

  it('moves the sku claim: the old sku is free at once, the new one taken', async () => {
    const oldSku = sku('OLD');
    const newSku = sku('NEW');
    const id = await created({ name: 'Mover', sku: oldSku });
    expect((await update(id, { attributes: { sku: newSku } })).status).toBe(200);
    expect(await productRepository.idOfSku(store.store.id, oldSku)).toBeUndefined();
    expect(await productRepository.idOfSku(store.store.id, newSku)).toBe(id);
    expect((await create({ name: 'Takes the old', sku: oldSku.toLowerCase() })).status).toBe(201);
    const taken = await create({ name: 'Wants the new', sku: newSku.toUpperCase() });
    expect(taken.status).toBe(409);
  });
});

describe('DELETE /pcm/products/{product_id}', () => {
  it('deletes the product and frees its sku and external_ref', async () => {
    const code = sku('DEL');
    const ref = sku('del-ref');
    const id = await created({ name: 'Doomed', sku: code, external_ref: ref });
    const res = await remove(id);
    expect(res.status).toBe(204);
    expect(res.raw).toBe('');
    expect((await get(id)).status).toBe(404);
    expect(await getRecord('products', productKeys.sku(store.store.id, code), true)).toBeUndefined();
    expect(await getRecord('products', productKeys.externalRef(store.store.id, ref), true)).toBeUndefined();
    expect((await create({ name: 'Reborn', sku: code, external_ref: ref })).status).toBe(201);
    expect((await remove(id)).status).toBe(404);
  });

  it('looks for bundles, children and attachments of the marked product in one round trip', async () => {
    const id = await created({ name: 'Quickly gone', sku: sku('QUICK') });
    const { order, stop } = recordOperationOrder();
    try {
      expect((await remove(id)).status).toBe(204);
    } finally {
      stop();
    }
    // The mark (an UpdateItem) is answered before the reads; the three Queries all go out before any answers.
    const firstQuery = order.indexOf('Query sent');
    expect(order.lastIndexOf('UpdateItem answered', firstQuery)).toBeGreaterThan(-1);
    const queries = order.filter((step) => step.startsWith('Query'));
    expect(queries.slice(0, 4)).toEqual(['Query sent', 'Query sent', 'Query sent', 'Query answered']);
    expect((await get(id)).status).toBe(404);
  });

  it('is 409 while a bundle’s components use the product, 204 once the bundle drops it', async () => {
    const part = await created({ name: 'Used part', sku: sku('USED') });
    const spare = await created({ name: 'Spare', sku: sku('SPARE') });
    const bundle = await created({
      name: 'Uses it',
      components: { c: { name: 'C', options: [{ id: part, type: 'product', quantity: 1 }] } },
    });
    const refused = await remove(part);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].detail).toBe(
      `the product is a component of bundle ${bundle}: remove it from the bundle's components (or delete the bundle) first`,
    );
    expect((await get(part)).status).toBe(200);
    // Still updatable: the refused delete left no mark.
    expect((await update(part, { attributes: { description: 'still here' } })).status).toBe(200);
    const swapped = await update(bundle, {
      attributes: {
        components: { c: { name: 'C', options: [{ id: spare, type: 'product', quantity: 1 }] } },
      },
    });
    expect(swapped.status).toBe(200);
    expect((await remove(part)).status).toBe(204);
    expect((await remove(spare)).status).toBe(409);
    expect((await remove(bundle)).status).toBe(204);
    expect((await remove(spare)).status).toBe(204);
  });
});

describe('GET /pcm/products/{product_id}/relationships/component_products', () => {
  const components = (id: string, as = token) =>
    invoke(getComponentProducts, {
      method: 'GET',
      path: `/pcm/products/${id}/relationships/component_products`,
      pathParameters: { product_id: id },
      headers: bearer(as, HEADERS),
    });

  it('lists the distinct products a bundle names, in the order first named; none for a standard product', async () => {
    const a = await created({ name: 'Rel A', sku: sku('RA') });
    const b = await created({ name: 'Rel B', sku: sku('RB') });
    const bundle = await created({
      name: 'Rel kit',
      components: {
        one: {
          name: 'One',
          options: [
            { id: b, type: 'product', quantity: 1 },
            { id: a, type: 'product', quantity: 2 },
          ],
        },
        two: { name: 'Two', options: [{ id: b, type: 'product', quantity: 3 }] },
      },
    });
    const res = await components(bundle);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { type: 'product', id: b },
        { type: 'product', id: a },
      ],
    });
    expect((await components(a)).body).toEqual({ data: [] });
  });

  it("is 404 for an unknown product and for another store's", async () => {
    const bundle = await created({ name: 'Private', sku: sku('PRIV') });
    const other = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    const res = await components(bundle, await tokenFor(other));
    expect(res.status).toBe(404);
    expect(res.body.errors[0].detail).toBe('product not found');
    expect((await components('0190a0a0-0000-7000-8000-000000000009')).status).toBe(404);
  });
});

describe('bundles', () => {
  it('a bundle create that was refused leaves its components free to delete at once', async () => {
    const taken = sku('TAKEN');
    await created({ name: 'Holder', sku: taken });
    const part = await created({ name: 'Briefly named', sku: sku('BRIEF') });
    const refused = await create({
      name: 'Refused kit',
      sku: taken,
      components: { c: { name: 'C', options: [{ id: part, type: 'product', quantity: 1 }] } },
    });
    expect(refused.status).toBe(409);
    expect(await productRepository.usesOf(store.store.id, part)).toEqual([]);
    expect((await remove(part)).status).toBe(204);
  });

  it('a component a bundle dropped is deletable, its stale record removed by the delete', async () => {
    const part = await created({ name: 'Dropped part', sku: sku('DROP') });
    const keep = await created({ name: 'Kept part', sku: sku('KEEP') });
    const option = (id: string) => ({ c: { name: 'C', options: [{ id, type: 'product', quantity: 1 }] } });
    const bundle = await created({ name: 'Changing kit', components: option(part) });
    expect((await update(bundle, { attributes: { components: option(keep) } })).status).toBe(200);
    expect(await productRepository.usesOf(store.store.id, part)).toEqual([
      { bundle_id: bundle, version: 1, created_at: expect.any(String) },
    ]);
    expect((await remove(part)).status).toBe(204);
    expect(await productRepository.usesOf(store.store.id, part)).toEqual([]);
    expect(await productRepository.usesOf(store.store.id, keep)).toEqual([
      { bundle_id: bundle, version: 2, created_at: expect.any(String) },
    ]);
  });

  it('refuses a component that does not exist, and the bundle itself, with 422', async () => {
    const missing = '0190a0a0-0000-7000-8000-000000000003';
    const res = await create({
      name: 'Ghost kit',
      components: { c: { name: 'C', options: [{ id: missing, type: 'product', quantity: 1 }] } },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({
      detail: `data.attributes.components: product ${missing} does not exist`,
      source: 'data.attributes.components',
    });
    const id = await created({ name: 'Selfish', sku: sku('SELF') });
    const self = await update(id, {
      attributes: { components: { c: { name: 'C', options: [{ id, type: 'product', quantity: 1 }] } } },
    });
    expect(self.status).toBe(422);
    expect(self.body.errors[0].detail).toBe('data.attributes.components: a bundle cannot contain itself');
  });

  it('takes bundles of bundles one level deep only', async () => {
    const part = await created({ name: 'Leaf', sku: sku('LEAF') });
    const option = (id: string) => ({ c: { name: 'C', options: [{ id, type: 'product', quantity: 1 }] } });
    const inner = await created({ name: 'Inner', components: option(part) });
    const outer = await create({ name: 'Outer', components: option(inner) });
    expect(outer.status).toBe(201);
    const tooDeep = await create({ name: 'Too deep', components: option(outer.body.data.id) });
    expect(tooDeep.status).toBe(422);
    expect(tooDeep.body.errors[0].detail).toBe(
      `data.attributes.components: a bundle may contain bundles only one level deep; a component bundle contains bundle ${inner}`,
    );
    // Outer is a component of nothing, but inner is: inner may not take a bundle in.
    const plain = await created({ name: 'Another bundle', components: option(part) });
    const nested = await update(inner, { attributes: { components: option(plain) } });
    expect(nested.status).toBe(422);
    expect(nested.body.errors[0].detail).toBe(
      `data.attributes.components: the product is a component of bundle ${outer.body.data.id}, so it may not contain bundles (one level deep only)`,
    );
  });
});
