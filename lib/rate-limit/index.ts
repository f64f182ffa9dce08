import { getConfig } from '../config/index';
import { TooManyRequestsError, UnauthorizedError } from '../http/errors';
import { errorFields, log, loggedAsCount } from '../http/log';
import { countMetric, METRIC } from '../metrics/index';
import { keyWithStore } from '../store/key-with-store';
import { rateLimitRepository } from '../store/rate-limit-repository';
import type { KeyLimits } from './allowance';
import { DEADLINE_PASSED, withDeadline } from './deadline';
import { type RateLimitDecision, RateLimiter } from './limiter';
import { noteRefusal } from './refusal-log';
import { sourceNetwork } from './source-network';

/*
 * The rate limit as the request path uses it (docs/rate-limits.md): the container's limiter, the limits
 * it enforces (read from the store and key items, refreshed so that changes apply within 51 s), and the
 * response headers that tell a caller its allowance.
 */

/** A key's limits are read again in the background once this old... */
export const LIMITS_REFRESH_MS = 20_000;
/** ...and never used when older than this (plus one window of leases: changes apply within 51 s). */
export const LIMITS_MAX_AGE_MS = 50_000;

/** The container's limiter: its leases and observations live as long as the container. */
export const rateLimiter = new RateLimiter({
  now: () => Date.now(),
  take: rateLimitRepository.take,
  get deadlineMs() {
    return getConfig().rateLimitDeadlineMs;
  },
});

interface CachedLimits {
  limits: KeyLimits | undefined;
  fetchedAt: number;
  pending: Promise<KeyLimits | undefined> | undefined;
  /** The pending read missed the deadline: requests are admitted at once until it settles. */
  stalled: boolean;
}

const MAX_CACHED_KEYS = 10_000;
const limitsCache = new Map<string, CachedLimits>();

/** The store's limit, its keys' reserved total and this key's reservation; undefined when either is gone. */
async function readLimits(storeId: string, keyId: string): Promise<KeyLimits | undefined> {
  const { store, key } = await keyWithStore(storeId, keyId);
  if (!store || !key) return undefined;
  return {
    rateLimit: store.rate_limit,
    reservedTotal: store.reserved_rate_limit_total,
    reserved: key.reserved_rate_limit,
  };
}

/** A key's limits as another read of the same items saw them (the token check's), and when (ms). */
export type LimitsSeen = KeyLimits & { readAt: number };

/**
 * A key's limits from the container's cache, without waiting when they are cached and younger than 50 s
 * (from 20 s on, they are read again in the background); otherwise read first. `seen`: the same limits
 * as the token check read them; taken instead when newer than the cache's (a container's first request
 * then reads nothing more), never when older, so a cached token can never make them older.
 */
export function keyLimits(
  storeId: string,
  keyId: string,
  now = Date.now(),
  seen?: LimitsSeen,
): KeyLimits | undefined | Promise<KeyLimits | undefined> {
  const id = `${storeId}/${keyId}`;
  let cached = limitsCache.get(id);
  if (seen && now - seen.readAt < LIMITS_REFRESH_MS && (!cached || cached.fetchedAt < seen.readAt)) {
    if (!cached) {
      evictOldestIfFull();
      cached = { limits: undefined, fetchedAt: 0, pending: undefined, stalled: false };
      limitsCache.set(id, cached);
    }
    cached.limits = { rateLimit: seen.rateLimit, reservedTotal: seen.reservedTotal, reserved: seen.reserved };
    cached.fetchedAt = seen.readAt;
  }
  const refresh = (entry: CachedLimits): Promise<KeyLimits | undefined> => {
    entry.pending ??= readLimits(storeId, keyId)
      .then((limits) => {
        entry.limits = limits;
        entry.fetchedAt = now;
        return limits;
      })
      .finally(() => {
        entry.pending = undefined;
        entry.stalled = false;
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
  if (!cached) evictOldestIfFull();
  const entry = cached ?? { limits: undefined, fetchedAt: 0, pending: undefined, stalled: false };
  limitsCache.set(id, entry);
  if (entry.stalled) throw new LimitsStalled();
  const read = refresh(entry);
  return withDeadline(read, getConfig().rateLimitDeadlineMs).then((limits) => {
    if (limits !== DEADLINE_PASSED) return limits;
    entry.stalled = true;
    read.catch(() => undefined);
    throw new LimitsStalled();
  });
}

function evictOldestIfFull(): void {
  if (limitsCache.size < MAX_CACHED_KEYS) return;
  const oldest = limitsCache.keys().next().value;
  if (oldest !== undefined) limitsCache.delete(oldest);
}

/** A key's limits were not read within the limiter's deadline (the read goes on in the background). */
class LimitsStalled extends Error {
  override name = 'LimitsStalled';
  constructor() {
    super('rate limits not read within the deadline');
  }
}

/**
 * The 401 of a token whose key (or store) is gone: the limiter found no limits for it. A token cached by
 * a container outlives its key by up to AUTH_CACHE_SECONDS (2 s) for reads; here it is refused, never
 * admitted without a limit.
 */
export function keyGone(): UnauthorizedError {
  countMetric(METRIC.authenticationFailures);
  return new UnauthorizedError();
}

/** Forgets the cached limits and every lease (tests). */
export function resetRateLimits(): void {
  limitsCache.clear();
  rateLimiter.reset();
}

/**
 * Counts one request of a key against its store's limit (`seen`: its limits as the token check read
 * them, see keyLimits). Undefined when there is nothing to limit
 * (RATE_LIMITS=off) or the limits cannot be read within the deadline (failed open: logged and counted).
 * Throws a 401 when the key or its store is gone. The caller turns a refusal into a 429 with `refuse`.
 */
export function checkRateLimit(
  storeId: string,
  keyId: string,
  storefront?: { address: string },
  seen?: LimitsSeen,
): RateLimitDecision | undefined | Promise<RateLimitDecision | undefined> {
  if (!getConfig().rateLimits) return undefined;
  let limits: ReturnType<typeof keyLimits>;
  try {
    limits = keyLimits(storeId, keyId, Date.now(), seen);
  } catch (error) {
    return limitsUnavailable(storeId, keyId, error);
  }
  if (limits instanceof Promise) {
    return limits.then(
      (read) => {
        if (!read) throw keyGone();
        return admitWith(storeId, keyId, storefront, read);
      },
      (error: unknown) => limitsUnavailable(storeId, keyId, error),
    );
  }
  if (!limits) throw keyGone();
  // Every request of a warm container comes this way: no closure, no copy of the limits.
  return admitWith(storeId, keyId, storefront, limits);
}

/** The storefront limits of each key's limits (its reservation left out), made once per limits read. */
const storefrontLimits = new WeakMap<KeyLimits, KeyLimits>();

function admitWith(
  storeId: string,
  keyId: string,
  storefront: { address: string } | undefined,
  read: KeyLimits,
): RateLimitDecision | Promise<RateLimitDecision> {
  if (!storefront) return rateLimiter.admit(storeId, keyId, read);
  // Storefront tokens draw from the store's pool only, never from the key's reservation, and one source
  // address may take at most its share of the pool (lib/rate-limit/addresses.ts). An IPv6 address counts
  // as its /64 (lib/rate-limit/source-network.ts).
  let limits = storefrontLimits.get(read);
  if (!limits) {
    limits = { ...read, reserved: 0 };
    storefrontLimits.set(read, limits);
  }
  return rateLimiter.admit(storeId, `${keyId}#implicit`, limits, sourceNetwork(storefront.address));
}

function limitsUnavailable(storeId: string, keyId: string, error: unknown): undefined {
  rateLimiter.stats.failedOpen += 1;
  // A stalled read is counted, not logged per request (the read that stalled logs when it fails).
  if (error instanceof LimitsStalled) return undefined;
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
 * The 429 of a refused request: the error body, `Retry-After` and the allowance headers. Refusals are
 * logged as counts per key per second (lib/rate-limit/refusal-log.ts), not one line each: the request
 * writes no access line, and the RateLimitedRequests metric goes out at most once a second.
 */
export function refuse(
  decision: RateLimitDecision,
  ids: { storeId: string; keyId: string },
  request: RequestLogKeys,
): TooManyRequestsError {
  countMetric(METRIC.rateLimitedRequests);
  noteRefusal(ids, decision.limit, request.route);
  return loggedAsCount(
    new TooManyRequestsError(
      `Rate limit of ${decision.limit} requests per second exceeded for this application key`,
      decision.resetSeconds,
      rateLimitHeaders(decision),
    ),
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
