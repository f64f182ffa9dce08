import { setTimeout as sleep } from 'node:timers/promises';
import type { AuthContext } from '../auth/authenticate';
import { ConflictError, NotFoundError, ServiceUnavailableError, WRITE_CONFLICT } from '../http/errors';
import { assertCallerExists, CallerRevokedError, type WriteCaller } from '../store/caller-check';
import { type MappingRecord, mappingRepository } from '../store/mapping-repository';
import { type MappingUpdateRequest, MERCHANT_REALM_MAPPING_TYPE } from '../validation/merchant-realm-mapping';

export const PREFIX_IN_USE = 'the prefix is already in use';
export { WRITE_CONFLICT };

/** Attempts of one prefix change before giving up with 409 "write conflict". */
const MAX_ATTEMPTS = 5;

/** The mapping as the API shows it. */
export interface MappingResource {
  id: string;
  type: typeof MERCHANT_REALM_MAPPING_TYPE;
  prefix: string | null;
  realm_id: string;
  store_id: string;
}

/** Renders a stored mapping as the API resource. */
export function renderMapping(mapping: MappingRecord): MappingResource {
  return {
    id: mapping.id,
    type: MERCHANT_REALM_MAPPING_TYPE,
    prefix: mapping.prefix,
    realm_id: mapping.realm_id,
    store_id: mapping.store_id,
  };
}

/** The caller's store's mapping; 404 for any other id (another store's or unknown: never says which). */
export async function getStoreMapping(
  auth: AuthContext,
  mappingId = auth.store.mapping_id,
): Promise<MappingRecord> {
  if (mappingId !== auth.store.mapping_id) throw new NotFoundError();
  const mapping = await mappingRepository.get(mappingId, true);
  if (!mapping || mapping.store_id !== auth.storeId) throw new NotFoundError();
  return mapping;
}

/** Random back-off between attempts so writers racing on one mapping spread out. */
function backoff(attempt: number): Promise<void> {
  return sleep(Math.floor(Math.random() * 10 * attempt));
}

/**
 * Sets the prefix of the caller's mapping. The same prefix again is a no-op; a prefix another mapping
 * holds (case-insensitively) is 409; a lost race on this mapping is retried with a fresh read, then 409.
 * With a `caller`, the transaction also checks the caller's token and key (`CallerRevokedError` when gone).
 */
export async function updateMappingPrefix(
  auth: AuthContext,
  mappingId: string,
  request: MappingUpdateRequest,
  caller?: WriteCaller,
): Promise<MappingRecord> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
    const mapping = await getStoreMapping(auth, mappingId);
    if (mapping.prefix === request.prefix) {
      // Nothing to write, so no transaction checks the caller: check it here (a deleted key's token gets 401).
      if (caller) await assertCallerExists(caller);
      return mapping;
    }
    const outcome = await mappingRepository.changePrefix(mapping, request.prefix, caller);
    if (outcome === 'revoked') throw new CallerRevokedError();
    if (outcome === 'changed') return { ...mapping, prefix: request.prefix, version: mapping.version + 1 };
    if (outcome === 'prefix-taken') throw new ConflictError(PREFIX_IN_USE, 'data.prefix');
    if (outcome === 'throttled') throw new ServiceUnavailableError();
    if (attempt < MAX_ATTEMPTS) await backoff(attempt);
  }
  throw new ConflictError(WRITE_CONFLICT);
}
