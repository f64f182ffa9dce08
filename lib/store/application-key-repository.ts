import { generateClientId, generateClientSecret, hashSecret } from '../auth/secrets';
import { getConfig } from '../config';
import { ConflictError, NotFoundError, WRITE_CONFLICT } from '../http/errors';
import { uuidv7 } from '../ids';
import { CallerRevokedError, isCallerKey, type WriteCaller, withCallerChecks } from './caller-check';
import { getDocumentClient } from './client';
import { TransactWriteCommand, UpdateCommand } from './dynamodb';
import { batchGetItems, getRecord, queryAll, queryPage, withoutKeys } from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import { keysTable, tableName } from './schema';
import { type StoreRecord, storeRepository } from './store-repository';
import { firstRoundRead } from './transact-retrying';
import { cancellationCodes, throttledCancellation } from './transactions';

export interface ApplicationKeyRecord {
  id: string;
  store_id: string;
  name: string;
  client_id: string;
  reserved_rate_limit: number;
  created_at: string;
  updated_at: string;
  /** When a token was last issued for this key; null before the first. */
  last_used_at: string | null;
}

export interface ClientRecord {
  client_id: string;
  store_id: string;
  key_id: string;
  secret_hash: string;
  /**
   * The last minute (epoch minutes) in which a secret for this client id failed its comparison, from any
   * address; absent before the first failure. A grant reads the failed-attempt counters only when it is
   * the current minute, so a correct secret costs no read of the limits table otherwise.
   */
  failed_minute?: number;
}

/** A page of a store's keys with the store's counters, read fresh (not from the auth cache). */
export interface ApplicationKeyPage {
  keys: ApplicationKeyRecord[];
  /** Number of keys in the store (the store's `key_count` counter). */
  total: number;
  /** Sum of the reserved rate limits of all the store's keys (the store's counter). */
  reservedRateLimitTotal: number;
}

/** Fields an update may change; at least one is present. */
export interface ApplicationKeyChanges {
  name?: string;
  reserved_rate_limit?: number;
}

export const RESERVED_RATE_LIMIT_EXCEEDED = 'requested reserved rate limit will exceed the maximum';

/** The 409 for a key past the store's cap on keys (`MAX_KEYS_PER_STORE`). */
export function keyCapReached(): ConflictError {
  const cap = getConfig().maxKeysPerStore;
  return new ConflictError(
    `the store already has ${cap} application keys, the most it may hold: delete one before creating another`,
  );
}
/**
 * Attempts of one key write. Every key write of a store also updates the store's counter item, so a
 * burst of admin writes to one store conflicts on it (DynamoDB cancels all but one transaction holding
 * it); 16 attempts with the backoff below let 20 simultaneous writers through (see the race tests, which
 * run with DynamoDB's conflicts emulated); past that the caller gets 409 "write conflict" with nothing
 * written.
 */
const MAX_ATTEMPTS = 16;
/** First retry delay; doubles per attempt (capped), with full jitter so racing writers spread out. */
const RETRY_BASE_MS = 5;
const RETRY_CAP_MS = 250;

function backoff(attempt: number): Promise<void> {
  const ceiling = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (attempt - 1));
  return new Promise((done) => setTimeout(done, Math.random() * ceiling));
}

/** Thrown inside a counter transaction when the key item changed underneath: re-read the key and retry. */
class KeyChangedError extends Error {
  override name = 'KeyChangedError';
}

/**
 * Update of the store's key counters, conditioned on the store's rate limit and current total so the
 * sum of reserved rate limits can never exceed the store's rate limit, and, when it adds a key, on the
 * key count staying under the store's cap (`MAX_KEYS_PER_STORE`), whatever runs concurrently.
 */
export function storeCounterUpdate(store: StoreRecord, keyDelta: number, reservedDelta: number) {
  const conditions = ['attribute_exists(pk)'];
  const values: Record<string, unknown> = {
    ':kd': keyDelta,
    ':rd': reservedDelta,
    ':now': new Date().toISOString(),
  };
  if (reservedDelta > 0) {
    conditions.push('rate_limit = :rl', 'reserved_rate_limit_total <= :max');
    values[':rl'] = store.rate_limit;
    values[':max'] = store.rate_limit - reservedDelta;
  }
  if (keyDelta > 0) {
    conditions.push('key_count <= :max_keys');
    values[':max_keys'] = getConfig().maxKeysPerStore - keyDelta;
  }
  return {
    Update: {
      TableName: tableName('keys'),
      Key: keysTable.store(store.id),
      UpdateExpression: 'ADD key_count :kd, reserved_rate_limit_total :rd SET updated_at = :now',
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * Runs a transaction that includes a store counter update (at `counterIndex`, adding `keyDelta` keys),
 * retrying when the store changed underneath; 409 when the reserved rate limits would exceed the store's
 * rate limit or the store's keys its cap. With a
 * `caller`, the transaction also checks the caller's token and key (`CallerRevokedError` when gone).
 */
export async function withStoreCounters(
  storeId: string,
  keyDelta: number,
  reservedDelta: (store: StoreRecord) => number,
  build: (store: StoreRecord) => {
    items: NonNullable<TransactWriteCommand['input']['TransactItems']>;
    counterIndex: number;
  },
  onOtherCancellation: (codes: string[]) => Error | undefined,
  caller?: WriteCaller,
  writesCallerKey = false,
): Promise<void> {
  // The caller's store as its token check read it in this request, when it did, serves the first round.
  const readStore = firstRoundRead(caller?.storeId === storeId ? caller.store : undefined, () =>
    storeRepository.get(storeId, true),
  );
  for (let attempt = 1; ; attempt += 1) {
    const store = await readStore();
    if (!store) throw new NotFoundError();
    const delta = reservedDelta(store);
    if (delta > 0 && store.reserved_rate_limit_total + delta > store.rate_limit) {
      throw new ConflictError(RESERVED_RATE_LIMIT_EXCEEDED, 'reserved_rate_limit');
    }
    if (keyDelta > 0 && store.key_count + keyDelta > getConfig().maxKeysPerStore) throw keyCapReached();
    const built = build(store);
    const { items, revoked } = withCallerChecks(built.items, caller, writesCallerKey);
    const { counterIndex } = built;
    try {
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      const codes = cancellationCodes(error);
      // Throttled: nothing was written and retrying now would not help; the caller gets a 503.
      if (!codes || throttledCancellation(codes)) throw error;
      if (revoked(codes)) throw new CallerRevokedError();
      const other = onOtherCancellation(codes);
      if (other) throw other;
      const retryable =
        codes[counterIndex] === 'ConditionalCheckFailed' || codes.includes('TransactionConflict');
      if (!retryable || attempt >= MAX_ATTEMPTS) throw new ConflictError(WRITE_CONFLICT);
      await backoff(attempt);
    }
  }
}

/**
 * Runs `write` against a fresh (consistent) read of the key; when the key changed between the read and
 * the write (`KeyChangedError`), reads it again and retries. 404 when the key does not exist, unless it is
 * the caller's own key: then the caller's credentials are gone (`CallerRevokedError`).
 */
async function withCurrentKey<T>(
  storeId: string,
  keyId: string,
  write: (key: ApplicationKeyRecord) => Promise<T>,
  caller?: WriteCaller,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const key = await applicationKeyRepository.get(storeId, keyId, true);
    if (!key) throw isCallerKey(caller, storeId, keyId) ? new CallerRevokedError() : new NotFoundError();
    try {
      return await write(key);
    } catch (error) {
      if (!(error instanceof KeyChangedError)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw new ConflictError(WRITE_CONFLICT);
      await backoff(attempt);
    }
  }
}

/** Condition on a key item: it exists and still reserves what the caller read (no counter drift). */
function keyUnchanged(key: ApplicationKeyRecord) {
  return {
    ConditionExpression: 'attribute_exists(pk) AND reserved_rate_limit = :old_reserved',
    ExpressionAttributeValues: { ':old_reserved': key.reserved_rate_limit },
  };
}

/** Maps a cancellation of a key write: the key item (at `keyIndex`) failing its condition means it changed. */
function keyChangedAt(keyIndex: number) {
  return (codes: string[]): Error | undefined =>
    codes[keyIndex] === 'ConditionalCheckFailed' ? new KeyChangedError() : undefined;
}

function isConditionFailure(error: unknown): boolean {
  return (error as Error | undefined)?.name === 'ConditionalCheckFailedException';
}

/** `SET` clauses for exactly the fields named in `changes`, plus `updated_at`. */
function keyFieldUpdate(changes: ApplicationKeyChanges, now: string) {
  const sets = ['updated_at = :now'];
  const values: Record<string, unknown> = { ':now': now };
  let names: Record<string, string> | undefined;
  if (changes.name !== undefined) {
    // `name` is a DynamoDB reserved word.
    sets.push('#name = :name');
    names = { '#name': 'name' };
    values[':name'] = changes.name;
  }
  if (changes.reserved_rate_limit !== undefined) {
    sets.push('reserved_rate_limit = :reserved');
    values[':reserved'] = changes.reserved_rate_limit;
  }
  return {
    UpdateExpression: `SET ${sets.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * Condition on a key item for an update made from a read of it: it exists and the fields a write sets
 * (name, reserved rate limit) are still as read. The answer, that read with the write's own fields over
 * it, is then the key exactly as the write left it, and a reservation change moves the store's total by
 * the right difference. When another write got in between, the update is refused and the key re-read.
 */
function keyFieldsUnchanged(key: ApplicationKeyRecord) {
  return {
    ConditionExpression: 'attribute_exists(pk) AND reserved_rate_limit = :old_reserved AND #name = :old_name',
    ExpressionAttributeNames: { '#name': 'name' },
    ExpressionAttributeValues: { ':old_reserved': key.reserved_rate_limit, ':old_name': key.name },
  };
}

/** The key item's update for `changes`, made from the read `key` (see `keyFieldsUnchanged`). */
function keyFieldsUpdate(
  storeId: string,
  keyId: string,
  key: ApplicationKeyRecord,
  changes: ApplicationKeyChanges,
  now: string,
) {
  const set = keyFieldUpdate(changes, now);
  const unchanged = keyFieldsUnchanged(key);
  return {
    TableName: tableName('keys'),
    Key: keysTable.applicationKey(storeId, keyId),
    UpdateExpression: set.UpdateExpression,
    ConditionExpression: unchanged.ConditionExpression,
    ExpressionAttributeNames: { ...set.ExpressionAttributeNames, ...unchanged.ExpressionAttributeNames },
    ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ...unchanged.ExpressionAttributeValues },
  };
}

/** The key as a write of `changes` at `now` left it, from the read the write was conditioned on. */
function asWritten(
  key: ApplicationKeyRecord,
  changes: ApplicationKeyChanges,
  now: string,
): ApplicationKeyRecord {
  const written = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  return { ...key, ...written, updated_at: now };
}

/**
 * A key update that leaves the store's counters alone: one `UpdateItem` without a caller; with one, a
 * transaction that also checks the caller's token and key (retried while concurrent transactions hold one
 * of its items), so nothing is written once the caller's key is deleted. `KeyChangedError` when the key
 * is gone or changed since it was read.
 */
async function updateKeyFields(
  update: ReturnType<typeof keyFieldsUpdate>,
  caller: WriteCaller | undefined,
  own: boolean,
): Promise<void> {
  if (!caller) {
    try {
      await getDocumentClient().send(new UpdateCommand(update));
      return;
    } catch (error) {
      if (isConditionFailure(error)) throw new KeyChangedError();
      throw error;
    }
  }
  const { items, revoked } = withCallerChecks([{ Update: update }], caller, own);
  for (let attempt = 1; ; attempt += 1) {
    try {
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      const codes = cancellationCodes(error);
      if (!codes || throttledCancellation(codes)) throw error;
      if (revoked(codes)) throw new CallerRevokedError();
      if (codes[0] === 'ConditionalCheckFailed') throw new KeyChangedError();
      if (!codes.includes('TransactionConflict') || attempt >= MAX_ATTEMPTS) {
        throw new ConflictError(WRITE_CONFLICT);
      }
      await backoff(attempt);
    }
  }
}

/** Application keys and their client-id lookup items, in the keys table. */
export const applicationKeyRepository = {
  /**
   * Creates a key, its client lookup and bumps the store's counters in one transaction.
   * Returns the key and its client secret (the only time the secret exists in clear).
   */
  async create(
    storeId: string,
    input: { name: string; reserved_rate_limit: number },
    /** Fixed credentials, only for the local demo seed (so its printed credentials stay valid). */
    fixed?: { id: string; client_id: string; client_secret: string },
    /** The API caller, whose token and key the transaction checks (`CallerRevokedError` when gone). */
    caller?: WriteCaller,
  ): Promise<{ key: ApplicationKeyRecord; clientSecret: string }> {
    const now = new Date().toISOString();
    const clientSecret = fixed?.client_secret ?? generateClientSecret();
    const key: ApplicationKeyRecord = {
      id: fixed?.id ?? uuidv7(),
      store_id: storeId,
      name: input.name,
      client_id: fixed?.client_id ?? generateClientId(),
      reserved_rate_limit: input.reserved_rate_limit,
      created_at: now,
      updated_at: now,
      last_used_at: null,
    };
    const client: ClientRecord = {
      client_id: key.client_id,
      store_id: storeId,
      key_id: key.id,
      secret_hash: hashSecret(clientSecret),
    };
    await withStoreCounters(
      storeId,
      1,
      () => input.reserved_rate_limit,
      (store) => ({
        counterIndex: 0,
        items: [
          storeCounterUpdate(store, 1, input.reserved_rate_limit),
          {
            Put: {
              TableName: tableName('keys'),
              Item: { ...keysTable.applicationKey(storeId, key.id), ...key },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName('keys'),
              Item: { ...keysTable.client(client.client_id), ...client },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
      () => undefined,
      caller,
    );
    return { key, clientSecret };
  },

  /** The key of the store, or undefined (also for another store's key id). */
  get(storeId: string, keyId: string, consistent = false): Promise<ApplicationKeyRecord | undefined> {
    return getRecord<ApplicationKeyRecord>('keys', keysTable.applicationKey(storeId, keyId), consistent);
  },

  /**
   * A page of the store's keys in creation order (sort keys hold time-ordered UUID v7 ids), read in
   * parallel with the store item whose counters give the totals. Skipping `offset` keys is a COUNT query
   * (no items transferred); its cost grows with the offset (at most 10,000), not with the store's size.
   */
  async list(storeId: string, page: { limit: number; offset: number }): Promise<ApplicationKeyPage> {
    const [store, keys] = await Promise.all([
      storeRepository.get(storeId, true),
      listKeys(storeId, page.limit, page.offset),
    ]);
    if (!store) throw new NotFoundError();
    return { keys, total: store.key_count, reservedRateLimitTotal: store.reserved_rate_limit_total };
  },

  /**
   * A page of the store's keys that pass `matches`, in creation order, with the number of them as `total`
   * (the reserved total stays the store's). With `clientIds` only those clients' keys are read (two batched
   * reads, whatever the store's size); without, every key of the store is read (one query per 1 MB).
   */
  async listMatching(
    storeId: string,
    lookup: { clientIds?: string[]; matches: (key: ApplicationKeyRecord) => boolean },
    page: { limit: number; offset: number },
  ): Promise<ApplicationKeyPage> {
    const [store, keys] = await Promise.all([
      storeRepository.get(storeId, true),
      lookup.clientIds === undefined ? allKeys(storeId) : keysOfClients(storeId, lookup.clientIds),
    ]);
    if (!store) throw new NotFoundError();
    const matching = keys.filter(lookup.matches).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return {
      keys: matching.slice(page.offset, page.offset + page.limit),
      total: matching.length,
      reservedRateLimitTotal: store.reserved_rate_limit_total,
    };
  },

  /**
   * Changes only the fields `changes` names, written from a consistent read of the key and conditioned
   * on the fields a write sets being still as read (re-read and retried otherwise, so concurrent updates
   * of different fields all land). A changed reserved rate limit moves the store's total by the
   * difference in the same transaction, so the counter stays exact; 409 when the total would exceed the
   * store's rate limit; 404 when the key does not exist. Returns the key exactly as this write left it
   * (never another request's change, and never a 404 for a write that took effect because the key was
   * deleted right after it). With a `caller`, every write also checks the caller's token and key.
   */
  async update(
    storeId: string,
    keyId: string,
    changes: ApplicationKeyChanges,
    caller?: WriteCaller,
  ): Promise<ApplicationKeyRecord> {
    const reserved = changes.reserved_rate_limit;
    const own = isCallerKey(caller, storeId, keyId);
    return withCurrentKey(
      storeId,
      keyId,
      async (key) => {
        const now = new Date().toISOString();
        const update = keyFieldsUpdate(storeId, keyId, key, changes, now);
        const delta = reserved === undefined ? 0 : reserved - key.reserved_rate_limit;
        if (delta === 0) {
          // The counters stay as they are; the condition pins the reservation they were computed from.
          await updateKeyFields(update, caller, own);
        } else {
          await withStoreCounters(
            storeId,
            0,
            () => delta,
            (store) => ({
              counterIndex: 0,
              items: [storeCounterUpdate(store, 0, delta), { Update: update }],
            }),
            keyChangedAt(1),
            caller,
            own,
          );
        }
        return asWritten(key, changes, now);
      },
      caller,
    );
  },

  /**
   * Deletes a key, its client lookup item (so its credentials stop working at once) and takes it off the
   * store's counters, in one transaction. Its tokens stop resolving because the key item is gone.
   * 404 when the key does not exist. With a `caller`, the transaction also checks the caller's token and key.
   */
  async delete(storeId: string, keyId: string, caller?: WriteCaller): Promise<void> {
    const own = isCallerKey(caller, storeId, keyId);
    await withCurrentKey(
      storeId,
      keyId,
      (key) =>
        withStoreCounters(
          storeId,
          -1,
          () => -key.reserved_rate_limit,
          (store) => ({
            counterIndex: 0,
            items: [
              storeCounterUpdate(store, -1, -key.reserved_rate_limit),
              {
                Delete: {
                  TableName: tableName('keys'),
                  Key: keysTable.applicationKey(storeId, keyId),
                  ...keyUnchanged(key),
                },
              },
              { Delete: { TableName: tableName('keys'), Key: keysTable.client(key.client_id) } },
            ],
          }),
          keyChangedAt(1),
          caller,
          own,
        ),
      caller,
    );
  },

  /** The client lookup item for a client id, or undefined. */
  findClient(clientId: string): Promise<ClientRecord | undefined> {
    return getRecord<ClientRecord>('keys', keysTable.client(clientId), true);
  },

  /**
   * Marks `minute` as one in which a secret for this client id failed (`failed_minute`), forward only: an
   * earlier minute never overwrites a later one. Written before the minute's first failure is counted, so
   * any grant that could see the counter sees the mark. Nothing happens when the client is gone.
   */
  async markFailedMinute(clientId: string, minute: number): Promise<void> {
    try {
      await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName('keys'),
          Key: keysTable.client(clientId),
          UpdateExpression: 'SET failed_minute = :minute',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(failed_minute) OR failed_minute < :minute)',
          ExpressionAttributeValues: { ':minute': minute },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  },
};

/** The store's keys of these clients (other stores' clients and unknown ids are left out). */
async function keysOfClients(storeId: string, clientIds: string[]): Promise<ApplicationKeyRecord[]> {
  if (clientIds.length === 0) return [];
  const clients = await batchGetItems('keys', [...new Set(clientIds)].map(keysTable.client), true);
  const keyIds = clients
    .filter((client) => client.store_id === storeId)
    .map((client) => client.key_id as string);
  if (keyIds.length === 0) return [];
  const items = await batchGetItems(
    'keys',
    keyIds.map((keyId) => keysTable.applicationKey(storeId, keyId)),
    true,
  );
  return items.map((item) => withoutKeys(item) as unknown as ApplicationKeyRecord);
}

/** The query of a store's keys in creation order (strongly consistent). */
function keysQuery(storeId: string) {
  return {
    TableName: tableName('keys'),
    KeyConditionExpression: SK_PREFIX_CONDITION,
    ExpressionAttributeValues: {
      ':pk': keysTable.store(storeId).pk,
      ...skPrefix(keysTable.applicationKeyPrefix),
    },
    ConsistentRead: true,
  };
}

/** Every key of the store, in creation order. */
async function allKeys(storeId: string): Promise<ApplicationKeyRecord[]> {
  return (await queryAll(keysQuery(storeId))).map(
    (item) => withoutKeys(item) as unknown as ApplicationKeyRecord,
  );
}

/** The keys of a store from position `offset` on, at most `limit`, in sort-key (creation) order. */
async function listKeys(storeId: string, limit: number, offset: number): Promise<ApplicationKeyRecord[]> {
  const items = await queryPage(keysQuery(storeId), { limit, offset });
  return items.map((item) => withoutKeys(item) as unknown as ApplicationKeyRecord);
}
