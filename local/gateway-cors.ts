/*
 * API Gateway's CORS behaviour (an HTTP API with `corsPreflight`), as the local servers reproduce it:
 * preflights are answered 204 before any routing, and every other response to an allowed Origin gets
 * the configured headers (a function's own Access-Control-* headers are dropped). The configuration
 * itself comes from lib/http/cors.ts (in-process server) or from the template's
 * AWS::ApiGatewayV2::Api CorsConfiguration (template-driven server); this file imports neither.
 */

/** A CORS configuration in the terms of API Gateway's `corsPreflight`. */
export interface GatewayCors {
  allowOrigins: readonly string[];
  allowMethods: readonly string[];
  allowHeaders: readonly string[];
  exposeHeaders: readonly string[];
  maxAgeSeconds: number;
}

type RequestHeaders = Record<string, string | string[] | undefined>;

function header(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/** What a browser sends as Origin: scheme, host (letters, digits, dots, hyphens) and an optional port. */
const REQUEST_ORIGIN = /^https?:\/\/[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*(?::\d{1,5})?$/;

/**
 * The `Access-Control-Allow-Origin` value for a request's Origin, or undefined when it is not allowed. Only a
 * well-formed origin is ever echoed: `http://*` allows every http origin, not any text after `http://`.
 */
function allowedOrigin(config: GatewayCors, origin: string | undefined): string | undefined {
  if (origin === undefined || origin === '') return undefined;
  if (config.allowOrigins.includes('*')) return '*';
  if (!REQUEST_ORIGIN.test(origin)) return undefined;
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
    header(headers, 'origin') !== undefined &&
    header(headers, 'access-control-request-method') !== undefined
  );
}

/** The CORS headers of a response: `Access-Control-Allow-Origin` plus `rest`, or none for another origin. */
function forAllowedOrigin(
  config: GatewayCors,
  headers: RequestHeaders,
  rest: Record<string, string>,
): Record<string, string> {
  const origin = allowedOrigin(config, header(headers, 'origin'));
  return origin === undefined ? {} : { 'Access-Control-Allow-Origin': origin, ...rest };
}

/**
 * Headers of the answer to a preflight (always 204, as API Gateway answers): the allowed origin, methods,
 * headers and max age; none when the origin is not allowed (the browser then blocks the request).
 * `headers` are the request's, lower-cased.
 */
export function preflightHeaders(config: GatewayCors, headers: RequestHeaders): Record<string, string> {
  return forAllowedOrigin(config, headers, {
    'Access-Control-Allow-Methods': config.allowMethods.join(','),
    'Access-Control-Allow-Headers': config.allowHeaders.join(','),
    'Access-Control-Max-Age': String(config.maxAgeSeconds),
  });
}

/**
 * CORS headers added to an actual response when the request's Origin is allowed: the origin and the
 * exposed headers. (API Gateway ignores CORS headers set by the function; the local servers drop them too.)
 */
export function corsResponseHeaders(config: GatewayCors, headers: RequestHeaders): Record<string, string> {
  return forAllowedOrigin(config, headers, {
    'Access-Control-Expose-Headers': config.exposeHeaders.join(','),
  });
}

/**
 * `Vary: Origin` when the answer depends on the request's Origin (the allowed origins are not `*`), so that no
 * cache serves one origin's `Access-Control-Allow-Origin` to another; merged into the function's own `Vary`.
 */
export function varyOnOrigin(config: GatewayCors, headers: Record<string, string>): Record<string, string> {
  if (config.allowOrigins.includes('*')) return headers;
  const name = Object.keys(headers).find((key) => key.toLowerCase() === 'vary');
  const current = name === undefined ? '' : (headers[name] ?? '');
  if (current.split(',').some((value) => value.trim().toLowerCase() === 'origin' || value.trim() === '*'))
    return headers;
  const rest = Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
  return { ...rest, Vary: current.trim() === '' ? 'Origin' : `${current}, Origin` };
}

/** Response headers without CORS headers, which the gateway owns. */
export function withoutCorsHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !name.toLowerCase().startsWith('access-control-')),
  );
}
