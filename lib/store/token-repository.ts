import { ServiceUnavailableError } from '../http/errors';
import { getDocumentClient } from './client';
import { BatchGetCommand, TransactWriteCommand } from './dynamodb';
import { withoutKeys } from './items';
import { keysTable, TTL_ATTRIBUTE, tableName } from './schema';
import type { StoreRecord } from './store-repository';
import { cancellationCodes } from './transactions';

export type TokenKind = 'client_credentials' | 'implicit';

export interface TokenRecord {
  store_id: string;
  key_id: string;
  kind: TokenKind;
  /** Epoch seconds after which the token is refused, whether or not TTL has removed it yet. */
  expires_at: number;
}

/** Access tokens, stored only as their SHA-256 hash, removed by DynamoDB TTL after expiry. */
export const tokenRepository = {
  /**
   * Stores a token and stamps the key's `last_used_at` in one transaction. Returns false when the key
   * no longer exists (deleted concurrently), so no token outlives its key.
   */
  async issue(tokenHash: string, token: TokenRecord, issuedAt: string): Promise<boolean> {
    try {
      await getDocumentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName('keys'),
                Item: { ...keysTable.token(tokenHash), ...token, [TTL_ATTRIBUTE]: token.expires_at },
              },
            },
            {
              Update: {
                TableName: tableName('keys'),
                Key: keysTable.applicationKey(token.store_id, token.key_id),
                UpdateExpression: 'SET last_used_at = :now',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':now': issuedAt },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      const codes = cancellationCodes(error);
      if (codes?.[1] === 'ConditionalCheckFailed') return false;
      throw error;
    }
  },

  /**
   * Reads a token, its key and its store in one consistent batch (the token names its store and key, so
   * their keys are known up front). Undefined when any of them is gone — deleting a key revokes its
   * tokens — or when the stored token does not belong to the store and key it names.
   */
  async resolve(
    tokenHash: string,
    storeId: string,
    keyId: string,
  ): Promise<{ token: TokenRecord; store: StoreRecord } | undefined> {
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
    return { token, store: withoutKeys(storeItem) as unknown as StoreRecord };
  },
};
