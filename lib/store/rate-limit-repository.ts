import { getDocumentClient } from './client';
import { GetCommand, UpdateCommand } from './dynamodb';
import { limitsTable, TTL_ATTRIBUTE, tableName } from './schema';

/** Counters of a store's one-second window: pool tokens taken, and reserved tokens taken per key. */
export interface WindowCounters {
  pool: number;
  reserved: Map<string, number>;
}

/** Windows and failure counters stay this long after they end, then DynamoDB TTL removes them. */
const KEEP_SECONDS = 120;

/** The limits table: shared rate-limit windows and failed-credential counters (docs/rate-limits.md). */
export const rateLimitRepository = {
  /**
   * Takes a lease from a store's window with one UpdateItem: adds what is asked to the window's counters
   * (unconditionally) and returns the counters after the addition, from which the caller works out what
   * it was granted (`granted` in lib/rate-limit/allowance.ts). The pool counter is always added to (0 when
   * nothing is asked) so the answer carries its current value.
   */
  async take(
    storeId: string,
    window: number,
    ask: { pool: number; reserved: ReadonlyMap<string, number> },
  ): Promise<WindowCounters> {
    const names: Record<string, string> = { '#pool': 'pool', '#ttl': TTL_ATTRIBUTE };
    const values: Record<string, number> = { ':pool': ask.pool, ':ttl': window + KEEP_SECONDS };
    const adds = ['#pool :pool'];
    const keyIds = [...ask.reserved.keys()];
    keyIds.forEach((keyId, index) => {
      names[`#r${index}`] = reservedAttribute(keyId);
      values[`:r${index}`] = ask.reserved.get(keyId) ?? 0;
      adds.push(`#r${index} :r${index}`);
    });
    const result = await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName('limits'),
        Key: limitsTable.window(storeId, window),
        UpdateExpression: `SET #ttl = :ttl ADD ${adds.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const attributes = (result.Attributes ?? {}) as Record<string, unknown>;
    const reserved = new Map<string, number>();
    for (const keyId of keyIds) reserved.set(keyId, Number(attributes[reservedAttribute(keyId)] ?? 0));
    return { pool: Number(attributes.pool ?? 0), reserved };
  },

  /** The window's counters as stored (tests and benchmarks; the limiter never reads them). */
  async read(storeId: string, window: number): Promise<WindowCounters | undefined> {
    const result = await getDocumentClient().send(
      new GetCommand({
        TableName: tableName('limits'),
        Key: limitsTable.window(storeId, window),
        ConsistentRead: true,
      }),
    );
    if (!result.Item) return undefined;
    const reserved = new Map<string, number>();
    for (const [name, value] of Object.entries(result.Item)) {
      if (name.startsWith(RESERVED_PREFIX)) reserved.set(name.slice(RESERVED_PREFIX.length), Number(value));
    }
    return { pool: Number(result.Item.pool ?? 0), reserved };
  },

  /**
   * Failed credential checks of a client id from one source address in a minute (0 when none). One
   * consistent GetItem, read beside the client lookup: it writes nothing.
   */
  async failedAttempts(clientId: string, source: string, minute: number): Promise<number> {
    const result = await getDocumentClient().send(
      new GetCommand({
        TableName: tableName('limits'),
        Key: limitsTable.failures(clientId, source, minute),
        ConsistentRead: true,
      }),
    );
    return Number(result.Item?.attempts ?? 0);
  },

  /**
   * Counts one failed credential check of a known client id from one source address: adds 1 to the
   * minute's counter unless it already holds `max`. False when it was full (the caller is over its limit).
   */
  async recordFailure(clientId: string, source: string, minute: number, max: number): Promise<boolean> {
    try {
      await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName('limits'),
          Key: limitsTable.failures(clientId, source, minute),
          UpdateExpression: 'SET #ttl = :ttl ADD attempts :one',
          ConditionExpression: 'attribute_not_exists(attempts) OR attempts < :max',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':one': 1, ':max': max, ':ttl': minute * 60 + KEEP_SECONDS },
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  },
};

const RESERVED_PREFIX = 'r_';

/** The window attribute counting a key's reserved tokens. */
function reservedAttribute(keyId: string): string {
  return `${RESERVED_PREFIX}${keyId}`;
}
