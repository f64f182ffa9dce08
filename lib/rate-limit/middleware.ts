import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { HttpResponse } from '../http/response';
import { checkRateLimit, type RateLimitDecision, rateLimitHeaders, tooManyRequests } from './index';

/** An event the limiter has seen: who called (from the authorizer) and what was decided. */
export type RateLimitedEvent = APIGatewayProxyEventV2 & {
  auth?: { storeId: string; keyId: string } | undefined;
  rateLimit?: RateLimitDecision | undefined;
};

/**
 * Counts a request with a bearer token against its store's limit (register it after the authorizer):
 * over the allowance, a 429 before the handler runs, so nothing is done.
 */
export function rateLimit(): MiddlewareObj<RateLimitedEvent, HttpResponse> {
  return {
    before: async (request) => {
      const auth = request.event.auth;
      if (!auth) return;
      const decision = await checkRateLimit(auth.storeId, auth.keyId);
      request.event.rateLimit = decision;
      if (decision && !decision.admitted) throw tooManyRequests(decision);
    },
  };
}

/**
 * Puts the caller's allowance (`X-RateLimit-*`) on every response of a counted request, errors included
 * (register it before the error middleware, so it runs once the error response exists).
 */
export function rateLimitResponseHeaders(): MiddlewareObj<RateLimitedEvent, HttpResponse> {
  const apply = (request: { event: RateLimitedEvent; response: HttpResponse | null }) => {
    const decision = request.event.rateLimit;
    if (decision && request.response) {
      request.response.headers = { ...rateLimitHeaders(decision), ...request.response.headers };
    }
  };
  return { after: apply, onError: apply };
}
