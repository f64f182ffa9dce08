import { getConfig } from '../config/index';
import { UnauthorizedError } from '../http/errors';
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
  cachedUntil: number;
}

const MAX_CACHE_ENTRIES = 1000;
/** Validated tokens by hash. Entries live at most AUTH_CACHE_SECONDS (<= 60 s), so revocation is bounded. */
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
 * (write routes: a deleted key's token must not write for another AUTH_CACHE_SECONDS); a refused fresh
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
  if (cached && cached.cachedUntil > nowMs && !options.fresh) {
    if (cached.expiresAt * 1000 <= nowMs) throw authenticationFailure();
    return cached.auth;
  }
  if (cached) cache.delete(tokenHash);
  const resolved = await tokenRepository.resolve(tokenHash, ids.storeId, ids.keyId);
  if (!resolved || resolved.token.expires_at * 1000 <= nowMs) throw authenticationFailure();
  const auth: AuthContext = {
    storeId: resolved.token.store_id,
    keyId: resolved.token.key_id,
    kind: resolved.token.kind,
    store: resolved.store,
  };
  const cacheMs = getConfig().authCacheSeconds * 1000;
  if (cacheMs > 0) {
    if (cache.size >= MAX_CACHE_ENTRIES) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(tokenHash, { auth, expiresAt: resolved.token.expires_at, cachedUntil: nowMs + cacheMs });
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
