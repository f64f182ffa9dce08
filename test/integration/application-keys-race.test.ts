import fc from 'fast-check';
import { handler as createKey } from '../../functions/create-application-key/handler';
import { handler as deleteKey } from '../../functions/delete-application-key/handler';
import { handler as updateKey } from '../../functions/update-application-key/handler';
import { resetConfig } from '../../lib/config/index';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { getDocumentClient } from '../../lib/store/client';
import { QueryCommand } from '../../lib/store/dynamodb';
import { keysTable, tableName } from '../../lib/store/schema';
import { storeRepository } from '../../lib/store/store-repository';
import { type ConflictEmulator, emulateConflicts } from '../support/faults';
import { bearer, createTestStore, invoke, type TestStore, tokenFor } from '../support/fixtures';

// DynamoDB's transaction conflicts, which DynamoDB Local never shows: concurrent writes must still end
// in a success or a clean 4xx.
let conflicts: ConflictEmulator;
beforeAll(() => {
  conflicts = emulateConflicts(getDocumentClient());
});
afterAll(() => conflicts.remove());

const JSON_HEADERS = { 'content-type': 'application/json' };

type Op =
  | { kind: 'create'; reserved: number }
  | { kind: 'update'; target: number; reserved: number }
  | { kind: 'rename'; target: number }
  | { kind: 'delete'; target: number };

/** The truth, read key by key (what the counters must equal). */
async function realSums(storeId: string) {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName('keys'),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keysTable.store(storeId).pk, ':prefix': 'KEY#' },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return {
    key_count: items.length,
    reserved_rate_limit_total: items.reduce((sum, item) => sum + Number(item.reserved_rate_limit), 0),
  };
}

async function storedCounters(storeId: string) {
  const store = await storeRepository.get(storeId, true);
  return { key_count: store?.key_count, reserved_rate_limit_total: store?.reserved_rate_limit_total };
}

/** Runs all operations at once through the handlers; returns each one's status. */
async function runConcurrently(store: TestStore, token: string, targets: string[], ops: Op[]) {
  const headers = bearer(token, JSON_HEADERS);
  const results = await Promise.all(
    ops.map((op) => {
      if (op.kind === 'create') {
        return invoke(createKey, {
          method: 'POST',
          path: '/v2/application-keys',
          headers,
          body: JSON.stringify({
            data: { type: 'application_key', name: 'raced', reserved_rate_limit: op.reserved },
          }),
        });
      }
      const id = targets[op.target % targets.length] ?? store.keyId;
      const request = { path: `/v2/application-keys/${id}`, headers, pathParameters: { id } };
      if (op.kind === 'delete') return invoke(deleteKey, { method: 'DELETE', ...request });
      const data =
        op.kind === 'rename'
          ? { type: 'application_key', name: `renamed ${op.target}` }
          : { type: 'application_key', reserved_rate_limit: op.reserved };
      return invoke(updateKey, { method: 'PUT', ...request, body: JSON.stringify({ data }) });
    }),
  );
  return results.map((result) => ({ status: result.status, detail: result.body?.errors?.[0]?.detail }));
}

async function storeWithKeys(rateLimit: number, reserved: number[]) {
  const store = await createTestStore({ rate_limit: rateLimit });
  const token = await tokenFor(store);
  const targets: string[] = [];
  for (const value of reserved) {
    const { key } = await applicationKeyRepository.create(store.store.id, {
      name: 'target',
      reserved_rate_limit: value,
    });
    targets.push(key.id);
  }
  return { store, token, targets };
}

describe('application key counters under concurrent writes', () => {
  it('equal the real sums after 20 racing creates, updates and deletes', async () => {
    const { store, token, targets } = await storeWithKeys(1000, [10, 20, 30, 40, 50, 60]);
    const ops: Op[] = [
      { kind: 'create', reserved: 1 },
      { kind: 'update', target: 0, reserved: 15 },
      { kind: 'delete', target: 0 },
      { kind: 'create', reserved: 2 },
      { kind: 'update', target: 1, reserved: 5 },
      { kind: 'update', target: 1, reserved: 25 },
      { kind: 'rename', target: 1 },
      { kind: 'delete', target: 2 },
      { kind: 'delete', target: 2 },
      { kind: 'create', reserved: 3 },
      { kind: 'update', target: 3, reserved: 0 },
      { kind: 'update', target: 3, reserved: 100 },
      { kind: 'delete', target: 3 },
      { kind: 'create', reserved: 4 },
      { kind: 'rename', target: 4 },
      { kind: 'update', target: 4, reserved: 7 },
      { kind: 'create', reserved: 0 },
      { kind: 'update', target: 5, reserved: 61 },
      { kind: 'delete', target: 5 },
      { kind: 'create', reserved: 5 },
    ];
    expect(ops).toHaveLength(20);
    const results = await runConcurrently(store, token, targets, ops);

    // Every write either happened or lost cleanly to a delete of its key; none failed.
    results.forEach((result, index) => {
      const op = ops[index];
      if (op?.kind === 'create') expect(result.status).toBe(201);
      else if (op?.kind === 'delete') expect([204, 404]).toContain(result.status);
      else expect([200, 404]).toContain(result.status);
    });
    // Two deletes of key 2 raced: exactly one of them did it.
    expect([results[7]?.status, results[8]?.status].sort()).toEqual([204, 404]);

    const truth = await realSums(store.store.id);
    expect(await storedCounters(store.store.id)).toEqual(truth);
    // 1 fixture key + 6 targets + 6 creates - 4 deleted targets (0, 2, 3, 5).
    expect(truth.key_count).toBe(9);
  }, 30_000);

  it('never let racing creates reserve more than the store rate limit', async () => {
    const { store, token } = await storeWithKeys(100, []);
    const ops: Op[] = Array.from({ length: 20 }, () => ({ kind: 'create', reserved: 10 }));
    const results = await runConcurrently(store, token, [], ops);
    const created = results.filter((result) => result.status === 201);
    const refused = results.filter((result) => result.status === 409);
    expect(created).toHaveLength(10);
    expect(refused).toHaveLength(10);
    for (const result of refused)
      expect(result.detail).toBe('requested reserved rate limit will exceed the maximum');
    expect(await storedCounters(store.store.id)).toEqual({ key_count: 11, reserved_rate_limit_total: 100 });
    expect(await realSums(store.store.id)).toEqual({ key_count: 11, reserved_rate_limit_total: 100 });
  }, 30_000);

  it('never let racing creates take a store past its cap on keys, and a delete frees a place', async () => {
    const previous = process.env.MAX_KEYS_PER_STORE;
    process.env.MAX_KEYS_PER_STORE = '8';
    resetConfig();
    try {
      const { store, token } = await storeWithKeys(1000, []);
      const ops: Op[] = Array.from({ length: 20 }, () => ({ kind: 'create', reserved: 0 }));
      const results = await runConcurrently(store, token, [], ops);
      // The fixture's key and 7 of the 20: the cap holds exactly, whatever the interleaving.
      expect(results.filter((result) => result.status === 201)).toHaveLength(7);
      const refused = results.filter((result) => result.status === 409);
      expect(refused).toHaveLength(13);
      for (const result of refused) {
        expect(result.detail).toBe(
          'the store already has 8 application keys, the most it may hold: delete one before creating another',
        );
      }
      expect(await storedCounters(store.store.id)).toEqual({ key_count: 8, reserved_rate_limit_total: 0 });
      expect(await realSums(store.store.id)).toEqual({ key_count: 8, reserved_rate_limit_total: 0 });

      // A delete frees exactly one place.
      const { keys } = await applicationKeyRepository.list(store.store.id, { limit: 8, offset: 0 });
      const doomed = keys.find((key) => key.id !== store.keyId);
      if (!doomed) throw new Error('no key to delete');
      await applicationKeyRepository.delete(store.store.id, doomed.id);
      const again = await runConcurrently(store, token, [], [ops[0] as Op, ops[1] as Op]);
      expect(again.map((result) => result.status).sort()).toEqual([201, 409]);
      expect(await realSums(store.store.id)).toEqual({ key_count: 8, reserved_rate_limit_total: 0 });
    } finally {
      if (previous === undefined) delete process.env.MAX_KEYS_PER_STORE;
      else process.env.MAX_KEYS_PER_STORE = previous;
      resetConfig();
    }
  }, 30_000);

  it('equal the real sums for any mix of 20 racing writes (property)', async () => {
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('create' as const), reserved: fc.integer({ min: 0, max: 30 }) }),
      fc.record({
        kind: fc.constant('update' as const),
        target: fc.nat({ max: 4 }),
        reserved: fc.integer({ min: 0, max: 30 }),
      }),
      fc.record({ kind: fc.constant('rename' as const), target: fc.nat({ max: 4 }) }),
      fc.record({ kind: fc.constant('delete' as const), target: fc.nat({ max: 4 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 20, maxLength: 20 }), async (ops) => {
        // A tight limit, so some raises are refused while others race them.
        const { store, token, targets } = await storeWithKeys(120, [5, 10, 15, 20, 25]);
        const results = await runConcurrently(store, token, targets, ops);
        for (const result of results) {
          expect(result.status).toBeLessThan(500);
          if (result.status === 409)
            expect(result.detail).toBe('requested reserved rate limit will exceed the maximum');
        }
        const truth = await realSums(store.store.id);
        expect(await storedCounters(store.store.id)).toEqual(truth);
        expect(truth.reserved_rate_limit_total).toBeLessThanOrEqual(120);
      }),
      { numRuns: 5 },
    );
  }, 60_000);
});

describe('partial updates of one key', () => {
  it('keep every acknowledged change when a rename races a reservation change (100 trials)', async () => {
    const { store, token } = await storeWithKeys(100_000, []);
    const headers = bearer(token, JSON_HEADERS);
    const put = (id: string, data: Record<string, unknown>) =>
      invoke(updateKey, {
        method: 'PUT',
        path: `/v2/application-keys/${id}`,
        pathParameters: { id },
        headers,
        body: JSON.stringify({ data: { type: 'application_key', ...data } }),
      });
    const trial = async (n: number) => {
      const { key } = await applicationKeyRepository.create(store.store.id, {
        name: 'old',
        reserved_rate_limit: 0,
      });
      const reserved = n + 1;
      const [rename, reserve] = await Promise.all([
        put(key.id, { name: 'NEW' }),
        put(key.id, { reserved_rate_limit: reserved }),
      ]);
      const final = await applicationKeyRepository.get(store.store.id, key.id, true);
      // A 200 must show in the final state; a 409 must have changed nothing of its field.
      const nameKept = rename.status === 200 ? final?.name === 'NEW' : final?.name === 'old';
      const reservedKept =
        reserve.status === 200 ? final?.reserved_rate_limit === reserved : final?.reserved_rate_limit === 0;
      return { statuses: [rename.status, reserve.status], lost: !(nameKept && reservedKept) };
    };
    const outcomes: { statuses: number[]; lost: boolean }[] = [];
    for (let batch = 0; batch < 10; batch += 1)
      outcomes.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => trial(batch * 10 + i)))));
    for (const outcome of outcomes)
      for (const status of outcome.statuses) expect([200, 409]).toContain(status);
    expect(outcomes.filter((outcome) => outcome.lost)).toHaveLength(0);
    expect(await storedCounters(store.store.id)).toEqual(await realSums(store.store.id));
  }, 60_000);
});
