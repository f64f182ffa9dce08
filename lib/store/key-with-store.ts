import type { ApplicationKeyRecord } from './application-key-repository';
import { batchGetItems, withoutKeys } from './items';
import { keysTable } from './schema';
import type { StoreRecord } from './store-repository';

/**
 * A key and its store, read consistently in one request (one round trip, as two parallel reads take, but
 * one request: a container's first one opens one connection, not two); undefined for either when gone.
 *
 * The rate limiter's read, in every function: a module of its own, so that the functions that do not
 * manage keys do not carry the key repository's code (its writes, lists and counters) in their bundles.
 */
export async function keyWithStore(
  storeId: string,
  keyId: string,
): Promise<{ key: ApplicationKeyRecord | undefined; store: StoreRecord | undefined }> {
  const storeKey = keysTable.store(storeId);
  const keyKey = keysTable.applicationKey(storeId, keyId);
  const items = await batchGetItems('keys', [keyKey, storeKey], true);
  const store = items.find((item) => item.sk === storeKey.sk);
  const key = items.find((item) => item.sk === keyKey.sk);
  return {
    key: key && (withoutKeys(key) as unknown as ApplicationKeyRecord),
    store: store && (withoutKeys(store) as unknown as StoreRecord),
  };
}
