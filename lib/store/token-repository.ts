import { ServiceUnavailableError } from '../http/errors';
import { log } from '../http/log';
import { getDocumentClient } from './client';
import { BatchGetCommand, PutCommand, UpdateCommand } from './dynamodb';
import { withoutKeys } from './items';
import { keysTable, TTL_ATTRIBUTE, tableName } from './schema';
import type { StoreRecord } from './store-repository';

export type TokenKind = 'client_credentials' | 'implicit';

export interface TokenRecord {
  store_id: string;
  key_id: string;
  kind: TokenKind;
  /** Epoch seconds after which the token is refused, whether or not TTL has removed it yet. */
  expires_at: number;
}

/** `last_used_at` is written at most this often per key (see `stampLastUsed`). */
export const LAST_USED_PRECISION_MS = 60_000;
/** Keys this container stamped recently, by `store|key`, with when (bounded: oldest dropped first). */
const recentStamps = new Map<string, number>();
const MAX_RECENT_STAMPS = 10_000;

/** Forgets which keys this container stamped (tests). */
export function clearLastUsedStamps(): void {
  recentStamps.clear();
}

/**
 * Sets the key's `last_used_at` to `issuedAt` unless it was set less than a minute before — checked in
 * this container first (no request at all), then by the write's own condition (other containers) — so
 * token requests for one key cost at most one write to the key item a minute, outside the token's own
 * write: the shoppers of a storefront, who all ask with the same client id, never queue on the key
 * item. Best effort: a lost race, a throttled or conflicting write or a concurrently deleted key only
 * leaves the older stamp, so `last_used_at` is at most a minute behind the last issue (more only while
 * DynamoDB refuses the write).
 */
async function stampLastUsed(storeId: string, keyId: string, issuedAt: string): Promise<void> {
  const id = `${storeId}|${keyId}`;
  const nowMs = Date.parse(issuedAt);
  const last = recentStamps.get(id);
  if (last !== undefined && nowMs - last < LAST_USED_PRECISION_MS) return;
  recentStamps.delete(id);
  recentStamps.set(id, nowMs);
  if (recentStamps.size > MAX_RECENT_STAMPS) {
    const oldest = recentStamps.keys().next().value;
    if (oldest !== undefined) recentStamps.delete(oldest);
  }
  try {
    await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName('keys'),
        Key: keysTable.applicationKey(storeId, keyId),
        UpdateExpression: 'SET last_used_at = :now',
        // ISO-8601 UTC stamps order as strings; a new key holds null until its first token.
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_type(last_used_at, :null) OR last_used_at <= :cutoff)',
        ExpressionAttributeValues: {
          ':now': issuedAt,
          ':null': 'NULL',
          ':cutoff': new Date(nowMs - LAST_USED_PRECISION_MS).toISOString(),
        },
      }),
    );
  } catch (error) {
    log('debug', 'last_used_at not stamped', { reason: (error as Error).name });
  }
}

/** Access tokens, stored only as their SHA-256 hash, removed by DynamoDB TTL after expiry. */
export const tokenRepository = {
  /**
   * Stores a token (one single-item write of its own item, so concurrent grants for one key never
   * conflict) and, alongside, stamps the key's `last_used_at` (best effort, at most once a minute per
   * key). A token whose key is deleted meanwhile never resolves: `resolve` needs the key item.
   */
  async issue(tokenHash: string, token: TokenRecord, issuedAt: string): Promise<void> {
    await Promise.all([
      getDocumentClient().send(
        new PutCommand({
          TableName: tableName('keys'),
          Item: { ...keysTable.token(tokenHash), ...token, [TTL_ATTRIBUTE]: token.expires_at },
        }),
      ),
      stampLastUsed(token.store_id, token.key_id, issuedAt),
    ]);
  },

  /**
   * Reads a token, its key and its store in one consistent batch (the token names its store and key, so
   * their keys are known up front), with the key's reservation (the rate limiter's limits come from the
   * same read). Undefined when any of them is gone — deleting a key revokes its
   * tokens — or when the stored token does not belong to the store and key it names.
   */
  async resolve(
    tokenHash: string,
    storeId: string,
    keyId: string,
  ): Promise<{ token: TokenRecord; store: StoreRecord; reservedRateLimit: number } | undefined> {
    const table = tableName('keys');
    let keys: Record<string, unknown>[] = [
      keysTable.token(tokenHash),
      keysTable.applicationKey(storeId, keyId),
      keysTable.store(storeId),
    ];
    const items: Record<string, unknown>[] = [];
    for (let attempt = 1; keys.length > 0; attempt += 1) {
      if (attempt > 3) throw new ServiceUnavailableError();
      const batch = await getDocumentClient().send(
        new BatchGetCommand({ RequestItems: { [table]: { Keys: keys, ConsistentRead: true } } }),
      );
      items.push(...(batch.Responses?.[table] ?? []));
      keys = (batch.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, unknown>[];
    }
    const tokenItem = items.find((item) => item.sk === 'TOKEN');
    const keyItem = items.find(
      (item) => typeof item.sk === 'string' && item.sk.startsWith(keysTable.applicationKeyPrefix),
    );
    const storeItem = items.find((item) => item.sk === 'STORE');
    if (!tokenItem || !keyItem || !storeItem) return undefined;
    const { ttl: _ttl, ...token } = withoutKeys(tokenItem) as unknown as TokenRecord & { ttl?: number };
    if (token.store_id !== storeId || token.key_id !== keyId) return undefined;
    return {
      token,
      store: withoutKeys(storeItem) as unknown as StoreRecord,
      reservedRateLimit: Number(keyItem.reserved_rate_limit ?? 0),
    };
  },
};
