import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { HttpResponse } from '../http/response';
import { checkRateLimit, type LimitsSeen, type RateLimitDecision, rateLimitHeaders, refuse } from './index';

/** An event the limiter has seen: who called (from the authorizer) and what was decided. */
export type RateLimitedEvent = APIGatewayProxyEventV2 & {
  auth?: { storeId: string; keyId: string; kind?: string; limits?: LimitsSeen } | undefined;
  rateLimit?: RateLimitDecision | undefined;
};

/**
 * Counts a request with a bearer token against its store's limit (register it after the authorizer):
 * over the allowance, a 429 before the handler runs, so nothing is done.
 */
export function rateLimit(): MiddlewareObj<RateLimitedEvent, HttpResponse> {
  return {
    before: (request) => {
      const auth = request.event.auth;
      if (!auth) return;
      // Most requests are decided at once, from tokens the container holds: no promise (and no closure) on
      // that path. Storefront tokens count by source address (API Gateway's, from the connection; never a
      // header).
      const decision = checkRateLimit(
        auth.storeId,
        auth.keyId,
        auth.kind === 'implicit'
          ? { address: request.event.requestContext?.http?.sourceIp ?? 'unknown' }
          : undefined,
        auth.limits,
      );
      if (decision instanceof Promise) return decision.then((decided) => apply(request, auth, decided));
      apply(request, auth, decision);
    },
  };
}

/** Records the decision on the event; a refusal is the 429. */
function apply(
  request: { event: RateLimitedEvent; context: { awsRequestId: string } },
  auth: NonNullable<RateLimitedEvent['auth']>,
  decision: RateLimitDecision | undefined,
): void {
  request.event.rateLimit = decision;
  if (decision && !decision.admitted) {
    throw refuse(decision, auth, {
      route: request.event.routeKey,
      function_request_id: request.context.awsRequestId,
    });
  }
}

/**
 * Puts the caller's allowance (`X-RateLimit-*`) on every response of a counted request, errors included
 * (register it before the error middleware, so it runs once the error response exists).
 */
export function rateLimitResponseHeaders(): MiddlewareObj<RateLimitedEvent, HttpResponse> {
  const apply = (request: { event: RateLimitedEvent; response: HttpResponse | null }) => {
    const decision = request.event.rateLimit;
    const headers = request.response?.headers;
    // A 429 carries them already; set in place, as this runs on every counted response.
    if (decision && headers && headers['X-RateLimit-Limit'] === undefined)
      Object.assign(headers, rateLimitHeaders(decision));
  };
  return { after: apply, onError: apply };
}
