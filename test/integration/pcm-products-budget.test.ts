import { handler as getProduct } from '../../functions/pcm-get-product/handler';
import { handler as listProducts } from '../../functions/pcm-list-products/handler';
import { PAGE_BUDGET_BYTES } from '../../lib/catalog/size-budget';
import { uuidv7 } from '../../lib/ids';
import { PAGE_BUDGET_BYTES as PRODUCT_BUDGET_BYTES } from '../../lib/products/render';
import { productRepository } from '../../lib/store/product-repository';
import { MAX_PRODUCT_BYTES } from '../../lib/validation/product';
import {
  bearer,
  createTestStore,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';

/**
 * A product may take 300,000 bytes, and a `"` weighs four in Lambda's serialized response: a page of 100
 * products, or a bundle with its included components, could be more than one response may carry (API
 * Gateway would answer 500). Such a request is a 400 saying what fits, and what fits is served.
 */

let store: TestStore;
let token: string;
const heavy: string[] = [];
let bundle: string;

/** The heaviest product the API takes: about 290,000 bytes of JSON, its text all quotes. */
function heavyAttributes(name: string) {
  const quotes = '"'.repeat(28_000);
  return {
    name,
    slug: name,
    status: 'draft' as const,
    commodity_type: 'physical' as const,
    description: quotes,
    locales: Object.fromEntries(
      ['de-DE', 'fr-FR', 'es-ES', 'it-IT'].map((locale) => [locale, { name, description: quotes }]),
    ),
  };
}

beforeAll(async () => {
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store);
  const at = new Date().toISOString();
  for (let n = 0; n < 12; n += 1) {
    const product = {
      id: uuidv7(),
      attributes: heavyAttributes(`heavy-${n}`),
      created_at: at,
      updated_at: at,
      version: 1,
    };
    expect(Buffer.byteLength(JSON.stringify(product))).toBeLessThanOrEqual(MAX_PRODUCT_BYTES);
    await productRepository.create(store.store.id, product);
    heavy.push(product.id);
  }
  bundle = uuidv7();
  await productRepository.create(store.store.id, {
    id: bundle,
    attributes: {
      name: 'Heavy kit',
      slug: 'heavy-kit',
      status: 'draft',
      commodity_type: 'physical',
      components: {
        all: { name: 'All', options: heavy.map((id) => ({ id, type: 'product' as const, quantity: 1 })) },
      },
    },
    created_at: at,
    updated_at: at,
    version: 1,
  });
}, 60_000);

const list = (query: string) =>
  invoke(listProducts, {
    method: 'GET',
    path: `/pcm/products?${query}`,
    headers: bearer(token, { host: 'api.example.test' }),
  });

describe('a response that would be more than Lambda may answer', () => {
  it('has the catalog reads’ budget', () => {
    expect(PRODUCT_BUDGET_BYTES).toBe(PAGE_BUDGET_BYTES);
  });

  it('is a 400 naming the largest page[limit] that fits, and that page is served', async () => {
    const res = await list('page[limit]=13');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toBe('page[limit]');
    const fit = Number(/page\[limit\]=(\d+)\)$/.exec(res.body.errors[0].detail)?.[1]);
    expect(res.body.errors[0].detail).toMatch(
      new RegExp(
        `^this page would take \\d+ bytes, more than the ${PAGE_BUDGET_BYTES} one response may carry: ask for at most ${fit} products`,
      ),
    );
    const served = await list(`page[limit]=${fit}`);
    expect(served.status).toBe(200);
    expect(served.body.data.map((product: { id: string }) => product.id)).toEqual(heavy.slice(0, fit));
    expect((await list(`page[limit]=${fit + 1}`)).status).toBe(400);
  });

  it('is a 400 naming include when the included components are what does not fit', async () => {
    const get = (query: string) =>
      invoke(getProduct, {
        method: 'GET',
        path: `/pcm/products/${bundle}${query}`,
        pathParameters: { product_id: bundle },
        headers: bearer(token, { host: 'api.example.test' }),
      });
    const res = await get('?include=component_products');
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      source: 'include',
      detail: expect.stringMatching(/^the included component products would take more than/),
    });
    const plain = await get('');
    expect(plain.status).toBe(200);
    expect(plain.body.data.relationships.component_products.data).toHaveLength(12);
  });
});
