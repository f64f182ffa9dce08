import type { TokenRequestGuard } from '../auth/issue-token';
import { TooManyRequestsError } from '../http/errors';
import { errorFields, log } from '../http/log';
import { countMetric, METRIC } from '../metrics/index';
import { rateLimitRepository } from '../store/rate-limit-repository';
import { checkRateLimit, type RequestLogKeys, refuse } from './index';
import type { RateLimitedEvent } from './middleware';

/** Failed credential checks a client id may have per minute (docs/rate-limits.md). */
export const FAILED_ATTEMPTS_PER_MINUTE = 10;
const MINUTE_MS = 60_000;

/**
 * The token endpoint's limits for one request: a client_credentials check first reserves one of the client
 * id's 10 attempts of the minute (given back when the secret matches, so only failures stay counted, and
 * parallel guesses cannot slip past the count); a request of a known client id is then counted against its
 * key's store like any other request. DynamoDB failures fail open (logged).
 */
export function tokenRequestGuard(
  event: RateLimitedEvent,
  request: RequestLogKeys,
  now: () => number = Date.now,
): TokenRequestGuard {
  return {
    async reserveAttempt(clientId, client) {
      const at = now();
      const minute = Math.floor(at / MINUTE_MS);
      let reserved: boolean;
      try {
        reserved = await rateLimitRepository.reserveAttempt(clientId, minute, FAILED_ATTEMPTS_PER_MINUTE);
      } catch (error) {
        log('warn', 'failed-attempt limiter unavailable: credential check allowed', {
          error: errorFields(error),
        });
        return async () => undefined;
      }
      if (!reserved) {
        const known = await client.catch(() => undefined);
        countMetric(METRIC.rateLimitedRequests);
        log('warn', 'rate limited: too many failed credential checks', {
          ...request,
          ...(known ? { store_id: known.store_id, key_id: known.key_id } : {}),
          limit_per_minute: FAILED_ATTEMPTS_PER_MINUTE,
        });
        throw new TooManyRequestsError(
          `Too many failed attempts for this client_id: at most ${FAILED_ATTEMPTS_PER_MINUTE} per minute`,
          ((minute + 1) * MINUTE_MS - at) / 1000,
        );
      }
      return () =>
        rateLimitRepository.releaseAttempt(clientId, minute).catch((error: unknown) => {
          log('warn', 'failed-attempt limiter could not release a check', {
            ...request,
            error: errorFields(error),
          });
        });
    },

    async admit(client) {
      const decision = await checkRateLimit(client.store_id, client.key_id);
      event.rateLimit = decision;
      if (decision && !decision.admitted) {
        throw refuse(decision, { storeId: client.store_id, keyId: client.key_id }, request);
      }
    },
  };
}
