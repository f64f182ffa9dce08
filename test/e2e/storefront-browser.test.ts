import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import sample from '../../catalog/sample-release.json';
import { listen } from '../../local/server';
import { CHROMIUM_ARGS, chromiumPath, warnWithoutChromium } from '../support/chromium';
import { createTestStore, type TestStore } from '../support/fixtures';
import { observeExchanges } from '../support/http-tap';
import { type LocalApi, startLocalApi } from '../support/local-api';
import { publishRelease } from '../support/one-process-publisher';

/**
 * A storefront in a real browser: a page served from a second origin loads the official SDK's browser
 * build (`dist/index.js` of @elasticpath/js-sdk, from node_modules), and in Debian's Chromium gets an
 * implicit token and lists a parent's children with `.With(['main_image','files','component_products'])`
 * and `currency: 'EUR'`, as the commerce platform's reference storefront does; and a product page built
 * from a slug URL (breadcrumbs, product, parent variations, children with images). Every call is
 * cross-origin and preflighted, so it only works when the API answers CORS.
 */

warnWithoutChromium('test/e2e/storefront-browser.test.ts');
const browserTest = chromiumPath ? it : it.skip;
const TIMEOUT = 90_000;

const SDK_BUILD = join(
  dirname(createRequire(import.meta.url).resolve('@elasticpath/js-sdk/package.json')),
  'dist/index.js',
);
const TEE = '0190a0c0-0a00-7000-8000-000000000001';
const [TEE_IMAGE, BLACK_IMAGE, WHITE_IMAGE] = [1, 2, 3].map((n) => `0190a0c0-0f20-7000-8000-00000000000${n}`);
const SIZE_CHART = '0190a0c0-0f10-7000-8000-000000000001';
const BLACK_MEDIUM = '0190a0c0-0a00-7000-8000-000000000003';
const [APPAREL, MEN, T_SHIRTS] = [1, 2, 3].map((n) => `0190a0c0-0d00-7000-8000-00000000000${n}`);
const BLACK_MEDIUM_SLUG = 'classic-crew-t-shirt-black-medium';
const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** The storefront page: runs the SDK and leaves what it received (or the error) on `window.storefront`. */
function page(api: LocalApi, clientId: string): string {
  const config = JSON.stringify({ client_id: clientId, host: api.host, protocol: 'http', currency: 'EUR' });
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Storefront</title><script src="/sdk.js"></script></head>
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
    const children = await sdk.ShopperCatalog.Products.With(['main_image', 'files', 'component_products'])
      .Limit(10)
      .GetProductChildren({ productId: '${TEE}', additionalHeaders: { 'EP-Channel': 'web' } });
    const images = children.data.map((product) => {
      const id = product.relationships.main_image && product.relationships.main_image.data.id;
      const image = children.included.main_images.find((file) => file.id === id);
      return image ? image.link.href : null;
    });
    window.storefront = { children, images };
  } catch (error) {
    window.storefront = { error: String(error && (error.message || JSON.stringify(error))) };
  }
})();
</script></body></html>`;
}

/**
 * A product page as the reference storefront builds one, from a slug URL: the product by slug
 * (`Filter({eq:{slug}})`), the product and its parent with `include` (the parent's `meta.variations` and
 * `meta.variation_matrix` drive the variation picker), the parent's children with their images, and the
 * breadcrumbs from the product's `meta.bread_crumbs`, named by `Nodes.Filter({in:{id}})`. Everything is
 * rendered into the DOM; `window.storefront` says when it is done (or the error).
 */
function productPage(api: LocalApi, clientId: string): string {
  const config = JSON.stringify({ client_id: clientId, host: api.host, protocol: 'http', currency: 'EUR' });
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Product</title><script src="/sdk.js"></script></head>
<body><nav id="breadcrumbs"></nav><h1 id="name"></h1><p id="price"></p><img id="image">
<div id="variations"></div><ul id="children"></ul>
<script>
(async () => {
  const values = new Map();
  const storage = {
    set: (key, value) => void values.set(key, value),
    get: (key) => (values.has(key) ? values.get(key) : null),
    delete: (key) => void values.delete(key),
  };
  // A client per call, sharing the token's storage: the SDK keeps Filter/With on its endpoint objects.
  const client = () => window.index.gateway({ ...${config}, storage });
  const headers = { 'EP-Channel': 'web' };
  const include = ['main_image', 'files', 'component_products'];
  const element = (tag, text, attributes = {}) => {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    return node;
  };
  const imageOf = (product, included) => {
    const ref = product.relationships.main_image;
    const file = ref && (included.main_images || []).find((image) => image.id === ref.data.id);
    return file ? file.link.href : '';
  };
  try {
    const slug = new URLSearchParams(location.search).get('slug');
    const found = await client().ShopperCatalog.Products.Filter({ eq: { slug } }).All({ additionalHeaders: headers });
    const productId = found.data[0].id;
    const product = await client().ShopperCatalog.Products.With(include).Get({ productId, additionalHeaders: headers });
    const parentId = product.data.relationships.parent ? product.data.relationships.parent.data.id : productId;
    const parent = await client().ShopperCatalog.Products.With(include).Get({ productId: parentId, additionalHeaders: headers });
    const children = await client().ShopperCatalog.Products.With(include)
      .GetProductChildren({ productId: parentId, additionalHeaders: headers });
    // Breadcrumbs: the product's path of node ids (root first), named by one nodes request.
    const path = Object.values(product.data.meta.bread_crumbs || {})[0] || [];
    const nodes = await client().ShopperCatalog.Nodes.Filter({ in: { id: path } }).All({ additionalHeaders: headers });
    const names = new Map(nodes.data.map((node) => [node.id, node.attributes.name]));
    for (const id of path) {
      const crumb = element('a', names.get(id), { href: '/nodes/' + id });
      document.getElementById('breadcrumbs').append(crumb);
    }

    document.getElementById('name').textContent = product.data.attributes.name;
    document.getElementById('price').textContent = product.data.meta.display_price.with_tax.formatted;
    document.getElementById('image').src = imageOf(product.data, product.included);
    // The variation picker: the parent's variations; the selected options are the path through the
    // parent's variation matrix that ends at this product.
    const selected = [];
    const walk = (matrix, path) => {
      for (const [option, next] of Object.entries(matrix)) {
        if (next === productId) selected.push(...path, option);
        else if (typeof next === 'object') walk(next, [...path, option]);
      }
    };
    walk(parent.data.meta.variation_matrix, []);
    for (const variation of parent.data.meta.variations) {
      const group = element('fieldset', undefined, { 'data-variation': variation.name });
      group.append(element('legend', variation.name));
      for (const option of variation.options) {
        const attributes = { 'data-option': option.name };
        if (selected.includes(option.id)) attributes['aria-checked'] = 'true';
        group.append(element('button', option.name, attributes));
      }
      document.getElementById('variations').append(group);
    }
    for (const child of children.data) {
      const item = element('li', child.attributes.name, { 'data-id': child.id });
      item.prepend(element('img', undefined, { src: imageOf(child, children.included), alt: '' }));
      document.getElementById('children').append(item);
    }
    window.storefront = { done: true, productId, parentId };
  } catch (error) {
    window.storefront = { error: String(error && (error.message || JSON.stringify(error))) };
  }
})();
</script></body></html>`;
}

/** A second origin: serves the pages and the SDK's browser build, nothing else. */
async function startPageServer(
  html: () => string,
  product: () => string = html,
): Promise<{ server: Server; origin: string }> {
  const sdk = readFileSync(SDK_BUILD);
  const server = createServer((req, res) => {
    if (req.url === '/sdk.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(sdk);
    } else if (req.url?.startsWith('/product?')) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(product());
    } else if (req.url === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html());
    } else if (req.url === '/favicon.ico') {
      res.writeHead(204).end();
    } else res.writeHead(404).end();
  });
  return { server, origin: `http://127.0.0.1:${await listen(server, 0)}` };
}

const close = (server: Server | undefined) =>
  new Promise<void>((done) => {
    if (!server) return done();
    server.closeAllConnections();
    server.close(() => done());
  });

let store: TestStore;
let browser: Browser;
const apis: LocalApi[] = [];
const pageServers: Server[] = [];

beforeAll(async () => {
  if (!chromiumPath) return;
  store = await createTestStore();
  await publishRelease(store.store.id, sample);
  browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS, timeout: TIMEOUT });
}, 2 * TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await Promise.all([...apis.map((api) => api.close()), ...pageServers.map(close)]);
});

/** Opens the storefront page (on its own origin) against a local API and returns what the page received. */
async function runStorefront(api: LocalApi) {
  const { server, origin } = await startPageServer(() => page(api, store.clientId));
  pageServers.push(server);
  const context = await browser.newContext();
  const tab = await context.newPage();
  const consoleErrors: string[] = [];
  tab.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  tab.setDefaultTimeout(TIMEOUT);
  await tab.goto(`${origin}/`);
  await tab.waitForFunction(
    () => (globalThis as unknown as { storefront?: unknown }).storefront !== undefined,
  );
  const received = await tab.evaluate(() => (globalThis as unknown as { storefront: unknown }).storefront);
  await context.close();
  return { origin, received: received as Record<string, any>, consoleErrors };
}

describe('a storefront page on another origin, in Chromium, with the official SDK', () => {
  browserTest(
    'gets an implicit token and lists children with their images and files, priced in EUR',
    async () => {
      const api = await startLocalApi();
      apis.push(api);
      const exchanges: { method: string; path: string; status: number; headers: Record<string, unknown> }[] =
        [];
      observeExchanges(api.server, ({ req, status, headers }) =>
        exchanges.push({ method: req.method ?? '', path: req.url ?? '', status, headers }),
      );
      const { origin, received, consoleErrors } = await runStorefront(api);

      expect(received.error).toBeUndefined();
      expect(consoleErrors).toEqual([]);
      const { children, images } = received;
      // The tee's live children, in publish order: four black sizes and the white medium.
      expect(children.data.map((product: { id: string }) => product.id)).toEqual(
        [2, 3, 4, 5, 7].map((n) => `0190a0c0-0a00-7000-8000-00000000000${n}`),
      );
      expect(children.included.main_images.map((file: { id: string }) => file.id)).toEqual([
        BLACK_IMAGE,
        WHITE_IMAGE,
      ]);
      expect(children.included.main_images[0]).toEqual({
        type: 'file',
        id: BLACK_IMAGE,
        file_name: 'classic-crew-tee-black.png',
        mime_type: 'image/png',
        file_size: 45120,
        link: { href: 'https://placehold.co/800x800.png?text=Black+Tee' },
        meta: {
          dimensions: { width: 800, height: 800 },
          timestamps: { created_at: '2024-03-01T09:00:00.000Z' },
        },
      });
      expect(children.included.files.map((file: { id: string }) => file.id)).toEqual([SIZE_CHART]);
      expect(children.included.component_products).toEqual([]);
      expect(children.included.main_images.map((file: { id: string }) => file.id)).not.toContain(TEE_IMAGE);
      // The page resolves every product's picture the way the reference storefront does.
      expect(images).toEqual([
        'https://placehold.co/800x800.png?text=Black+Tee',
        'https://placehold.co/800x800.png?text=Black+Tee',
        'https://placehold.co/800x800.png?text=Black+Tee',
        'https://placehold.co/800x800.png?text=Black+Tee',
        'https://placehold.co/800x800.png?text=White+Tee',
      ]);
      // currency: 'EUR' (X-MOLTIN-CURRENCY): the tee's EUR price, formatted with the store's EUR settings.
      expect(children.data[0].meta.display_price.with_tax).toEqual({
        amount: 2300,
        currency: 'EUR',
        formatted: '23,00 €',
      });
      expect(children.meta.results.total).toBe(5);

      // What crossed the wire: both calls preflighted by the browser, answered for the page's origin.
      const preflights = exchanges.filter((exchange) => exchange.method === 'OPTIONS');
      expect(preflights.map((exchange) => [exchange.path.split('?')[0], exchange.status])).toEqual([
        ['/oauth/access_token', 204],
        [`/catalog/products/${TEE}/relationships/children`, 204],
      ]);
      const list = exchanges.find((exchange) => exchange.method === 'GET');
      expect(list?.path).toContain('include=main_image,files,component_products');
      expect(list?.headers['access-control-allow-origin']).toBe('*');
      expect(origin).not.toBe(api.baseUrl);
    },
    2 * TIMEOUT,
  );

  browserTest(
    'renders a product page from a slug URL: breadcrumbs, product, parent variations, children with images',
    async () => {
      const api = await startLocalApi();
      apis.push(api);
      const paths: string[] = [];
      observeExchanges(api.server, ({ req, status }) => {
        if (req.method === 'GET')
          paths.push(`${status} ${decodeURIComponent(req.url ?? '').split('&page')[0]}`);
      });
      const { server, origin } = await startPageServer(
        () => page(api, store.clientId),
        () => productPage(api, store.clientId),
      );
      pageServers.push(server);
      const context = await browser.newContext();
      // The images' host is on the internet, which this machine cannot reach: the browser gets a 1x1 PNG.
      await context.route('https://placehold.co/**', (route) =>
        route.fulfill({ status: 200, contentType: 'image/png', body: ONE_PIXEL_PNG }),
      );
      const tab = await context.newPage();
      const consoleErrors: string[] = [];
      tab.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      tab.setDefaultTimeout(TIMEOUT);
      await tab.goto(`${origin}/product?slug=${BLACK_MEDIUM_SLUG}`);
      await tab.waitForFunction(
        () => (globalThis as unknown as { storefront?: unknown }).storefront !== undefined,
      );
      const received = (await tab.evaluate(
        () => (globalThis as unknown as { storefront: unknown }).storefront,
      )) as Record<string, unknown>;
      expect(received).toEqual({ done: true, productId: BLACK_MEDIUM, parentId: TEE });
      expect(consoleErrors).toEqual([]);
      const text = (selector: string) => tab.locator(selector).innerText();
      expect(await tab.locator('#breadcrumbs a').allInnerTexts()).toEqual(['Apparel', 'Men', 'T-Shirts']);
      expect(await tab.locator('#breadcrumbs a').first().getAttribute('href')).toBe(`/nodes/${APPAREL}`);
      expect(await text('#name')).toBe('Classic Crew T-Shirt - Black / Medium');
      expect(await text('#price')).toBe('23,00 €');
      expect(await tab.locator('#image').getAttribute('src')).toBe(
        'https://placehold.co/800x800.png?text=Black+Tee',
      );
      // The parent's variations, with this child's options selected through its variation matrix.
      const groups = await tab
        .locator('#variations fieldset')
        .evaluateAll((nodes) =>
          nodes.map((node) => [
            node.getAttribute('data-variation'),
            [...node.querySelectorAll('button')].map((button) => button.textContent),
            [...node.querySelectorAll('button[aria-checked="true"]')].map((button) => button.textContent),
          ]),
        );
      expect(groups).toEqual([
        ['Size', ['Small', 'Medium', 'Large', 'Extra large'], ['Medium']],
        ['Colour', ['Black', 'White'], ['Black']],
      ]);
      const children = await tab
        .locator('#children li')
        .evaluateAll((nodes) =>
          nodes.map((node) => [node.textContent, node.querySelector('img')?.getAttribute('src')]),
        );
      expect(children).toEqual([
        ['Classic Crew T-Shirt - Black / Small', 'https://placehold.co/800x800.png?text=Black+Tee'],
        ['Classic Crew T-Shirt - Black / Medium', 'https://placehold.co/800x800.png?text=Black+Tee'],
        ['Classic Crew T-Shirt - Black / Large', 'https://placehold.co/800x800.png?text=Black+Tee'],
        ['Classic Crew T-Shirt - Black / Extra large', 'https://placehold.co/800x800.png?text=Black+Tee'],
        ['Classic Crew T-Shirt - White / Medium', 'https://placehold.co/800x800.png?text=White+Tee'],
      ]);
      // Every image loaded and was decoded by the browser.
      const loaded = () =>
        tab
          .locator('img')
          .evaluateAll((nodes) =>
            nodes.map(
              (node) => (node as unknown as { complete: boolean; naturalWidth: number }).naturalWidth,
            ),
          );
      await tab.waitForFunction(() =>
        Array.from(
          (globalThis as unknown as { document: { images: ArrayLike<{ complete: boolean }> } }).document
            .images,
        ).every((image) => image.complete),
      );
      expect(await loaded()).toEqual([1, 1, 1, 1, 1, 1]);
      // Every call the page made was answered: none is a 404.
      const include = 'include=main_image,files,component_products';
      expect(paths).toEqual([
        `200 /catalog/products?filter=eq(slug,${BLACK_MEDIUM_SLUG})`,
        `200 /catalog/products/${BLACK_MEDIUM}?${include}`,
        `200 /catalog/products/${TEE}?${include}`,
        `200 /catalog/products/${TEE}/relationships/children?${include}`,
        `200 /catalog/nodes?filter=in(id,${[APPAREL, MEN, T_SHIRTS].join(',')})`,
      ]);
      await context.close();
    },
    2 * TIMEOUT,
  );

  browserTest(
    'is blocked by the browser when the API does not allow the page origin',
    async () => {
      const api = await startLocalApi({ corsOrigins: ['https://shop.example.com'] });
      apis.push(api);
      const { received } = await runStorefront(api);
      expect(received.children).toBeUndefined();
      expect(received.error).toMatch(/Failed to fetch/);
    },
    2 * TIMEOUT,
  );
});
