import { handler as createPricebook } from '../../functions/pcm-create-pricebook/handler';
import { handler as deletePricebook } from '../../functions/pcm-delete-pricebook/handler';
import { handler as getPricebook } from '../../functions/pcm-get-pricebook/handler';
import { handler as listPricebooks } from '../../functions/pcm-list-pricebooks/handler';
import { handler as updatePricebook } from '../../functions/pcm-update-pricebook/handler';
import { getDocumentClient } from '../../lib/store/client';
import { pricebookRepository } from '../../lib/store/pricebook-repository';
import { expectErrorBody } from '../support/error-body';
import { type ConflictEmulator, emulateConflicts } from '../support/faults';
import { bearer, createTestStore, invoke, SHARED_STORE_RATE_LIMIT, tokenFor } from '../support/fixtures';

/**
 * Price books (docs/price-books.md) on DynamoDB Local: create, read, list in pages, partial updates and
 * deletes; names unique in the store under concurrent requests; bad input refused with nothing written.
 */

const ORIGIN = 'https://api.example.test';
const HEADERS = {
  host: 'api.example.test',
  'x-forwarded-proto': 'https',
  'content-type': 'application/json',
};
const DATE = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

async function newClient() {
  const store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  const headers = bearer(await tokenFor(store), HEADERS);
  const byId = (id: string, query = '') => ({
    path: `/pcm/pricebooks/${id}${query}`,
    pathParameters: { pricebook_id: id },
    headers,
  });
  return {
    storeId: store.store.id,
    create: (attributes: unknown) =>
      invoke(createPricebook, {
        method: 'POST',
        path: '/pcm/pricebooks',
        headers,
        body: JSON.stringify({ data: { type: 'pricebook', attributes } }),
      }),
    list: (query = '') => invoke(listPricebooks, { method: 'GET', path: `/pcm/pricebooks${query}`, headers }),
    get: (id: string, query = '') => invoke(getPricebook, { method: 'GET', ...byId(id, query) }),
    update: (id: string, data: unknown) =>
      invoke(updatePricebook, { method: 'PUT', ...byId(id), body: JSON.stringify({ data }) }),
    remove: (id: string) => invoke(deletePricebook, { method: 'DELETE', ...byId(id) }),
  };
}

const expectError = expectErrorBody;

describe('price books', () => {
  let c: Awaited<ReturnType<typeof newClient>>;
  beforeEach(async () => {
    c = await newClient();
  });

  it('creates a price book, reads it back, lists it, updates only what is sent and deletes it', async () => {
    const created = await c.create({ name: 'Retail', description: 'Shop prices' });
    expect(created.status).toBe(201);
    const { id } = created.body.data;
    expect(created.headers.Location).toBe(`${ORIGIN}/pcm/pricebooks/${id}`);
    expect(created.body).toEqual({
      data: {
        id,
        type: 'pricebook',
        attributes: { name: 'Retail', description: 'Shop prices', created_at: DATE, updated_at: DATE },
        meta: { owner: 'store' },
      },
      links: { self: `${ORIGIN}/pcm/pricebooks/${id}` },
    });
    expect((await c.get(id)).body).toEqual(created.body);
    expect((await c.get(id.toUpperCase())).body).toEqual(created.body);

    const unchanged = await c.update(id, { type: 'pricebook', attributes: {} });
    expect(unchanged.body).toEqual(created.body);
    const updated = await c.update(id, { type: 'pricebook', id, attributes: { external_ref: 'erp-1' } });
    expect(updated.body.data.attributes).toEqual({
      name: 'Retail',
      description: 'Shop prices',
      external_ref: 'erp-1',
      created_at: created.body.data.attributes.created_at,
      updated_at: DATE,
    });

    const list = await c.list();
    expect(list.body.data).toEqual([updated.body.data]);
    expect(list.body.meta).toEqual({
      page: { limit: 25, offset: 0, current: 1, total: 1 },
      results: { total: 1 },
    });

    expect((await c.remove(id)).status).toBe(204);
    expectError(await c.get(id), 404, 'price book not found');
    expectError(await c.remove(id), 404, 'price book not found');
    expectError(
      await c.update(id, { type: 'pricebook', attributes: { name: 'x' } }),
      404,
      'price book not found',
    );
    expect((await c.list()).body.meta.results.total).toBe(0);
  });

  it('pages the list oldest first with links', async () => {
    for (const name of ['A', 'B', 'C']) expect((await c.create({ name })).status).toBe(201);
    const page = await c.list('?page[limit]=2&page[offset]=2');
    expect(page.body.data.map((book: { attributes: { name: string } }) => book.attributes.name)).toEqual([
      'C',
    ]);
    expect(page.body.meta.results.total).toBe(3);
    expect(page.body.links.prev).toBe(`${ORIGIN}/pcm/pricebooks?page[offset]=0&page[limit]=2`);
    expect(page.body.links.next).toBeNull();
  });

  it('keeps names unique in the store (compared exactly), freeing a name on rename and delete', async () => {
    const retail = (await c.create({ name: 'Retail' })).body.data.id;
    expectError(
      await c.create({ name: 'Retail' }),
      409,
      'the store has a price book of this name already',
      'data.attributes.name',
    );
    // Names compare exactly: another case is another name.
    const lower = (await c.create({ name: 'retail' })).body.data.id;
    expectError(
      await c.update(lower, { type: 'pricebook', attributes: { name: 'Retail' } }),
      409,
      'the store has a price book of this name already',
      'data.attributes.name',
    );
    expect((await c.update(retail, { type: 'pricebook', attributes: { name: 'Wholesale' } })).status).toBe(
      200,
    );
    expect((await c.create({ name: 'Retail' })).status).toBe(201);
    expect((await c.remove(lower)).status).toBe(204);
    expect((await c.create({ name: 'retail' })).status).toBe(201);
    // Another store may use any name.
    expect((await (await newClient()).create({ name: 'Retail' })).status).toBe(201);
  });

  it.each([
    ['no name', {}, 'data.attributes.name', 'data.attributes.name is required'],
    ['a blank name', { name: '   ' }, 'data.attributes.name', /not only spaces/],
    ['a name over 255 characters', { name: 'n'.repeat(256) }, 'data.attributes.name', /1 to 255/],
    [
      'a description over 2,048',
      { name: 'A', description: 'd'.repeat(2049) },
      'data.attributes.description',
      /2048/,
    ],
    [
      'an external_ref over 2,048',
      { name: 'A', external_ref: 'e'.repeat(2049) },
      'data.attributes.external_ref',
      /2048/,
    ],
    ['an unknown attribute', { name: 'A', currency: 'USD' }, 'data.attributes.currency', /not allowed/],
  ])('refuses %s with 422 naming it, writing nothing', async (_what, attributes, source, detail) => {
    expectError(await c.create(attributes), 422, detail, source);
    expect((await c.list()).body.data).toEqual([]);
  });

  it('refuses a body that is not {"data": …} (400), another type (422), a foreign data.id (409), filter and include (400)', async () => {
    const id = (await c.create({ name: 'A' })).body.data.id;
    const raw = await invoke(createPricebook, {
      method: 'POST',
      path: '/pcm/pricebooks',
      headers: bearer(await tokenFor(await createTestStore()), HEADERS),
      body: '{"name":"A"}',
    });
    expectError(raw, 400, /data/, 'data');
    expectError(await c.update(id, { type: 'product', attributes: {} }), 422, /data\.type/, 'data.type');
    expectError(
      await c.update(id, { type: 'pricebook', id: '0193a0c0-0000-7000-8000-000000000000', attributes: {} }),
      409,
      'data.id must be the id of the path',
      'data.id',
    );
    expectError(await c.list('?filter=eq(external_ref,x)'), 400, /filter/, 'filter');
    expectError(await c.get(id, '?include=products'), 400, /include/, 'include');
    expectError(await c.get('not-a-uuid'), 404, 'price book not found');
  });
});

describe('price books under concurrent requests', () => {
  let conflicts: ConflictEmulator;
  beforeAll(() => {
    conflicts = emulateConflicts(getDocumentClient());
  });
  afterAll(() => conflicts.remove());

  it('ten creates of one name: exactly one 201; the count is the books there are', async () => {
    const c = await newClient();
    const results = await Promise.all(Array.from({ length: 10 }, () => c.create({ name: 'Same' })));
    expect(results.map((res) => res.status).sort()).toEqual([
      201, 409, 409, 409, 409, 409, 409, 409, 409, 409,
    ]);
    const others = await Promise.all(['B', 'C', 'D'].map((name) => c.create({ name })));
    expect(others.map((res) => res.status)).toEqual([201, 201, 201]);
    expect(await pricebookRepository.count(c.storeId)).toBe(4);
    expect(conflicts.conflicts.transactions).toBeGreaterThan(0);
  });

  it('concurrent updates of different attributes of one book all survive', async () => {
    const c = await newClient();
    const id = (await c.create({ name: 'A' })).body.data.id;
    const results = await Promise.all([
      c.update(id, { type: 'pricebook', attributes: { description: 'described' } }),
      c.update(id, { type: 'pricebook', attributes: { external_ref: 'ref' } }),
      c.update(id, { type: 'pricebook', attributes: { name: 'Renamed' } }),
    ]);
    expect(results.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(await pricebookRepository.get(c.storeId, id)).toMatchObject({
      name: 'Renamed',
      description: 'described',
      external_ref: 'ref',
      version: 4,
    });
    expect((await c.create({ name: 'A' })).status).toBe(201);
  });
});
