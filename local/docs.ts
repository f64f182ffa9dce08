import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ROUTE_TABLE } from '../functions/routes';
import { buildOpenApiDocument } from '../lib/openapi/document';
import type { LocalResponse } from './gateway';

/**
 * Local-only routes of the local API server (not Lambda routes, so not in infra/routes.ts):
 * `GET /openapi.json`, the API's OpenAPI document with `servers` set to the server's own origin, and
 * `GET /docs`, a page rendering it with swagger-ui, whose files are served from node_modules under
 * `/docs/assets/` (an allow-list; nothing is loaded from any other host).
 */

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';
export const DOCS_ASSETS_PATH = '/docs/assets/';

const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Our own init script: a served file rather than an inline one, so the page's CSP can say script-src 'self'. */
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  plugins: [SwaggerUIBundle.plugins.DownloadUrl],
  layout: 'BaseLayout',
});
`;

const JS = 'text/javascript; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

/** Every file under /docs/assets/: its content type and where it comes from (a swagger-ui-dist file or ours). */
const ASSETS: Record<string, { type: string; file?: string; text?: string }> = {
  'swagger-ui-bundle.js': { type: JS, file: 'swagger-ui-bundle.js' },
  'swagger-ui-bundle.js.map': { type: JSON_TYPE, file: 'swagger-ui-bundle.js.map' },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', file: 'swagger-ui.css' },
  'swagger-ui.css.map': { type: JSON_TYPE, file: 'swagger-ui.css.map' },
  'favicon-16x16.png': { type: 'image/png', file: 'favicon-16x16.png' },
  'favicon-32x32.png': { type: 'image/png', file: 'favicon-32x32.png' },
  'docs-init.js': { type: JS, text: INIT_SCRIPT },
};

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Commerce API docs (local)</title>
    <link rel="stylesheet" href="${DOCS_ASSETS_PATH}swagger-ui.css">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_ASSETS_PATH}swagger-ui-bundle.js"></script>
    <script src="${DOCS_ASSETS_PATH}docs-init.js"></script>
  </body>
</html>
`;

/**
 * The docs page's policy: scripts and requests to this origin only; swagger-ui sets inline styles and its
 * CSS draws icons from data: URLs.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const COMMON_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' };

let document: Record<string, unknown> | undefined;
const files = new Map<string, Promise<Buffer>>();

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** `http://host:port` as the client addressed this server (its Host header), else the socket's address. */
export function requestOrigin(req: IncomingMessage): string {
  const host = req.headers.host;
  if (host && HOST.test(host)) return `http://${host}`;
  const address = req.socket.localAddress ?? '127.0.0.1';
  return `http://${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
}

/** A swagger-ui-dist file, read once per process. */
function readAsset(file: string): Promise<Buffer> {
  let content = files.get(file);
  if (!content) {
    content = readFile(join(SWAGGER_UI_DIR, file));
    files.set(file, content);
    content.catch(() => files.delete(file));
  }
  return content;
}

/** The response to a local-only docs route, or undefined when the request is not one (API routing applies). */
export async function localDocsResponse(
  req: IncomingMessage,
  rawPath: string,
): Promise<LocalResponse | undefined> {
  if (req.method !== 'GET') return undefined;
  if (rawPath === OPENAPI_PATH) {
    document ??= buildOpenApiDocument(ROUTE_TABLE);
    const body = JSON.stringify({
      ...document,
      servers: [{ url: requestOrigin(req), description: 'this local server' }],
    });
    return { status: 200, headers: { 'Content-Type': JSON_TYPE, ...COMMON_HEADERS }, body };
  }
  if (rawPath === DOCS_PATH) {
    return {
      status: 200,
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': DOCS_CSP,
        'Referrer-Policy': 'no-referrer',
        ...COMMON_HEADERS,
      },
      body: PAGE,
    };
  }
  if (!rawPath.startsWith(DOCS_ASSETS_PATH)) return undefined;
  // Exact names only, never decoded or joined as given: nothing outside the list can be reached.
  const name = rawPath.slice(DOCS_ASSETS_PATH.length);
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset) return undefined;
  const body = asset.file === undefined ? (asset.text ?? '') : await readAsset(asset.file);
  return { status: 200, headers: { 'Content-Type': asset.type, ...COMMON_HEADERS }, body };
}
