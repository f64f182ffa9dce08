/**
 * CORS for browser storefronts. One configuration drives the deployed HTTP API's
 * `corsPreflight` (API Gateway then answers preflights itself and sets the headers on every response) and
 * the local servers, which answer the same way (local/gateway-cors.ts reproduces API Gateway's behaviour).
 * Bearer tokens, no cookies: no credentials mode, so `*` is a valid origin.
 */

/**
 * Request headers a page may send, listed one by one (a `*` never covers `Authorization` in browsers):
 * everything the official JS SDK sends on a request (`RequestFactory.send`), plus the shopper-context
 * headers of the catalog route and their `EP-*` aliases.
 */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept-Language',
  'X-Moltin-SDK-Language',
  'X-Moltin-SDK-Version',
  'X-Moltin-Application',
  'X-Moltin-Currency',
  'X-Moltin-Language',
  'X-Moltin-Auth-Store',
  'X-Moltin-Customer-Token',
  'SVC-Channel',
  'SVC-Context-Tag',
  'EP-Channel',
  'EP-Context-Tag',
  'EP-Currency',
] as const;

/** Response headers a page may read besides the CORS-safelisted ones: back-off and rate-limit state. */
export const CORS_EXPOSED_HEADERS = [
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
] as const;

/** How long a browser may reuse a preflight answer (Chromium caps it at 7,200 s). */
export const CORS_MAX_AGE_SECONDS = 3600;

/**
 * Set by the stack on every function when the API allows listed origins rather than `*`: the functions then
 * answer `Vary: Origin`, since API Gateway's `Access-Control-Allow-Origin` echoes the request's Origin.
 */
export const CORS_VARY_ENV = 'CORS_VARY';

/** The whole CORS configuration, in the terms of API Gateway's `corsPreflight`. */
export interface CorsConfiguration {
  allowOrigins: readonly string[];
  allowMethods: readonly string[];
  allowHeaders: readonly string[];
  exposeHeaders: readonly string[];
  maxAgeSeconds: number;
}

export class CorsOriginsError extends Error {
  override name = 'CorsOriginsError';
}

// What API Gateway accepts in allowOrigins: `*`, `http://*`, `https://*`, or an origin without a path.
const ORIGIN = /^(?:\*|https?:\/\/\*|https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?)$/;

/**
 * Allowed origins from a comma-separated list (`CORS_ORIGINS`, the `corsOrigins` context value): each `*`,
 * `https://*`, `http://*` or an origin such as `https://shop.example.com`; empty or unset means `*`.
 * Throws CorsOriginsError naming the first bad entry.
 */
export function parseCorsOrigins(
  text: string | readonly string[] | undefined,
  name = 'CORS_ORIGINS',
): string[] {
  const entries = (typeof text === 'string' ? text.split(',') : (text ?? [])).map((entry) => entry.trim());
  const origins = entries.filter((entry) => entry !== '');
  for (const origin of origins) {
    const port = /:(\d+)$/.exec(origin)?.[1];
    if (!ORIGIN.test(origin) || (port !== undefined && Number(port) > 65535)) {
      throw new CorsOriginsError(
        `${name}: "${origin}" is not an origin; use *, https://*, http://* or scheme://host[:port] (no path), comma-separated`,
      );
    }
  }
  return origins.length === 0 ? ['*'] : [...new Set(origins)];
}

/** The configuration for a set of origins and the methods of the route table. */
export function corsConfiguration(origins: readonly string[], methods: readonly string[]): CorsConfiguration {
  return {
    allowOrigins: origins,
    allowMethods: [...new Set(methods)],
    allowHeaders: CORS_ALLOWED_HEADERS,
    exposeHeaders: CORS_EXPOSED_HEADERS,
    maxAgeSeconds: CORS_MAX_AGE_SECONDS,
  };
}
