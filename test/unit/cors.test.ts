import {
  CORS_ALLOWED_HEADERS,
  CORS_VARY_ENV,
  CorsOriginsError,
  corsConfiguration,
  parseCorsOrigins,
} from '../../lib/http/cors';
import { securityHeaders } from '../../lib/http/middleware';
import { corsResponseHeaders, isPreflight, preflightHeaders } from '../../local/gateway-cors';

describe('parseCorsOrigins', () => {
  it('defaults to * when unset or empty', () => {
    expect(parseCorsOrigins(undefined)).toEqual(['*']);
    expect(parseCorsOrigins(' , ')).toEqual(['*']);
    expect(parseCorsOrigins([])).toEqual(['*']);
  });

  it('reads a comma-separated list or an array, trimmed and without repeats', () => {
    expect(parseCorsOrigins(' https://a.example.com,http://localhost:5173 ,https://a.example.com')).toEqual([
      'https://a.example.com',
      'http://localhost:5173',
    ]);
    expect(parseCorsOrigins(['https://*', 'http://*'])).toEqual(['https://*', 'http://*']);
  });

  it.each([
    'a.example.com',
    'https://a.example.com/',
    'https://a.example.com/shop',
    'ftp://a',
    'https://*.example.com',
  ])('refuses %p, naming the setting', (origin) => {
    expect(() => parseCorsOrigins(origin, 'corsOrigins')).toThrow(CorsOriginsError);
    expect(() => parseCorsOrigins(origin, 'corsOrigins')).toThrow(
      `corsOrigins: "${origin}" is not an origin`,
    );
  });
});

describe('CORS headers', () => {
  const listed = corsConfiguration(['https://shop.example.com', 'http://*'], ['GET', 'POST', 'GET']);

  it('lists every header the official SDK sends and the shopper headers, never *', () => {
    for (const header of [
      'Authorization',
      'Content-Type',
      'X-Moltin-SDK-Language',
      'X-Moltin-SDK-Version',
      'X-Moltin-Application',
      'X-Moltin-Currency',
      'SVC-Channel',
      'SVC-Context-Tag',
      'EP-Channel',
      'EP-Context-Tag',
      'EP-Currency',
      'Accept-Language',
    ])
      expect(CORS_ALLOWED_HEADERS).toContain(header);
    expect(CORS_ALLOWED_HEADERS).not.toContain('*');
    expect(listed.allowMethods).toEqual(['GET', 'POST']);
  });

  it('recognises a preflight only with Origin and Access-Control-Request-Method', () => {
    expect(isPreflight('OPTIONS', { origin: 'https://a', 'access-control-request-method': 'GET' })).toBe(
      true,
    );
    expect(isPreflight('options', { origin: 'https://a', 'access-control-request-method': 'GET' })).toBe(
      true,
    );
    expect(isPreflight('OPTIONS', { origin: 'https://a' })).toBe(false);
    expect(isPreflight('GET', { origin: 'https://a', 'access-control-request-method': 'GET' })).toBe(false);
  });

  it('echoes a listed origin (case-insensitively) or a scheme wildcard, and answers others with nothing', () => {
    expect(
      preflightHeaders(listed, { origin: 'https://SHOP.example.com' })['Access-Control-Allow-Origin'],
    ).toBe('https://SHOP.example.com');
    expect(corsResponseHeaders(listed, { origin: 'http://localhost:3000' })).toEqual({
      'Access-Control-Allow-Origin': 'http://localhost:3000',
      'Access-Control-Expose-Headers':
        'Retry-After,X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset',
    });
    expect(preflightHeaders(listed, { origin: 'https://other.example.com' })).toEqual({});
    expect(corsResponseHeaders(listed, {})).toEqual({});
  });
});

describe('Vary: Origin from the functions (listed origins)', () => {
  const respond = async (env: string | undefined) => {
    const previous = process.env[CORS_VARY_ENV];
    if (env === undefined) delete process.env[CORS_VARY_ENV];
    else process.env[CORS_VARY_ENV] = env;
    try {
      const middleware = securityHeaders(false);
      const request = {
        response: { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' },
      };
      await middleware.after?.(request as never);
      return request.response.headers as Record<string, string>;
    } finally {
      if (previous === undefined) delete process.env[CORS_VARY_ENV];
      else process.env[CORS_VARY_ENV] = previous;
    }
  };

  it('adds Vary: Origin when the stack says the origins are listed, and nothing otherwise', async () => {
    expect((await respond('Origin')).Vary).toBe('Origin');
    expect((await respond(undefined)).Vary).toBeUndefined();
  });
});
