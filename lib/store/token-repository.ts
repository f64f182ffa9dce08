import { getDocumentClient } from './client';
import { BatchGetCommand, GetCommand, TransactWriteCommand } from './dynamodb';
import { keysTable, TTL_ATTRIBUTE, tableName } from './schema';
import type { StoreRecord } from './store-repository';
import { withoutKeys } from './store-repository';
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
   * Reads a token by hash, then (in one batch) its key and store. Undefined when the token, its key or its
   * store is gone: deleting a key revokes its tokens.
   */
  async resolve(tokenHash: string): Promise<{ token: TokenRecord; store: StoreRecord } | undefined> {
    const client = getDocumentClient();
    const table = tableName('keys');
    const found = await client.send(
      new GetCommand({ TableName: table, Key: keysTable.token(tokenHash), ConsistentRead: true }),
    );
    if (!found.Item) return undefined;
    const token = withoutKeys(found.Item) as TokenRecord & { ttl?: number };
    delete token.ttl;
    const batch = await client.send(
      new BatchGetCommand({
        RequestItems: {
          [table]: {
            Keys: [keysTable.applicationKey(token.store_id, token.key_id), keysTable.store(token.store_id)],
            ConsistentRead: true,
            ProjectionExpression:
              'pk, sk, id, #n, rate_limit, page_length, currencies, default_locale, mapping_id, key_count, reserved_rate_limit_total, created_at, updated_at',
            ExpressionAttributeNames: { '#n': 'name' },
          },
        },
      }),
    );
    const items = batch.Responses?.[table] ?? [];
    const keyItem = items.find((item) => item.sk !== 'STORE');
    const storeItem = items.find((item) => item.sk === 'STORE');
    if (!keyItem || !storeItem) return undefined;
    return { token, store: withoutKeys(storeItem) as StoreRecord };
  },
};
