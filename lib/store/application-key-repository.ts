import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { generateClientId, generateClientSecret, hashSecret } from '../auth/secrets';
import { ConflictError, NotFoundError } from '../http/errors';
import { uuidv7 } from '../ids';
import { getDocumentClient } from './client';
import { keysTable, tableName } from './schema';
import { type StoreRecord, storeRepository, withoutKeys } from './store-repository';
import { cancellationCodes } from './transactions';

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
}

export const RESERVED_RATE_LIMIT_EXCEEDED = 'requested reserved rate limit will exceed the maximum';
const MAX_ATTEMPTS = 5;

/**
 * Update of the store's key counters, conditioned on the store's rate limit and current total so the
 * sum of reserved rate limits can never exceed the store's rate limit, whatever runs concurrently.
 */
export function storeCounterUpdate(store: StoreRecord, keyDelta: number, reservedDelta: number) {
  const maxBefore = store.rate_limit - reservedDelta;
  return {
    Update: {
      TableName: tableName('keys'),
      Key: keysTable.store(store.id),
      UpdateExpression: 'ADD key_count :kd, reserved_rate_limit_total :rd SET updated_at = :now',
      ConditionExpression:
        reservedDelta > 0
          ? 'attribute_exists(pk) AND rate_limit = :rl AND reserved_rate_limit_total <= :max'
          : 'attribute_exists(pk)',
      ExpressionAttributeValues: {
        ':kd': keyDelta,
        ':rd': reservedDelta,
        ':now': new Date().toISOString(),
        ...(reservedDelta > 0 ? { ':rl': store.rate_limit, ':max': maxBefore } : {}),
      },
    },
  };
}

/**
 * Runs a transaction that includes a store counter update (at `counterIndex`), retrying when the store
 * changed underneath; 409 when the reserved rate limits would exceed the store's rate limit.
 */
export async function withStoreCounters(
  storeId: string,
  reservedDelta: (store: StoreRecord) => number,
  build: (store: StoreRecord) => {
    items: NonNullable<TransactWriteCommand['input']['TransactItems']>;
    counterIndex: number;
  },
  onOtherCancellation: (codes: string[]) => Error | undefined,
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const store = await storeRepository.get(storeId, true);
    if (!store) throw new NotFoundError();
    const delta = reservedDelta(store);
    if (delta > 0 && store.reserved_rate_limit_total + delta > store.rate_limit) {
      throw new ConflictError(RESERVED_RATE_LIMIT_EXCEEDED, 'reserved_rate_limit');
    }
    const { items, counterIndex } = build(store);
    try {
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      const codes = cancellationCodes(error);
      if (!codes) throw error;
      const other = onOtherCancellation(codes);
      if (other) throw other;
      const retryable =
        codes[counterIndex] === 'ConditionalCheckFailed' || codes.includes('TransactionConflict');
      if (!retryable || attempt >= MAX_ATTEMPTS) throw new ConflictError('write conflict, please retry');
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
    );
    return { key, clientSecret };
  },

  /** The key of the store, or undefined (also for another store's key id). */
  async get(storeId: string, keyId: string, consistent = false): Promise<ApplicationKeyRecord | undefined> {
    const result = await getDocumentClient().send(
      new GetCommand({
        TableName: tableName('keys'),
        Key: keysTable.applicationKey(storeId, keyId),
        ConsistentRead: consistent,
      }),
    );
    return result.Item ? (withoutKeys(result.Item) as ApplicationKeyRecord) : undefined;
  },

  /** The client lookup item for a client id, or undefined. */
  async findClient(clientId: string): Promise<ClientRecord | undefined> {
    const result = await getDocumentClient().send(
      new GetCommand({ TableName: tableName('keys'), Key: keysTable.client(clientId), ConsistentRead: true }),
    );
    return result.Item ? (withoutKeys(result.Item) as ClientRecord) : undefined;
  },
};
