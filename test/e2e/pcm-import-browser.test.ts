import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { listen } from '../../local/server';
import { CHROMIUM_ARGS, chromiumPath, warnWithoutChromium } from '../support/chromium';
import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { type LocalApi, startLocalApi } from '../support/local-api';

/**
 * A merchant's tool in a real browser: a page on another origin loads the official SDK's browser build and,
 * in Debian's Chromium, imports a CSV file with `PCM.ImportProducts(formData)` unmodified (in a browser the
 * SDK sends a FormData as it is, multipart), follows the job with `PCM.Jobs.Get` until it ends, reads its
 * errors with `PCM.Jobs.GetJobErrors`, and finds the product with `PCM.Filter`. The job runs through the
 * local server's jobs queue, after the request answered, as in AWS through SQS.
 */

warnWithoutChromium('test/e2e/pcm-import-browser.test.ts');
const browserTest = chromiumPath ? it : it.skip;
const TIMEOUT = 90_000;

const SDK_BUILD = join(
  dirname(createRequire(import.meta.url).resolve('@elasticpath/js-sdk/package.json')),
  'dist/index.js',
);
const CSV = [
  'external_ref,name,description,slug,status,commodity_type,sku',
  'browser-import-1,Imported in a browser,"Sent by the SDK, as a form",browser-import-1,live,physical,BROWSER-1',
  'browser-import-2,Imported too,Second row,browser-import-2,draft,digital,',
].join('\n');

/** The tool's page: leaves what the SDK answered (or the error) on `window.imported`. */
function page(api: LocalApi, store: TestStore): string {
  const config = JSON.stringify({
    client_id: store.clientId,
    client_secret: store.clientSecret,
    host: api.host,
    protocol: 'http',
  });
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Import</title><script src="/sdk.js"></script></head>
<body><script>
(async () => {
  const values = new Map();
  const storage = {
    set: (key, value) => void values.set(key, value),
    get: (key) => (values.has(key) ? values.get(key) : null),
    delete: (key) => void values.delete(key),
  };
  const sdk = window.index.gateway({ ...${config}, storage });
  try {
    const form = new FormData();
    form.append('file', new Blob([${JSON.stringify(CSV)}], { type: 'text/csv' }), 'products.csv');
    const created = await sdk.PCM.ImportProducts(form);
    let job = created;
    for (let poll = 0; poll < 300 && !['success', 'failed'].includes(job.data.attributes.status); poll += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = await sdk.PCM.Jobs.Get(created.data.id);
    }
    const errors = await sdk.PCM.Jobs.GetJobErrors(created.data.id);
    const products = await sdk.PCM.Filter({ like: { external_ref: 'browser-import-*' } }).All();
    window.imported = { created, job, errors, products };
  } catch (error) {
    window.imported = { error: String(error && (error.message || JSON.stringify(error))) };
  }
})();
</script></body></html>`;
}

let browser: Browser;
let api: LocalApi;
let pageServer: Server;
let origin: string;
let store: TestStore;

beforeAll(async () => {
  if (!chromiumPath) return;
  api = await startLocalApi();
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  const sdk = readFileSync(SDK_BUILD);
  pageServer = createServer((req, res) => {
    if (req.url === '/sdk.js') res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(sdk);
    else if (req.url === '/')
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page(api, store));
    else if (req.url === '/favicon.ico') res.writeHead(204).end();
    else res.writeHead(404).end();
  });
  origin = `http://127.0.0.1:${await listen(pageServer, 0)}`;
  browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS, timeout: TIMEOUT });
}, 2 * TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await api?.close();
  await new Promise<void>((done) => {
    if (!pageServer) return done();
    pageServer.closeAllConnections();
    pageServer.close(() => done());
  });
});

describe('a CSV import from a browser page, with the official SDK', () => {
  browserTest(
    'PCM.ImportProducts(formData) answers a pending product-import job that ends in success with the products made',
    async () => {
      const context = await browser.newContext();
      const tab = await context.newPage();
      const consoleErrors: string[] = [];
      tab.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      tab.setDefaultTimeout(TIMEOUT);
      await tab.goto(`${origin}/`);
      await tab.waitForFunction(() => (globalThis as { imported?: unknown }).imported !== undefined);
      const imported = (await tab.evaluate(
        () => (globalThis as unknown as { imported: unknown }).imported,
      )) as Record<string, any>;
      await context.close();

      expect(imported.error).toBeUndefined();
      expect(consoleErrors).toEqual([]);
      expect(imported.created.data).toMatchObject({
        type: 'pim-job',
        attributes: { type: 'product-import', status: 'pending' },
      });
      expect(imported.job.data).toMatchObject({
        id: imported.created.data.id,
        attributes: { type: 'product-import', status: 'success' },
      });
      expect(imported.errors.data).toEqual([]);
      // Rows are applied 16 at a time: the products they create list in creation order, not file order.
      const products = imported.products.data
        .map((product: { attributes: Record<string, unknown> }) => product.attributes)
        .sort((a: { external_ref: string }, b: { external_ref: string }) =>
          a.external_ref.localeCompare(b.external_ref),
        );
      expect(products).toEqual([
        expect.objectContaining({
          external_ref: 'browser-import-1',
          name: 'Imported in a browser',
          description: 'Sent by the SDK, as a form',
          status: 'live',
          sku: 'BROWSER-1',
        }),
        expect.objectContaining({
          external_ref: 'browser-import-2',
          status: 'draft',
          commodity_type: 'digital',
        }),
      ]);
    },
    2 * TIMEOUT,
  );
});
