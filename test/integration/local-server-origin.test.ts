import type { Server } from 'node:http';
import { createLocalServer, listen, localOrigin } from '../../local/server';
import { createTestStore, tokenFor } from '../support/fixtures';
import { rawRequest } from '../support/raw-request';

/*
 * The local server builds `links` and `Location` from its own configured origin (or a Host header it
 * recognises as naming itself), never from raw request headers: API Gateway fixes Host and
 * X-Forwarded-Proto in AWS, but the local server is what people run and demo.
 */

let server: Server;
let port: number;
let adminToken: string;

beforeAll(async () => {
  server = createLocalServer();
  port = await listen(server, 0);
  adminToken = await tokenFor(await createTestStore());
});
afterAll(
  () =>
    new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    }),
);

/** A raw request (fetch would not let the test set Host), its body parsed. */
async function send(method: string, path: string, headers: Record<string, string>, body?: string) {
  const response = await rawRequest(port, method, path, headers, body);
  return { status: response.status, headers: response.headers, body: JSON.parse(response.text || 'null') };
}

describe('links and Location on the local server', () => {
  it.each([
    ['a foreign Host and a javascript scheme', { host: 'evil.example', 'x-forwarded-proto': 'javascript' }],
    ['a Host with a path in it', { host: 'evil.example/x?', 'x-forwarded-proto': 'https' }],
    ['a scheme list', { host: 'localhost', 'x-forwarded-proto': 'javascript, https' }],
  ])('never copies %s into links or Location', async (_case, spoofed) => {
    const created = await send(
      'POST',
      '/v2/application-keys',
      { ...spoofed, authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      JSON.stringify({ data: { type: 'application_key', name: 'origin test' } }),
    );
    expect(created.status).toBe(201);
    // None of these Hosts names this server with its port, so its own address is used.
    const origin = `http://127.0.0.1:${port}`;
    expect(created.headers.location).toBe(`${origin}/v2/application-keys/${created.body.data.id}`);
    expect(created.body.links.self).toBe(`${origin}/v2/application-keys/${created.body.data.id}`);
    const list = await send('GET', '/v2/application-keys', {
      ...spoofed,
      authorization: `Bearer ${adminToken}`,
    });
    for (const link of Object.values(list.body.links))
      if (link !== null) expect(link).toMatch(new RegExp(`^${origin}/`));
  });
});

describe('localOrigin', () => {
  it('keeps a Host that names this server (loopback names, with this port)', () => {
    expect(localOrigin('localhost:3000', 3000)).toBe('http://localhost:3000');
    expect(localOrigin('127.0.0.1:3000', 3000)).toBe('http://127.0.0.1:3000');
    expect(localOrigin('[::1]:3000', 3000)).toBe('http://[::1]:3000');
  });

  it.each([
    undefined,
    '',
    'evil.example',
    'evil.example:3000',
    'localhost:4000',
    'localhost@evil.example',
    'a b',
  ])('falls back to 127.0.0.1 and the listening port for Host %j', (host) => {
    expect(localOrigin(host, 3000)).toBe('http://127.0.0.1:3000');
  });

  it('uses the configured PUBLIC_URL, whatever the request says', () => {
    expect(localOrigin('evil.example', 3000, 'https://demo.example.com')).toBe('https://demo.example.com');
  });
});
