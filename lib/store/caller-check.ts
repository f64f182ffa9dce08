import { getDocumentClient } from './client';
import { GetCommand, TransactWriteCommand } from './dynamodb';
import { keysTable, tableName } from './schema';
import type { StoreRecord } from './store-repository';
import { cancellationCodes } from './transactions';

type TransactItems = NonNullable<TransactWriteCommand['input']['TransactItems']>;

/** Who is writing: the store and key the caller's token belongs to, and the token's hash. */
export interface WriteCaller {
  storeId: string;
  keyId: string;
  tokenHash: string;
  /**
   * The caller's store as this request's own token check read it (consistently), when it read it (not from
   * the container's token cache): a write that reads the store first may start from it (withStoreCounters).
   */
  store?: StoreRecord;
}

/**
 * Thrown by a repository write when the caller's token or key was gone (or the token expired) at the
 * moment of the write: the transaction applied nothing. The HTTP layer answers 401.
 */
export class CallerRevokedError extends Error {
  override name = 'CallerRevokedError';
}

/**
 * The `ConditionCheck` items that make a write transaction apply only while the caller's token item
 * exists, is unexpired and still names its store and key, and the caller's key item exists. Deleting a
 * key therefore stops its tokens' writes at the moment the delete commits, whatever a container cached,
 * at no extra round trip. A transaction may touch an item only once: when it already writes the caller's
 * key item (a key updating or deleting itself), pass `writesCallerKey` and condition that write on the
 * key's existence instead.
 */
export function callerChecks(caller: WriteCaller, writesCallerKey = false, now = Date.now()): TransactItems {
  const table = tableName('keys');
  const checks: TransactItems = [
    {
      ConditionCheck: {
        TableName: table,
        Key: keysTable.token(caller.tokenHash),
        ConditionExpression: 'store_id = :store AND key_id = :key AND expires_at > :now',
        ExpressionAttributeValues: {
          ':store': caller.storeId,
          ':key': caller.keyId,
          ':now': Math.floor(now / 1000),
        },
      },
    },
  ];
  if (!writesCallerKey) {
    checks.push({
      ConditionCheck: {
        TableName: table,
        Key: keysTable.applicationKey(caller.storeId, caller.keyId),
        ConditionExpression: 'attribute_exists(pk)',
      },
    });
  }
  return checks;
}

/**
 * `items` with the caller's checks appended (so the indices of `items` in the cancellation reasons do
 * not move), and a reader telling from a cancellation's codes whether a caller check failed.
 */
export function withCallerChecks(
  items: TransactItems,
  caller: WriteCaller | undefined,
  writesCallerKey = false,
): { items: TransactItems; revoked: (codes: readonly string[]) => boolean } {
  if (!caller) return { items, revoked: () => false };
  const from = items.length;
  return {
    items: [...items, ...callerChecks(caller, writesCallerKey)],
    revoked: (codes) => codes.slice(from).includes('ConditionalCheckFailed'),
  };
}

/**
 * Runs a write transaction with the caller's checks (none without a caller): undefined when it applied,
 * its cancellation codes when a condition of `items` refused it; CallerRevokedError when a caller check did.
 */
export async function transactAsCaller(
  items: TransactItems,
  caller: WriteCaller | undefined,
): Promise<string[] | undefined> {
  const checked = withCallerChecks(items, caller);
  try {
    await getDocumentClient().send(new TransactWriteCommand({ TransactItems: checked.items }));
    return undefined;
  } catch (error) {
    const codes = cancellationCodes(error);
    if (!codes) throw error;
    if (checked.revoked(codes)) throw new CallerRevokedError();
    return codes;
  }
}

/** True when the key at (`storeId`, `keyId`) is the caller's own key. */
export function isCallerKey(caller: WriteCaller | undefined, storeId: string, keyId: string): boolean {
  return caller !== undefined && caller.storeId === storeId && caller.keyId === keyId;
}

/**
 * For a write that turns out to change nothing (the same prefix again), where no transaction carries the
 * caller's checks: strongly consistent reads of the caller's token and key, `CallerRevokedError` when
 * either is gone (or the token expired), so a deleted key's token never gets a write route's 200.
 */
export async function assertCallerExists(caller: WriteCaller, now = Date.now()): Promise<void> {
  const [token, key] = await Promise.all([
    getDocumentClient().send(
      new GetCommand({
        TableName: tableName('keys'),
        Key: keysTable.token(caller.tokenHash),
        ConsistentRead: true,
      }),
    ),
    readApplicationKey(caller.storeId, caller.keyId),
  ]);
  const item = token.Item;
  const valid =
    item !== undefined &&
    item.store_id === caller.storeId &&
    item.key_id === caller.keyId &&
    typeof item.expires_at === 'number' &&
    item.expires_at > Math.floor(now / 1000) &&
    key.Item !== undefined;
  if (!valid) throw new CallerRevokedError();
}

/**
 * True while the application key (`storeId`, `keyId`) exists (a strongly consistent read): for what a key
 * asked for that outlives its request, such as a pre-signed upload URL, which must not be taken in once the
 * key that asked for it was deleted.
 */
export async function applicationKeyExists(storeId: string, keyId: string): Promise<boolean> {
  return (await readApplicationKey(storeId, keyId)).Item !== undefined;
}

function readApplicationKey(storeId: string, keyId: string) {
  return getDocumentClient().send(
    new GetCommand({
      TableName: tableName('keys'),
      Key: keysTable.applicationKey(storeId, keyId),
      ConsistentRead: true,
    }),
  );
}
