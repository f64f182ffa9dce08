import { handler as createToken } from '../../functions/create-access-token/handler';
import { handler as updateKey } from '../../functions/update-application-key/handler';
import { clearAuthCache } from '../../lib/auth/authenticate';
import { generateRelease } from '../../lib/catalog/generator';
import { getConfig } from '../../lib/config/index';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { catalogRepository } from '../../lib/store/catalog-repository';
import {
  createDocumentClient,
  getDocumentClient,
  resetDocumentClient,
  setDocumentClient,
} from '../../lib/store/client';
import { PutCommand, TransactWriteCommand } from '../../lib/store/dynamodb';
import { keysTable, tableName } from '../../lib/store/schema';
import { type ConflictEmulator, emulateConflicts } from '../support/faults';
import { bearer, createTestStore, invoke, tokenFor } from '../support/fixtures';
import { type PublishResult, publishRelease } from '../support/one-process-publisher';

/*
 * DynamoDB's transaction conflicts, emulated on the client because DynamoDB Local
 * runs one request at a time: concurrent writes to one item must end in a success or a clean 4xx,
 * never a 500, and a shopper's token request must not queue behind every other shopper's.
 */

let emulator: ConflictEmulator;

beforeAll(() => {
  // Production's client (4 attempts, jittered backoff) with its retry delays shrunk to milliseconds.
  setDocumentClient(createDocumentClient(getConfig(), { retryBaseMs: { throttling: 2, other: 2 } }));
});
beforeEach(() => {
  emulator = emulateConflicts(getDocumentClient());
});
afterEach(() => emulator.remove());
afterAll(() => resetDocumentClient());

const implicitGrant = (clientId: string) =>
  invoke(createToken, {
    method: 'POST',
    path: '/oauth/access_token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'implicit', client_id: clientId }).toString(),
  });

const countStatuses = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((counts, status) => {
    counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }, {});

describe('the conflict emulation', () => {
  it('cancels a transaction that touches an item another transaction holds, and applies nothing of it', async () => {
    const store = await createTestStore();
    const key = keysTable.applicationKey(store.store.id, store.keyId);
    const write = (name: string) =>
      getDocumentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName('keys'),
                Key: key,
                UpdateExpression: 'SET #n = :n',
                ExpressionAttributeNames: { '#n': 'name' },
                ExpressionAttributeValues: { ':n': name },
              },
            },
            {
              Put: {
                TableName: tableName('keys'),
                Item: { pk: `TEST#${name}`, sk: 'TEST' },
              },
            },
          ],
        }),
      );
    const [first, second] = await Promise.allSettled([write('one'), write('two')]);
    expect(first.status).toBe('fulfilled');
    expect(second).toMatchObject({
      status: 'rejected',
      reason: {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
      },
    });
    expect(emulator.conflicts).toEqual({ transactions: 1, singleWrites: 0 });
    expect((await applicationKeyRepository.get(store.store.id, store.keyId, true))?.name).toBe('one');
  });

  it('refuses a single-item write to an item a transaction holds with TransactionConflictException', async () => {
    const table = tableName('keys');
    // One attempt only: the client would otherwise retry the refused write once the transaction ends.
    const single = createDocumentClient(getConfig(), { maxAttempts: 1 });
    const singleEmulator = emulateConflicts(single, { holdMs: 50 });
    const item = { pk: 'TEST#held', sk: 'TEST' };
    const transaction = single.send(
      new TransactWriteCommand({ TransactItems: [{ Put: { TableName: table, Item: { ...item, v: 1 } } }] }),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(
      single.send(new PutCommand({ TableName: table, Item: { ...item, v: 2 } })),
    ).rejects.toMatchObject({ name: 'TransactionConflictException', $metadata: { httpStatusCode: 400 } });
    await transaction;
    expect(singleEmulator.conflicts).toEqual({ transactions: 0, singleWrites: 1 });
    singleEmulator.remove();
    single.destroy();
  });
  it('sends a retried transaction (its first attempt’s token) on while another holds its items: DynamoDB answers it with the first attempt’s success', async () => {
    const table = tableName('keys');
    const single = createDocumentClient(getConfig(), { maxAttempts: 1 });
    const singleEmulator = emulateConflicts(single, { holdMs: 50 });
    const item = { pk: 'TEST#retried', sk: 'TEST' };
    const applied = (token: string) =>
      new TransactWriteCommand({
        ClientRequestToken: token,
        TransactItems: [
          {
            Put: {
              TableName: table,
              Item: { ...item, v: 1 },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      });
    await single.send(applied('retried-token-1'));
    // Another transaction holds the item; the same request again (a retry whose first answer was lost).
    const holder = single.send(
      new TransactWriteCommand({
        TransactItems: [
          { ConditionCheck: { TableName: table, Key: item, ConditionExpression: 'attribute_exists(pk)' } },
        ],
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(single.send(applied('retried-token-1'))).resolves.toBeDefined();
    // A new transaction (a new token) on the held item is still cancelled.
    const other = single.send(
      new TransactWriteCommand({
        TransactItems: [
          { ConditionCheck: { TableName: table, Key: item, ConditionExpression: 'attribute_exists(pk)' } },
        ],
      }),
    );
    await expect(other).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    await holder;
    expect(singleEmulator.conflicts).toEqual({ transactions: 1, singleWrites: 0 });
    singleEmulator.remove();
    single.destroy();
  });
});

describe('token grants and key writes under DynamoDB conflicts', () => {
  it('answers 20 concurrent implicit grants for one client_id with 20 tokens', async () => {
    const store = await createTestStore();
    const results = await Promise.all(Array.from({ length: 20 }, () => implicitGrant(store.clientId)));
    expect(countStatuses(results.map((r) => r.status))).toEqual({ 200: 20 });
  });

  it('answers 10 grants and 5 renames of the same key without a 5xx, and keeps a rename', async () => {
    const store = await createTestStore();
    const admin = await tokenFor(store);
    clearAuthCache();
    // Transactions that take 25 ms, so the renames' writes land while grants hold the key.
    emulator.remove();
    emulator = emulateConflicts(getDocumentClient(), { holdMs: 25 });
    const rename = (n: number) =>
      invoke(updateKey, {
        method: 'PUT',
        path: `/v2/application-keys/${store.keyId}`,
        pathParameters: { id: store.keyId },
        headers: bearer(admin, { 'content-type': 'application/json' }),
        body: JSON.stringify({ data: { type: 'application_key', name: `renamed ${n}` } }),
      });
    // Warm: the token is cached and the handler loaded, so each rename is one read and one write.
    expect((await rename(0)).status).toBe(200);
    const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Spread over ~50 ms, interleaved, so writes of each kind land while the other kind's are in flight.
    const grants = Array.from({ length: 10 }, (_, n) =>
      later(n * 5).then(() => implicitGrant(store.clientId)),
    );
    const renames = Array.from({ length: 5 }, (_, n) => later(n * 10 + 2).then(() => rename(n)));
    const grantStatuses = (await Promise.all(grants)).map((r) => r.status);
    const renameResults = await Promise.all(renames);
    expect({
      grants: countStatuses(grantStatuses),
      renames: countStatuses(renameResults.map((r) => r.status)),
    }).toEqual({ grants: { 200: 10 }, renames: { 200: 5 } });
    const key = await applicationKeyRepository.get(store.store.id, store.keyId, true);
    expect(key?.name).toMatch(/^renamed [0-4]$/);
  });
});

describe('catalog publishes under DynamoDB conflicts', () => {
  it('lets 4 concurrent publishes to one store all finish, the registry naming one of them', async () => {
    const store = await createTestStore();
    const results = await Promise.allSettled(
      [1, 2, 3, 4].map((seed) => publishRelease(store.store.id, generateRelease({ children: 30, seed }))),
    );
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    const published = results.map((result) => (result as PromiseFulfilledResult<PublishResult>).value);
    // Each generated document is its own catalog (a new catalog id each): all four are registered, each
    // naming the release its publish reported.
    const registry = await catalogRepository.getRegistry(store.store.id);
    expect(Object.keys(registry?.catalogs ?? {}).sort()).toEqual(published.map((p) => p.catalog_id).sort());
    for (const p of published) expect(registry?.catalogs[p.catalog_id]?.release.id).toBe(p.release_id);
  }, 60_000);

  it('lets 4 publishes that reach the switch together all finish while each switch holds the registry for 150 ms', async () => {
    // The switches collide on purpose: all four wait for each other after writing their items, and each
    // switch holds the registry item for 150 ms (a slow commit). Retrying a refused switch at once spends
    // all of a publish's attempts inside the first holder's window; a backoff between attempts does not.
    emulator.remove();
    emulator = emulateConflicts(getDocumentClient(), { holdMs: 150 });
    const store = await createTestStore();
    const write = catalogRepository.writeItems.bind(catalogRepository);
    let arrived = 0;
    let release: () => void = () => undefined;
    const together = new Promise<void>((resolve) => {
      release = resolve;
    });
    const spy = jest.spyOn(catalogRepository, 'writeItems').mockImplementation(async (items, options) => {
      await write(items, options);
      arrived += 1;
      if (arrived === 4) release();
      await together;
    });
    try {
      const results = await Promise.allSettled(
        [5, 6, 7, 8].map((seed) => publishRelease(store.store.id, generateRelease({ children: 5, seed }))),
      );
      expect(results.map((result) => result.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'fulfilled',
      ]);
      expect(emulator.conflicts.transactions).toBeGreaterThan(0);
    } finally {
      spy.mockRestore();
    }
  }, 60_000);
});
