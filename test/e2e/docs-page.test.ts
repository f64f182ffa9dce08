import { type Browser, chromium, type Page } from 'playwright-core';
import { ROUTES } from '../../functions/routes';
import { CHROMIUM_ARGS, chromiumPath, warnWithoutChromium } from '../support/chromium';
import { type LocalApi, startLocalApi } from '../support/local-api';

/**
 * GET /docs in a real browser: Debian's Chromium (CHROMIUM_PATH, else /usr/bin/chromium) driven by
 * playwright-core renders the local OpenAPI document with swagger-ui, from local files only.
 * Without a Chromium the test is skipped, with a message saying how to install one.
 */

const executablePath = chromiumPath;
warnWithoutChromium('test/e2e/docs-page.test.ts');

const RENDER_TIMEOUT = 90_000;

let api: LocalApi;
let browser: Browser;

beforeAll(async () => {
  if (!executablePath) return;
  api = await startLocalApi();
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: RENDER_TIMEOUT });
}, 2 * RENDER_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

/** What the page did: every URL it requested, and its console errors and uncaught exceptions. */
function watch(page: Page) {
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  return { requests, errors };
}

// Skipped only where no Chromium is installed (the message above says how to install one).
const browserTest = executablePath ? it : it.skip;

describe('GET /docs in Chromium', () => {
  browserTest(
    'lists exactly the route table, from the local server only, and "Try it out" calls the local API',
    async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
      const seen = watch(page);
      page.setDefaultTimeout(RENDER_TIMEOUT);
      await page.goto(`${api.baseUrl}/docs`);
      await page.waitForSelector('.opblock');

      const listed = await page.$$eval('.opblock', (blocks) =>
        blocks.map((block) => {
          const method = block.querySelector('.opblock-summary-method')?.textContent ?? '';
          const path = block.querySelector('.opblock-summary-path');
          return `${method.trim()} ${path?.getAttribute('data-path') ?? path?.textContent ?? ''}`;
        }),
      );
      expect(listed.sort()).toEqual(ROUTES.map((route) => `${route.method} ${route.path}`).sort());

      // Rendering alone logs no error: a CSP violation or a failed asset would show here.
      expect(seen.errors).toEqual([]);

      // "Try it out" against the server that served the page (servers = its own origin): no token, so 401.
      const operation = page.locator('.opblock-get').filter({
        has: page.locator('.opblock-summary-path[data-path="/v2/merchant-realm-mappings"]'),
      });
      await operation.locator('.opblock-summary-control').click();
      await operation.locator('.try-out__btn').click();
      await operation.locator('.execute').click();
      const status = operation.locator('.live-responses-table .response .response-col_status').first();
      expect(await status.textContent()).toBe('401');
      expect(seen.errors).toEqual([
        'console: Failed to load resource: the server responded with a status of 401 (Unauthorized)',
      ]);

      const origin = new URL(api.baseUrl).origin;
      const foreign = seen.requests.filter((url) => {
        const { protocol } = new URL(url);
        if (protocol === 'data:' || protocol === 'blob:') return false;
        return new URL(url).origin !== origin;
      });
      expect(foreign).toEqual([]);
      expect(seen.requests).toEqual(
        expect.arrayContaining([
          `${origin}/docs`,
          `${origin}/docs/assets/swagger-ui-bundle.js`,
          `${origin}/openapi.json`,
          `${origin}/v2/merchant-realm-mappings`,
        ]),
      );
      await page.close();
    },
    3 * RENDER_TIMEOUT,
  );
});
