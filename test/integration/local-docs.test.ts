import { readFileSync } from 'node:fs';
import { request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ROUTE_TABLE } from '../../functions/routes';
import { buildOpenApiDocument } from '../../lib/openapi/document';
import { DOCS_CSP } from '../../local/docs';
import { createLocalServer, listen } from '../../local/server';

/** The local server's own routes: GET /openapi.json, GET /docs and its allow-listed assets. */

const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

let server: Server;
let port: number;
let base: string;

beforeAll(async () => {
  server = createLocalServer();
  port = await listen(server, 0);
  base = `http://127.0.0.1:${port}`;
});
afterAll(
  () =>
    new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    }),
);

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A request with the path sent exactly as given (fetch would normalise `..` and dot segments away). */
function raw(path: string, options: { method?: string; headers?: Record<string, string> } = {}) {
  return new Promise<RawResponse>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const withoutServers = (document: Record<string, unknown>) => {
  const { servers: _servers, ...rest } = document;
  return rest;
};

describe('GET /openapi.json', () => {
  it('serves the built document, with servers set to the origin the client used', async () => {
    const response = await fetch(`${base}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const document = (await response.json()) as Record<string, unknown>;
    expect(withoutServers(document)).toEqual(withoutServers(buildOpenApiDocument(ROUTE_TABLE)));
    expect(document.servers).toEqual([{ url: base, description: 'this local server' }]);

    const viaLocalhost = await raw('/openapi.json?x=1', { headers: { host: `localhost:${port}` } });
    expect(viaLocalhost.status).toBe(200);
    expect(JSON.parse(viaLocalhost.body.toString()).servers).toEqual([
      { url: `http://localhost:${port}`, description: 'this local server' },
    ]);
  });

  it('falls back to the socket address when the Host header is not a plain host', async () => {
    const response = await raw('/openapi.json', { headers: { host: 'evil.example/"><script>' } });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.toString()).servers[0].url).toBe(base);
  });
});

describe('GET /docs', () => {
  it('serves our page with a restrictive CSP, loading only local assets', async () => {
    const response = await fetch(`${base}/docs?anything`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(DOCS_CSP);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-eval');
    const html = await response.text();
    expect(html).not.toMatch(/(?:https?:)?\/\/|<script>|\son\w+=/i);
    const urls = [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(urls).toEqual([
      '/docs/assets/swagger-ui.css',
      '/docs/assets/favicon-32x32.png',
      '/docs/assets/favicon-16x16.png',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/assets/docs-init.js',
    ]);
  });

  it('has an init script of our own that points swagger-ui at /openapi.json, without the validator badge', async () => {
    const response = await fetch(`${base}/docs/assets/docs-init.js`);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const script = await response.text();
    expect(script).toContain('url: "/openapi.json"');
    expect(script).toContain('validatorUrl: null');
    expect(script).not.toMatch(/\/\//);
  });
});

describe('/docs/assets/', () => {
  it.each([
    ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['swagger-ui-bundle.js.map', 'application/json; charset=utf-8'],
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['swagger-ui.css.map', 'application/json; charset=utf-8'],
    ['favicon-16x16.png', 'image/png'],
    ['favicon-32x32.png', 'image/png'],
  ])('serves swagger-ui-dist/%s as %s', async (name, type) => {
    const response = await raw(`/docs/assets/${name}`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(type);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.body.equals(readFileSync(join(SWAGGER_UI_DIR, name)))).toBe(true);
  });

  it.each([
    '/docs/assets/../../package.json',
    '/docs/assets/../../../package.json',
    '/docs/assets/..%2f..%2fpackage.json',
    '/docs/assets/..%2F..%2Fpackage.json',
    '/docs/assets/%2e%2e/%2e%2e/package.json',
    '/docs/assets/%2e%2e%2f%2e%2e%2fpackage.json',
    '/docs/assets/%252e%252e%252f%252e%252e%252fpackage.json',
    '/docs/assets/..%5c..%5cpackage.json',
    '/docs/assets/..\\..\\package.json',
    '/docs/assets/%2fetc%2fpasswd',
    '/docs/assets//etc/passwd',
    '/docs/assets/./swagger-ui.css',
    '/docs/assets//swagger-ui.css',
    '/docs/assets/swagger-ui.css%00',
    '/docs/assets/swagger-ui.css/',
    '/docs/assets/SWAGGER-UI.CSS',
    '/docs/assets/package.json',
    '/docs/assets/index.html',
    '/docs/assets/swagger-initializer.js',
    '/docs/assets/constructor',
    '/docs/assets/__proto__',
    '/docs/assets/',
    '/docs/assets',
    '/docs/',
    '/docs/../package.json',
    '/openapi.json/',
  ])('answers %s with the gateway 404', async (path) => {
    const response = await raw(path);
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body.toString())).toEqual({ message: 'Not Found' });
  });

  it.each(['/docs', '/openapi.json', '/docs/assets/swagger-ui.css'])(
    'answers other methods than GET on %s with the gateway 404',
    async (path) => {
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const response = await raw(path, { method });
        expect(response.status).toBe(404);
        expect(JSON.parse(response.body.toString())).toEqual({ message: 'Not Found' });
      }
    },
  );
});
