import { getConfig } from '../config/index';
import { UnauthorizedError } from '../http/errors';
import { errorFields, log } from '../http/log';
import { countMetric, METRIC } from '../metrics/index';
import type { StoreRecord } from '../store/store-repository';
import { type TokenKind, tokenRepository } from '../store/token-repository';
import { hashSecret, parseAccessToken } from './secrets';

/** Who is calling: the token's store, key and kind (client_credentials = admin, implicit = storefront). */
export interface AuthContext {
  storeId: string;
  keyId: string;
  kind: TokenKind;
  store: StoreRecord;
  /**
   * Only when this request's own token check read the token's items (not from the container's token
   * cache): the key's rate limits as read (the store's limit and reserved total, the key's reservation)
   * and when (ms). The rate limiter takes them instead of reading the same items again, when they are
   * newer than what it holds, so a container's first request reads them once.
   */
  limits?: { rateLimit: number; reservedTotal: number; reserved: number; readAt: number };
}

interface CacheEntry {
  auth: AuthContext;
  expiresAt: number;
  /** When the check this entry holds started (ms): the entry is used until AUTH_CACHE_SECONDS after it. */
  checkedAt: number;
  /** A background check of the token is running. */
  rechecking: boolean;
}

const MAX_CACHE_ENTRIES = 1000;
/**
 * Validated tokens by hash. An entry is used for at most AUTH_CACHE_SECONDS (<= 2 s) after the check it
 * holds started, so a deleted key's tokens are refused for reads within that long; from half that age on,
 * a request that uses it starts the next check in the background (not awaited), so a token in steady use
 * is served from the cache without waiting, at one read of the table per token and container a second.
 */
const cache = new Map<string, CacheEntry>();
const BEARER = /^Bearer\s+(\S{1,512})\s*$/i;

/** Empties the container's token cache (tests). */
export function clearAuthCache(): void {
  cache.clear();
}

/** The store an `Authorization` header's token claims to belong to (unverified), or undefined. */
export function claimedStoreId(header: string | undefined): string | undefined {
  const match = header === undefined ? null : BEARER.exec(header);
  return match?.[1] ? parseAccessToken(match[1])?.storeId : undefined;
}

/** The 401 for credentials or a token that did not authenticate, counted in AuthenticationFailures. */
export function authenticationFailure(message?: string): UnauthorizedError {
  countMetric(METRIC.authenticationFailures);
  return new UnauthorizedError(message);
}

/**
 * Resolves an `Authorization` header into an AuthContext; 401 for anything missing, unknown or expired.
 * `fresh`: read the token, its key and its store from the table even when this container cached them
 * (write routes: a deleted key's token must not write at all, not even for AUTH_CACHE_SECONDS); a refused fresh
 * check also drops the cached entry, so the container's reads stop accepting it too.
 */
export async function authenticate(
  header: string | undefined,
  options: { fresh?: boolean } = {},
): Promise<AuthContext> {
  const match = header === undefined ? null : BEARER.exec(header);
  const ids = match?.[1] ? parseAccessToken(match[1]) : undefined;
  if (!match?.[1] || !ids) throw authenticationFailure();
  const tokenHash = hashSecret(match[1]);
  const nowMs = Date.now();
  const cached = cache.get(tokenHash);
  const cacheMs = getConfig().authCacheSeconds * 1000;
  if (cached && nowMs - cached.checkedAt < cacheMs && !options.fresh) {
    if (cached.expiresAt * 1000 <= nowMs) throw authenticationFailure();
    if (nowMs - cached.checkedAt >= cacheMs / 2 && !cached.rechecking) recheck(tokenHash, ids, cached);
    return cached.auth;
  }
  if (cached) cache.delete(tokenHash);
  const resolved = await tokenRepository.resolve(tokenHash, ids.storeId, ids.keyId);
  if (!resolved || resolved.token.expires_at * 1000 <= nowMs) throw authenticationFailure();
  const auth = authOf(resolved);
  if (cacheMs > 0) {
    if (cache.size >= MAX_CACHE_ENTRIES) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(tokenHash, { auth, expiresAt: resolved.token.expires_at, checkedAt: nowMs, rechecking: false });
  }
  // The limits go to this request only: a request served from the token cache lets the limiter read them.
  return {
    ...auth,
    limits: {
      rateLimit: resolved.store.rate_limit,
      reservedTotal: resolved.store.reserved_rate_limit_total,
      reserved: resolved.reservedRateLimit,
      readAt: nowMs,
    },
  };
}

type Resolved = NonNullable<Awaited<ReturnType<typeof tokenRepository.resolve>>>;

function authOf(resolved: Resolved): AuthContext {
  return {
    storeId: resolved.token.store_id,
    keyId: resolved.token.key_id,
    kind: resolved.token.kind,
    store: resolved.store,
  };
}

/**
 * Checks a cached token against the table again, in the background: a token (or key, or store) gone drops
 * the entry, so the container's next request with it is refused; otherwise the entry holds the new check.
 * A failed check leaves the entry to expire (its next use then reads the table itself).
 */
function recheck(tokenHash: string, ids: { storeId: string; keyId: string }, entry: CacheEntry): void {
  entry.rechecking = true;
  const started = Date.now();
  tokenRepository
    .resolve(tokenHash, ids.storeId, ids.keyId)
    .then(
      (resolved) => {
        if (cache.get(tokenHash) !== entry) return;
        if (!resolved || resolved.token.expires_at * 1000 <= Date.now()) {
          cache.delete(tokenHash);
          return;
        }
        entry.auth = authOf(resolved);
        entry.checkedAt = started;
      },
      (error: unknown) => log('warn', 'token check in the background failed', { error: errorFields(error) }),
    )
    .finally(() => {
      entry.rechecking = false;
    });
}
