/**
 * CORS for browser storefronts (DESIGN.md section 14). One configuration drives the deployed HTTP API's
 * `corsPreflight` (API Gateway then answers preflights itself and sets the headers on every response) and
 * the local server, which answers the same way through `corsResponseHeaders` / `preflightHeaders`.
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
    if (!ORIGIN.test(origin)) {
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

/** The `Access-Control-Allow-Origin` value for a request's Origin, or undefined when it is not allowed. */
function allowedOrigin(config: CorsConfiguration, origin: string | undefined): string | undefined {
  if (origin === undefined || origin === '') return undefined;
  if (config.allowOrigins.includes('*')) return '*';
  const lower = origin.toLowerCase();
  for (const allowed of config.allowOrigins) {
    const wildcard = /^(https?):\/\/\*$/.exec(allowed);
    if (wildcard ? lower.startsWith(`${wildcard[1]}://`) : allowed.toLowerCase() === lower) return origin;
  }
  return undefined;
}

/** Is this request a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method)? */
export function isPreflight(method: string, headers: RequestHeaders): boolean {
  return (
    method.toUpperCase() === 'OPTIONS' &&
    headers.origin !== undefined &&
    headers['access-control-request-method'] !== undefined
  );
}

type RequestHeaders = Record<string, string | undefined>;

/** The CORS headers of a response: `Access-Control-Allow-Origin` plus `rest`, or none for another origin. */
function forAllowedOrigin(
  config: CorsConfiguration,
  headers: RequestHeaders,
  rest: Record<string, string>,
): Record<string, string> {
  const origin = allowedOrigin(config, headers.origin);
  return origin === undefined ? {} : { 'Access-Control-Allow-Origin': origin, ...rest };
}

/**
 * Headers of the answer to a preflight (always 204, as API Gateway answers): the allowed origin, methods,
 * headers and max age; none when the origin is not allowed (the browser then blocks the request).
 * `headers` are the request's, lower-cased.
 */
export function preflightHeaders(config: CorsConfiguration, headers: RequestHeaders): Record<string, string> {
  return forAllowedOrigin(config, headers, {
    'Access-Control-Allow-Methods': config.allowMethods.join(','),
    'Access-Control-Allow-Headers': config.allowHeaders.join(','),
    'Access-Control-Max-Age': String(config.maxAgeSeconds),
  });
}

/**
 * CORS headers added to an actual response when the request's Origin is allowed: the origin and the
 * exposed headers. (API Gateway ignores CORS headers set by the function; the local server drops them too.)
 */
export function corsResponseHeaders(
  config: CorsConfiguration,
  headers: RequestHeaders,
): Record<string, string> {
  return forAllowedOrigin(config, headers, {
    'Access-Control-Expose-Headers': config.exposeHeaders.join(','),
  });
}
