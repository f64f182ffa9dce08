import type { TokenRequestGuard } from '../auth/issue-token';
import { getConfig } from '../config/index';
import { TooManyRequestsError } from '../http/errors';
import { errorFields, log } from '../http/log';
import { countMetric, METRIC } from '../metrics/index';
import { applicationKeyRepository } from '../store/application-key-repository';
import { rateLimitRepository } from '../store/rate-limit-repository';
import { DEADLINE_PASSED, withDeadline } from './deadline';
import { checkRateLimit, type RequestLogKeys, refuse } from './index';
import type { RateLimitedEvent } from './middleware';
import { sourceNetwork } from './source-network';

/** Failed credential checks a client id may have per source address per minute (docs/rate-limits.md). */
export const FAILED_ATTEMPTS_PER_MINUTE = 10;
const MINUTE_MS = 60_000;

/**
 * The token endpoint's limits for one request (docs/rate-limits.md, "Failed token attempts"):
 * - the failed-attempt limit counts, per client id and source address (API Gateway's
 *   `requestContext.http.sourceIp`), the secrets that did NOT match. A known client's counter is read
 *   before its secret is compared, and only when the client item's `failed_minute` says a secret failed
 *   this minute (from any address): a correct secret otherwise costs no read and no write of the limits
 *   table. Only a failed comparison of a known client id writes (first the client's `failed_minute`,
 *   then the counter), so an attempt in flight never counts, and an address's failures refuse that
 *   address only, never the key's owner calling from elsewhere. Unknown client ids store nothing.
 * - a request with valid credentials is then counted against its key's store like any other request.
 * The limiter's calls have a deadline and fail open (logged).
 */
export function tokenRequestGuard(
  event: RateLimitedEvent,
  request: RequestLogKeys,
  now: () => number = Date.now,
): TokenRequestGuard {
  // An IPv6 address counts as its /64: one host holds all of it.
  const source = sourceNetwork(event.requestContext?.http?.sourceIp ?? 'unknown');
  const minute = Math.floor(now() / MINUTE_MS);
  const tooMany = () => {
    countMetric(METRIC.rateLimitedRequests);
    return new TooManyRequestsError(
      `Too many failed attempts for this client_id from this address: at most ${FAILED_ATTEMPTS_PER_MINUTE} per minute`,
      ((minute + 1) * MINUTE_MS - now()) / 1000,
    );
  };
  const unavailable = (error: unknown) => {
    log('warn', 'failed-attempt limiter unavailable: credential check allowed', {
      ...request,
      error: errorFields(error),
    });
  };
  return {
    async checkAttempts(client) {
      // No failure for this client id this minute, from any address: nothing to read.
      if (client.failed_minute === undefined || client.failed_minute < minute) return;
      const read = rateLimitRepository.failedAttempts(client.client_id, source, minute);
      let failures: number | typeof DEADLINE_PASSED;
      try {
        failures = await withDeadline(read, getConfig().rateLimitDeadlineMs);
      } catch (error) {
        unavailable(error);
        return;
      }
      if (failures === DEADLINE_PASSED) {
        read.catch(() => undefined);
        unavailable(new Error('deadline passed'));
        return;
      }
      if (failures >= FAILED_ATTEMPTS_PER_MINUTE) throw tooMany();
    },

    async recordFailure(client) {
      const clientId = client.client_id;
      // The mark first, so every grant that could read this minute's counter knows to read it.
      const write = (
        client.failed_minute !== undefined && client.failed_minute >= minute
          ? Promise.resolve()
          : applicationKeyRepository.markFailedMinute(clientId, minute)
      ).then(() => rateLimitRepository.recordFailure(clientId, source, minute, FAILED_ATTEMPTS_PER_MINUTE));
      let counted: boolean | typeof DEADLINE_PASSED;
      try {
        counted = await withDeadline(write, getConfig().rateLimitDeadlineMs);
      } catch (error) {
        unavailable(error);
        return;
      }
      if (counted === DEADLINE_PASSED) {
        // The failure is still counted when the write lands; this answer does not wait for it.
        write.catch(() => undefined);
        unavailable(new Error('deadline passed'));
        return;
      }
      if (!counted) {
        log('warn', 'rate limited: too many failed credential checks', {
          ...request,
          store_id: client.store_id,
          key_id: client.key_id,
          limit_per_minute: FAILED_ATTEMPTS_PER_MINUTE,
        });
        throw tooMany();
      }
    },

    async admit(client, grantType) {
      const decision = await checkRateLimit(
        client.store_id,
        client.key_id,
        grantType === 'implicit' ? { address: source } : undefined,
      );
      event.rateLimit = decision;
      if (decision && !decision.admitted) {
        throw refuse(decision, { storeId: client.store_id, keyId: client.key_id }, request);
      }
    },
  };
}
