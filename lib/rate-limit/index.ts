import { getConfig } from '../config/index';
import { TooManyRequestsError } from '../http/errors';
import { errorFields, log } from '../http/log';
import { countMetric, METRIC } from '../metrics/index';
import { applicationKeyRepository } from '../store/application-key-repository';
import { rateLimitRepository } from '../store/rate-limit-repository';
import { storeRepository } from '../store/store-repository';
import type { KeyLimits } from './allowance';
import { type RateLimitDecision, RateLimiter } from './limiter';

/*
 * The rate limit as the request path uses it (docs/rate-limits.md): the container's limiter, the limits
 * it enforces (read from the store and key items, refreshed so that changes apply within 60 s), and the
 * response headers that tell a caller its allowance.
 */

/** A key's limits are read again in the background once this old... */
export const LIMITS_REFRESH_MS = 20_000;
/** ...and never used when older than this (plus one window of leases: changes apply within 51 s). */
export const LIMITS_MAX_AGE_MS = 50_000;

/** The container's limiter: its leases and observations live as long as the container. */
export const rateLimiter = new RateLimiter({ now: () => Date.now(), take: rateLimitRepository.take });

interface CachedLimits {
  limits: KeyLimits | undefined;
  fetchedAt: number;
  pending: Promise<KeyLimits | undefined> | undefined;
}

const MAX_CACHED_KEYS = 10_000;
const limitsCache = new Map<string, CachedLimits>();

/** The store's limit, its keys' reserved total and this key's reservation; undefined when either is gone. */
async function readLimits(storeId: string, keyId: string): Promise<KeyLimits | undefined> {
  const [store, key] = await Promise.all([
    storeRepository.get(storeId, true),
    applicationKeyRepository.get(storeId, keyId, true),
  ]);
  if (!store || !key) return undefined;
  return {
    rateLimit: store.rate_limit,
    reservedTotal: store.reserved_rate_limit_total,
    reserved: key.reserved_rate_limit,
  };
}

/**
 * A key's limits from the container's cache, without waiting when they are cached and younger than 50 s
 * (from 20 s on, they are read again in the background); otherwise read first.
 */
export function keyLimits(
  storeId: string,
  keyId: string,
  now = Date.now(),
): KeyLimits | undefined | Promise<KeyLimits | undefined> {
  const id = `${storeId}/${keyId}`;
  const cached = limitsCache.get(id);
  const refresh = (entry: CachedLimits): Promise<KeyLimits | undefined> => {
    entry.pending ??= readLimits(storeId, keyId)
      .then((limits) => {
        entry.limits = limits;
        entry.fetchedAt = now;
        return limits;
      })
      .finally(() => {
        entry.pending = undefined;
      });
    return entry.pending;
  };
  if (cached && now - cached.fetchedAt < LIMITS_MAX_AGE_MS) {
    if (now - cached.fetchedAt >= LIMITS_REFRESH_MS && !cached.pending) {
      refresh(cached).catch((error: unknown) =>
        log('warn', 'rate limiter could not refresh limits', {
          store_id: storeId,
          key_id: keyId,
          error: errorFields(error),
        }),
      );
    }
    return cached.limits;
  }
  if (!cached && limitsCache.size >= MAX_CACHED_KEYS) {
    const oldest = limitsCache.keys().next().value;
    if (oldest !== undefined) limitsCache.delete(oldest);
  }
  const entry = cached ?? { limits: undefined, fetchedAt: 0, pending: undefined };
  limitsCache.set(id, entry);
  return refresh(entry);
}

/** Forgets the cached limits and every lease (tests). */
export function resetRateLimits(): void {
  limitsCache.clear();
  rateLimiter.reset();
}

/**
 * Counts one request of a key against its store's limit. Undefined when there is nothing to limit (the key
 * or store is gone, or RATE_LIMITS=off) or the limits cannot be read (failed open: logged and counted). The
 * caller turns a refusal into a 429 with `refuse` (which logs it).
 */
export function checkRateLimit(
  storeId: string,
  keyId: string,
): RateLimitDecision | undefined | Promise<RateLimitDecision | undefined> {
  if (!getConfig().rateLimits) return undefined;
  let limits: ReturnType<typeof keyLimits>;
  try {
    limits = keyLimits(storeId, keyId);
  } catch (error) {
    return limitsUnavailable(storeId, keyId, error);
  }
  if (limits instanceof Promise) {
    return limits.then(
      (read) => (read ? rateLimiter.admit(storeId, keyId, read) : undefined),
      (error: unknown) => limitsUnavailable(storeId, keyId, error),
    );
  }
  return limits ? rateLimiter.admit(storeId, keyId, limits) : undefined;
}

function limitsUnavailable(storeId: string, keyId: string, error: unknown): undefined {
  rateLimiter.stats.failedOpen += 1;
  log('warn', 'rate limiter could not read limits: request admitted', {
    store_id: storeId,
    key_id: keyId,
    error: errorFields(error),
  });
  return undefined;
}

/** The keys that tie a log line to its request (overlapping requests share one logger locally). */
export interface RequestLogKeys {
  route: string;
  function_request_id: string;
}

/**
 * The 429 of a refused request, logged at `warn` with the store and key: the JSON error body,
 * `Retry-After` and the allowance headers.
 */
export function refuse(
  decision: RateLimitDecision,
  ids: { storeId: string; keyId: string },
  request: RequestLogKeys,
): TooManyRequestsError {
  countMetric(METRIC.rateLimitedRequests);
  log('warn', 'rate limited', {
    ...request,
    store_id: ids.storeId,
    key_id: ids.keyId,
    limit: decision.limit,
  });
  return new TooManyRequestsError(
    `Rate limit of ${decision.limit} requests per second exceeded for this application key`,
    decision.resetSeconds,
    rateLimitHeaders(decision),
  );
}

/** The allowance headers of a response (docs/rate-limits.md). */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetSeconds),
  };
}

export type { RateLimitDecision } from './limiter';
