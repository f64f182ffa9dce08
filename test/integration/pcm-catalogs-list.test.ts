import { handler as createCatalog } from '../../functions/pcm-create-catalog/handler';
import { handler as deleteCatalog } from '../../functions/pcm-delete-catalog/handler';
import { handler as listCatalogs } from '../../functions/pcm-list-catalogs/handler';
import { uuidv7 } from '../../lib/ids';
import { getDocumentClient } from '../../lib/store/client';
import { BatchWriteCommand } from '../../lib/store/dynamodb';
import { pcmKeys } from '../../lib/store/pcm-repository';
import { tableName } from '../../lib/store/schema';
import { MAX_CATALOGS_PER_STORE } from '../../lib/validation/pcm-catalog';
import { bearer, createTestStore, invoke, type TestStore, tokenFor } from '../support/fixtures';

/**
 * `GET /pcm/catalogs` reads one page of catalogs, whatever the store holds (a Query with a Limit, the
 * total from the store's catalog counter), and a store holds at most MAX_CATALOGS_PER_STORE catalogs.
 */

const ORIGIN = 'https://api.example.test';
const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };

const list = (token: string, query = '') =>
  invoke(listCatalogs, { method: 'GET', path: `/pcm/catalogs${query}`, headers: bearer(token, HEADERS) });

const create = (token: string, name: string) =>
  invoke(createCatalog, {
    method: 'POST',
    path: '/pcm/catalogs',
    headers: bearer(token, { ...HEADERS, 'content-type': 'application/json' }),
    body: JSON.stringify({ data: { type: 'catalog', attributes: { name } } }),
  });

/**
 * The products table's reads of `run`: calls, items read and read capacity units (DynamoDB's measure of
 * bytes read: 4 KB a unit for strongly consistent reads), asked of every command.
 */
async function productReads(run: () => Promise<unknown>) {
  const client = getDocumentClient();
  const send = client.send.bind(client);
  const reads = { calls: 0, items: 0, units: 0 };
  const spy = jest.spyOn(client, 'send').mockImplementation((async (command: {
    input: Record<string, unknown>;
  }) => {
    if (command.input.TableName !== tableName('products')) return send(command as never);
    command.input.ReturnConsumedCapacity = 'TOTAL';
    const output = (await send(command as never)) as {
      Item?: unknown;
      Items?: unknown[];
      ScannedCount?: number;
      ConsumedCapacity?: { CapacityUnits?: number };
    };
    reads.calls += 1;
    reads.items += output.ScannedCount ?? (output.Item === undefined ? 0 : 1);
    reads.units += output.ConsumedCapacity?.CapacityUnits ?? 0;
    return output;
  }) as never);
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return reads;
}

/** Catalog records of `count` catalogs of about 1.3 KB each, written straight to the table. */
async function writeCatalogs(storeId: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => uuidv7());
  const at = new Date().toISOString();
  for (let start = 0; start < ids.length; start += 25) {
    await getDocumentClient().send(
      new BatchWriteCommand({
        RequestItems: {
          [tableName('products')]: ids.slice(start, start + 25).map((id, n) => ({
            PutRequest: {
              Item: {
                ...pcmKeys.catalog(storeId, id),
                id,
                name: `Catalog ${start + n}`,
                description: 'd'.repeat(1024),
                hierarchy_ids: [],
                pricebook_id: null,
                created_at: at,
                updated_at: at,
              },
            },
          })),
        },
      }),
    );
  }
  return ids;
}

describe('GET /pcm/catalogs reads one page', () => {
  let store: TestStore;
  let token: string;
  let ids: string[];

  beforeAll(async () => {
    store = await createTestStore();
    token = await tokenFor(store);
    // A store of 2,000 catalogs (more than a store may create today, as one made before the cap could hold).
    ids = await writeCatalogs(store.store.id, 2000);
    await getDocumentClient().send(
      new BatchWriteCommand({
        RequestItems: {
          [tableName('products')]: [
            { PutRequest: { Item: { ...pcmKeys.counter(store.store.id), catalog_count: 2000 } } },
          ],
        },
      }),
    );
  });

  it('page[limit]=1 reads the counter and one catalog, not the 2,000', async () => {
    let response: Awaited<ReturnType<typeof list>> | undefined;
    const reads = await productReads(async () => {
      response = await list(token, '?page[limit]=1');
    });
    expect(response?.status).toBe(200);
    expect(response?.body.data.map((catalog: { id: string }) => catalog.id)).toEqual([ids[0]]);
    expect(response?.body.meta).toEqual({
      page: { limit: 1, offset: 0, current: 1, total: 2000 },
      results: { total: 2000 },
    });
    expect(reads).toEqual({ calls: 2, items: 2, units: 2 });
  });

  it('an offset is skipped with a count, in the database', async () => {
    let response: Awaited<ReturnType<typeof list>> | undefined;
    const reads = await productReads(async () => {
      response = await list(token, '?page[limit]=2&page[offset]=1500');
    });
    expect(response?.body.data.map((catalog: { id: string }) => catalog.id)).toEqual(ids.slice(1500, 1502));
    expect(response?.body.links.next).toBe(`${ORIGIN}/pcm/catalogs?page[offset]=1502&page[limit]=2`);
    // The counter, two COUNT queries (1,000 at most each) over the 1,500 skipped, and the page.
    expect(reads.calls).toBe(4);
    expect(reads.items).toBe(1 + 1500 + 2);
  });

  it('answers an empty page past the end', async () => {
    const response = await list(token, '?page[limit]=5&page[offset]=2000');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    expect(response.body.meta.results.total).toBe(2000);
  });
});

describe('a store holds at most MAX_CATALOGS_PER_STORE catalogs', () => {
  it(`refuses the ${MAX_CATALOGS_PER_STORE + 1}th catalog with 409, until one is deleted`, async () => {
    expect(MAX_CATALOGS_PER_STORE).toBe(50);
    const store = await createTestStore();
    const token = await tokenFor(store);
    const made: string[] = [];
    for (let n = 0; n < MAX_CATALOGS_PER_STORE; n += 1) {
      const response = await create(token, `Catalog ${n}`);
      expect(response.status).toBe(201);
      made.push(response.body.data.id);
    }
    const refused = await create(token, 'One too many');
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({
        status: '409',
        detail: 'the store already has 50 catalogs, the most it may hold: delete one before creating another',
      }),
    ]);
    const listed = await list(token, '?page[limit]=100');
    expect(listed.body.meta.results.total).toBe(50);
    expect(listed.body.data.map((catalog: { id: string }) => catalog.id)).toEqual(made);

    const removed = await invoke(deleteCatalog, {
      method: 'DELETE',
      path: `/pcm/catalogs/${made[0]}`,
      pathParameters: { catalog_id: made[0] as string },
      headers: bearer(token, HEADERS),
    });
    expect(removed.status).toBe(204);
    expect((await list(token)).body.meta.results.total).toBe(49);
    expect((await create(token, 'In its place')).status).toBe(201);
    expect((await list(token)).body.meta.results.total).toBe(50);
  });

  it('counts the catalogs a store made before the counter existed, once', async () => {
    const store = await createTestStore();
    const token = await tokenFor(store);
    await writeCatalogs(store.store.id, MAX_CATALOGS_PER_STORE - 1);
    expect((await list(token)).body.meta.results.total).toBe(MAX_CATALOGS_PER_STORE - 1);
    expect((await create(token, 'The last one')).status).toBe(201);
    expect((await create(token, 'One too many')).status).toBe(409);
    expect((await list(token)).body.meta.results.total).toBe(MAX_CATALOGS_PER_STORE);
  });
});
