import { randomUUID } from 'node:crypto';
import { handler as createCatalog } from '../../functions/pcm-create-catalog/handler';
import { handler as putDocument } from '../../functions/pcm-put-catalog-document/handler';
import { handler as updateCatalog } from '../../functions/pcm-update-catalog/handler';
import { RELEASE_SHARDS } from '../../lib/catalog/publisher';
import { uuidv7 } from '../../lib/ids';
import { objectStore } from '../../lib/store/object-store';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { bearer, createTestStore, invoke, type TestStore, tokenFor } from '../support/fixtures';
import { recordOperationOrder } from '../support/operation-order';
import { newPcmCatalog, newPcmHierarchy, newPricebook } from '../support/pcm-fixtures';

/**
 * A catalog's sources (docs/catalog-api.md): the hierarchies and price books it names must be the store's,
 * one price book or up to five by priority (not both), and a catalog publishes either its hierarchies
 * (authored) or a document, never both at once.
 */

let store: TestStore;
let token: string;

beforeAll(async () => {
  store = await createTestStore();
  token = await tokenFor(store);
});

const JSON_HEADERS = () => bearer(token, { 'content-type': 'application/json' });

const create = (attributes: Record<string, unknown>) =>
  invoke(createCatalog, {
    method: 'POST',
    path: '/pcm/catalogs',
    headers: JSON_HEADERS(),
    body: JSON.stringify({ data: { type: 'catalog', attributes } }),
  });

const update = (catalogId: string, attributes: Record<string, unknown>) =>
  invoke(updateCatalog, {
    method: 'PUT',
    path: `/pcm/catalogs/${catalogId}`,
    pathParameters: { catalog_id: catalogId },
    headers: JSON_HEADERS(),
    body: JSON.stringify({ data: { type: 'catalog', attributes } }),
  });

describe('a catalog names hierarchies and price books of its store', () => {
  it('takes one price book, or up to five by priority, and renders what it took', async () => {
    const hierarchy = await newPcmHierarchy(store.store.id, 'Sources', `sources-${randomUUID()}`);
    const [first, second] = [
      await newPricebook(store.store.id, `Book ${randomUUID()}`),
      await newPricebook(store.store.id, `Book ${randomUUID()}`),
    ];
    const one = await create({
      name: 'One book',
      hierarchy_ids: [hierarchy.toUpperCase()],
      pricebook_id: first,
    });
    expect(one.status).toBe(201);
    expect(one.body.data.attributes).toMatchObject({ hierarchy_ids: [hierarchy], pricebook_id: first });
    expect(one.body.data.attributes.pricebook_ids).toBeUndefined();

    const books = [
      { id: first, priority: 1 },
      { id: second, priority: 10 },
    ];
    const several = await update(one.body.data.id, { pricebook_ids: books });
    expect(several.status).toBe(200);
    expect(several.body.data.attributes).toMatchObject({ pricebook_id: null, pricebook_ids: books });
    const back = await update(one.body.data.id, { pricebook_id: second });
    expect(back.body.data.attributes).toMatchObject({ pricebook_id: second });
    expect(back.body.data.attributes.pricebook_ids).toBeUndefined();
  });

  it.each([
    [
      'both pricebook_id and pricebook_ids',
      () => ({ pricebook_id: randomUUID(), pricebook_ids: [{ id: randomUUID(), priority: 1 }] }),
      'data.attributes.pricebook_ids',
    ],
    [
      'a hierarchy of no store',
      () => ({ hierarchy_ids: [randomUUID()] }),
      'data.attributes.hierarchy_ids[0]',
    ],
    ['a price book of no store', () => ({ pricebook_id: randomUUID() }), 'data.attributes.pricebook_id'],
    [
      'a price book twice',
      () => {
        const id = randomUUID();
        return {
          pricebook_ids: [
            { id, priority: 1 },
            { id, priority: 2 },
          ],
        };
      },
      'data.attributes.pricebook_ids[1].id',
    ],
  ])('refuses %s with 422 naming the field, and creates nothing', async (_what, attributes, source) => {
    const before = (await pcmRepository.listCatalogs(store.store.id)).length;
    const response = await create({ name: 'Refused', ...attributes() });
    expect([response.status, response.body.errors[0].source]).toEqual([422, source]);
    expect((await pcmRepository.listCatalogs(store.store.id)).length).toBe(before);
  });

  it('refuses more than five price books and hierarchy ids that are not UUIDs with 400', async () => {
    const six = Array.from({ length: 6 }, (_, i) => ({ id: randomUUID(), priority: i }));
    expect((await create({ name: 'Six', pricebook_ids: six })).status).toBe(400);
    expect((await create({ name: 'Not ids', hierarchy_ids: ['h-1'] })).status).toBe(400);
  });
});

describe('a catalog publishes its hierarchies or a document, not both', () => {
  it('refuses a document for a catalog that names hierarchies, and hierarchies for one with a document', async () => {
    const hierarchy = await newPcmHierarchy(store.store.id, 'Either', `either-${randomUUID()}`);
    const authored = await create({ name: 'Authored', hierarchy_ids: [hierarchy] });
    const stored = await invoke(putDocument, {
      method: 'PUT',
      path: `/pcm/catalogs/${authored.body.data.id}/document`,
      pathParameters: { catalog_id: authored.body.data.id },
      headers: JSON_HEADERS(),
      body: JSON.stringify({ catalog: { name: 'Doc' }, products: [] }),
    });
    expect(stored.status).toBe(409);
    expect(stored.body.errors[0].detail).toMatch(/names hierarchies/);
    expect((await pcmRepository.getCatalog(store.store.id, authored.body.data.id))?.document).toBeUndefined();

    const documented = await newPcmCatalog(store.store.id, 'Documented', {
      catalog: { name: 'Doc' },
      products: [],
    });
    const refused = await update(documented, { hierarchy_ids: [hierarchy] });
    expect([refused.status, refused.body.errors[0].source]).toEqual([409, 'data.attributes.hierarchy_ids']);
    expect((await pcmRepository.getCatalog(store.store.id, documented))?.hierarchy_ids).toEqual([]);
    // Without hierarchies, the authored catalog takes documents again.
    expect((await update(authored.body.data.id, { hierarchy_ids: [] })).status).toBe(200);
  });
});

describe('a document replaced', () => {
  const put = (catalogId: string, name: string) =>
    invoke(putDocument, {
      method: 'PUT',
      path: `/pcm/catalogs/${catalogId}/document`,
      pathParameters: { catalog_id: catalogId },
      headers: JSON_HEADERS(),
      body: JSON.stringify({ catalog: { name }, products: [] }),
    });
  const documentKey = async (catalogId: string) =>
    (await pcmRepository.getCatalog(store.store.id, catalogId))?.document?.key as string;

  it('goes when a new one is stored, reading the catalog once after the write; a release being published keeps it', async () => {
    const catalogId = (await create({ name: 'Replaced' })).body.data.id as string;
    expect((await put(catalogId, 'First')).status).toBe(200);
    const first = await documentKey(catalogId);
    const { order, stop } = recordOperationOrder();
    let second: Awaited<ReturnType<typeof put>>;
    try {
      second = await put(catalogId, 'Second');
    } finally {
      stop();
    }
    expect([second.status, second.body.data.meta.document.bytes]).toEqual([200, expect.any(Number)]);
    const afterWrite = order.slice(order.indexOf('TransactWriteItems answered'));
    expect(afterWrite.filter((step) => step === 'GetItem sent')).toHaveLength(1);
    expect(await objectStore.head(first)).toBeUndefined();

    // A release being published reads the current document: the next document leaves it in place.
    const reading = await documentKey(catalogId);
    const now = new Date().toISOString();
    await pcmRepository.createRelease({
      store_id: store.store.id,
      catalog_id: catalogId,
      release_id: uuidv7(),
      shards: RELEASE_SHARDS,
      status: 'writing',
      started_at: now,
      heartbeat_at: now,
      state: 'IN_PROGRESS',
      name: 'Running',
      document_key: reading,
      created_at: now,
      updated_at: now,
    });
    expect((await put(catalogId, 'Third')).status).toBe(200);
    expect(await objectStore.head(reading)).toBeDefined();
    expect(await documentKey(catalogId)).not.toBe(reading);
  });
});
