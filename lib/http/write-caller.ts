import { type AuthContext, authenticate, authenticationFailure } from '../auth/authenticate';
import { hashSecret } from '../auth/secrets';
import { CallerRevokedError, type WriteCaller } from '../store/caller-check';
import { UnauthorizedError } from './errors';

/** The authorizer's form of the `Authorization` header (it accepted this request's header already). */
const BEARER = /^Bearer\s+(\S{1,512})\s*$/i;

/** The parts of an authorized event a write needs. */
export interface AuthorizedWriteEvent {
  headers: Record<string, string | undefined>;
  auth: AuthContext;
}

/** The caller of an authorized request as its write transactions check it: store, key and token hash. */
export function writeCaller(event: AuthorizedWriteEvent): WriteCaller {
  const token = BEARER.exec(event.headers.authorization ?? '')?.[1];
  // The authorizer ran before the handler, so a token is always there; no token would be a wiring bug.
  if (token === undefined) throw authenticationFailure();
  const caller: WriteCaller = {
    storeId: event.auth.storeId,
    keyId: event.auth.keyId,
    tokenHash: hashSecret(token),
  };
  // `limits` marks a token check that read the token's items in this request: its store is a fresh read.
  return event.auth.limits === undefined ? caller : { ...caller, store: event.auth.store };
}

/**
 * Runs a write as the request's caller: the write's own transaction checks that the caller's token and
 * key still exist (no extra round trip), so a deleted key's token writes nothing even when this
 * container's token cache still holds it. When that check refuses (`CallerRevokedError`), the answer is
 * 401 and the token is re-checked against the table, which drops it from this container's cache so the
 * container's reads stop accepting it too.
 */
export async function asWriteCaller<T>(
  event: AuthorizedWriteEvent,
  write: (caller: WriteCaller) => Promise<T>,
): Promise<T> {
  try {
    return await write(writeCaller(event));
  } catch (error) {
    if (!(error instanceof CallerRevokedError)) throw error;
    try {
      await authenticate(event.headers.authorization, { fresh: true });
    } catch (refused) {
      // The fresh check refused the token too (and counted the failure): that is the 401.
      if (refused instanceof UnauthorizedError) throw refused;
    }
    // The write was refused for the caller whatever the re-check found (or if it could not run).
    throw authenticationFailure();
  }
}
