import type { Server } from 'node:http';
import { apiCorsConfiguration } from '../../functions/routes';
import { CorsOriginsError } from '../../lib/http/cors';
import { createLocalServer, listen } from '../../local/server';
import { createTestStore, type TestStore } from '../support/fixtures';

/** The local server answers CORS as API Gateway does with the stack's `corsPreflight`, from the same configuration. */

const SHOP = 'https://shop.example.com';
let servers: Server[] = [];
let store: TestStore;

async function start(options: Parameters<typeof createLocalServer>[0] = {}): Promise<string> {
  const server = createLocalServer(options);
  servers.push(server);
  return `http://127.0.0.1:${await listen(server, 0)}`;
}

beforeAll(async () => {
  store = await createTestStore();
});
afterEach(async () => {
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
    ),
  );
  servers = [];
});

const preflight = (base: string, path: string, origin: string, method = 'GET') =>
  fetch(`${base}${path}`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': method,
      'Access-Control-Request-Headers': 'authorization,content-type,x-moltin-currency,svc-channel',
    },
  });

const corsHeaders = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));

describe('local server CORS, default origins (*)', () => {
  it('answers a preflight on any route 204 with the configuration of the stack', async () => {
    const base = await start();
    const cors = apiCorsConfiguration(['*']);
    for (const [path, method] of [
      ['/oauth/access_token', 'POST'],
      ['/catalog/products/x/relationships/children', 'GET'],
      ['/v2/application-keys/x', 'DELETE'],
    ] as const) {
      const response = await preflight(base, path, SHOP, method);
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
      expect(corsHeaders(response)).toEqual({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': cors.allowMethods.join(','),
        'access-control-allow-headers': cors.allowHeaders.join(','),
        'access-control-max-age': '3600',
      });
    }
  });

  it('adds allow-origin and the exposed headers to responses, errors and gateway 404s included', async () => {
    const base = await start();
    const token = await fetch(`${base}/oauth/access_token`, {
      method: 'POST',
      headers: { Origin: SHOP, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=implicit&client_id=${store.clientId}`,
    });
    expect(token.status).toBe(200);
    const expected = {
      'access-control-allow-origin': '*',
      'access-control-expose-headers':
        'Retry-After,X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset',
    };
    expect(corsHeaders(token)).toEqual(expected);
    const unauthorized = await fetch(`${base}/v2/application-keys`, { headers: { Origin: SHOP } });
    expect(unauthorized.status).toBe(401);
    expect(corsHeaders(unauthorized)).toEqual(expected);
    const notFound = await fetch(`${base}/nowhere`, { headers: { Origin: SHOP } });
    expect(notFound.status).toBe(404);
    expect(corsHeaders(notFound)).toEqual(expected);
  });

  it('adds nothing to a request without Origin, and an OPTIONS that is not a preflight is an unrouted 404', async () => {
    const base = await start();
    const plain = await fetch(`${base}/v2/application-keys`);
    expect(corsHeaders(plain)).toEqual({});
    const options = await fetch(`${base}/v2/application-keys`, { method: 'OPTIONS' });
    expect(options.status).toBe(404);
    expect(await options.json()).toEqual({ message: 'Not Found' });
  });
});

describe('local server CORS, listed origins', () => {
  it('echoes an allowed origin and gives others no CORS headers (the browser blocks them)', async () => {
    const base = await start({ corsOrigins: [SHOP, 'http://*'] });
    const allowed = await preflight(base, '/v2/application-keys', SHOP);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(SHOP);
    const wildcard = await preflight(base, '/v2/application-keys', 'http://localhost:5173');
    expect(wildcard.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    const other = await preflight(base, '/v2/application-keys', 'https://evil.example.com');
    expect(other.status).toBe(204);
    expect(corsHeaders(other)).toEqual({});
    const actual = await fetch(`${base}/v2/application-keys`, {
      headers: { Origin: 'https://evil.example.com' },
    });
    expect(corsHeaders(actual)).toEqual({});
  });

  it('says Vary: Origin on every answer (preflights, responses, errors, other origins, no origin)', async () => {
    const base = await start({ corsOrigins: [SHOP] });
    const answers = [
      await preflight(base, '/v2/application-keys', SHOP),
      await preflight(base, '/v2/application-keys', 'https://evil.example.com'),
      await fetch(`${base}/v2/application-keys`, { headers: { Origin: SHOP } }),
      await fetch(`${base}/v2/application-keys`),
      await fetch(`${base}/nowhere`, { headers: { Origin: SHOP } }),
    ];
    expect(answers.map((response) => response.headers.get('vary'))).toEqual(Array(5).fill('Origin'));
    // With `*` the answer is the same for every origin: no Vary.
    const open = await start();
    const anyOrigin = await fetch(`${open}/v2/application-keys`, { headers: { Origin: SHOP } });
    expect(anyOrigin.headers.get('vary')).toBeNull();
  });

  it('echoes only well-formed origins under http://* (never "http://a b" or a path)', async () => {
    const base = await start({ corsOrigins: ['http://*'] });
    for (const origin of [
      'http://a b',
      'http://shop.example.com/path',
      'http://a\tb',
      'http://',
      'https://shop.example.com',
    ]) {
      const response = await preflight(base, '/v2/application-keys', origin);
      expect([origin, response.headers.get('access-control-allow-origin')]).toEqual([origin, null]);
    }
    const good = await preflight(base, '/v2/application-keys', 'http://shop-1.example.com:8080');
    expect(good.headers.get('access-control-allow-origin')).toBe('http://shop-1.example.com:8080');
  });

  it('reads CORS_ORIGINS and refuses a bad one at start', async () => {
    process.env.CORS_ORIGINS = `${SHOP}, https://admin.example.com`;
    try {
      const base = await start();
      const response = await preflight(base, '/v2/application-keys', 'https://admin.example.com');
      expect(response.headers.get('access-control-allow-origin')).toBe('https://admin.example.com');
      for (const bad of [
        'shop.example.com',
        'http://a b',
        'https://shop.example.com:70000',
        'https://shop.example.com/',
      ]) {
        process.env.CORS_ORIGINS = bad;
        expect(() => createLocalServer()).toThrow(CorsOriginsError);
      }
    } finally {
      delete process.env.CORS_ORIGINS;
    }
  });
});
