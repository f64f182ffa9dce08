import { clearCatalogCaches } from '../../lib/catalog/cache';
import { catalogRepository } from '../../lib/store/catalog-repository';
import { id, listChildren } from '../support/catalog-fixtures';
import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore, tokenFor } from '../support/fixtures';
import { publishRelease } from '../support/one-process-publisher';

/**
 * What a storefront asks of the child list beyond the seed: `include` (main images, files, component
 * products) and the display currency (`EP-Currency` / `X-Moltin-Currency`), `X-Moltin-Language`.
 */

const PARENT = id(1);
const SOLO = id(2);
const DRAFT_SOLO = id(3);
const [PLAIN, SHARED_A, SHARED_B, BUNDLE, ON_SALE] = [id(11), id(12), id(13), id(14), id(15)];
const [PARENT_IMAGE, SHARED_IMAGE, OWN_IMAGE, MANUAL, SOLO_IMAGE, UNUSED] = [
  id(31),
  id(32),
  id(33),
  id(34),
  id(35),
  id(36),
];
const file = (fileId: string, name: string) => ({
  id: fileId,
  file_name: `${name}.png`,
  mime_type: 'image/png',
  file_size: 1000 + Number(fileId.slice(-2)),
  link: { href: `https://img.example.com/${name}.png` },
  meta: { dimensions: { width: 800, height: 600 }, timestamps: { created_at: '2024-01-01T00:00:00Z' } },
});
const rendered = (fileId: string, name: string) => ({
  type: 'file',
  ...file(fileId, name),
  meta: {
    dimensions: { width: 800, height: 600 },
    timestamps: { created_at: '2024-01-01T00:00:00.000Z' },
  },
});
const manualRef = { id: MANUAL, created_at: '2024-01-02T00:00:00Z' };
const USD = { format: '${price}', decimal_point: '.', thousand_separator: ',', decimal_places: 2 };
const CURRENCIES = {
  USD: { ...USD, default: true },
  EUR: {
    format: '{price} €',
    decimal_point: ',',
    thousand_separator: '.',
    decimal_places: 2,
    default: false,
  },
  GBP: { format: '£{price}', decimal_point: '.', thousand_separator: ',', decimal_places: 2, default: false },
};

function release() {
  const child = (childId: string, n: number, extra: Record<string, unknown> = {}) => ({
    id: childId,
    attributes: { name: `Child ${n}`, sku: `C-${n}`, status: 'live', base_product_id: PARENT },
    ...extra,
  });
  return {
    catalog: { name: 'Storefront' },
    currencies: CURRENCIES,
    files: [
      file(PARENT_IMAGE, 'parent'),
      file(SHARED_IMAGE, 'shared'),
      file(OWN_IMAGE, 'own'),
      file(MANUAL, 'manual'),
      file(SOLO_IMAGE, 'solo'),
      file(UNUSED, 'unused'),
    ],
    products: [
      {
        id: PARENT,
        attributes: {
          name: 'Parent',
          sku: 'P',
          status: 'live',
          commodity_type: 'physical',
          price: { USD: { amount: 1000, includes_tax: false }, EUR: { amount: 900, includes_tax: true } },
        },
        main_image: PARENT_IMAGE,
        files: [manualRef],
      },
      child(PLAIN, 1),
      child(SHARED_A, 2, { main_image: SHARED_IMAGE }),
      child(SHARED_B, 3, { main_image: SHARED_IMAGE, files: [manualRef] }),
      {
        ...child(BUNDLE, 4, { main_image: OWN_IMAGE }),
        attributes: {
          name: 'Child 4',
          sku: 'C-4',
          status: 'live',
          base_product_id: PARENT,
          components: {
            extra: {
              name: 'Extra',
              options: [
                { id: SOLO, type: 'product', quantity: 1, default: true },
                { id: DRAFT_SOLO, type: 'product', quantity: 1 },
              ],
            },
          },
        },
      },
      child(ON_SALE, 5, { sale: { id: 'summer', expires: null, price: { USD: { amount: 800 } } } }),
      {
        id: SOLO,
        attributes: {
          name: 'Solo',
          sku: 'SOLO',
          status: 'live',
          commodity_type: 'digital',
          price: {
            USD: { amount: 500, includes_tax: false },
            EUR: { amount: 450, includes_tax: true },
            tiers: {
              ten: {
                minimum_quantity: 10,
                price: {
                  USD: { amount: 400, includes_tax: false },
                  EUR: { amount: 350, includes_tax: true },
                },
              },
            },
          },
          locales: { 'fr-FR': { name: 'Solo (fr)' } },
        },
        main_image: SOLO_IMAGE,
      },
      { id: DRAFT_SOLO, attributes: { name: 'Draft', sku: 'D', status: 'draft', commodity_type: 'digital' } },
    ],
  };
}

let store: TestStore;
let token: string;
const ALL = [PLAIN, SHARED_A, SHARED_B, BUNDLE, ON_SALE];

beforeAll(async () => {
  store = await createTestStore({ currencies: CURRENCIES, rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store, 'implicit');
  await publishRelease(store.store.id, release());
});

beforeEach(() => clearCatalogCaches());
afterEach(() => jest.restoreAllMocks());

const list = (query = '', headers: Record<string, string> = {}) =>
  listChildren(token, PARENT, query, { 'svc-channel': 'web', ...headers });

describe('include', () => {
  it('returns no included without include', async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['data', 'meta', 'links']);
  });

  it('includes each main image and file the page names once, in the platform file shape', async () => {
    const response = await list('include=main_image,files');
    expect(response.status).toBe(200);
    expect(response.body.data.map((product: { id: string }) => product.id)).toEqual(ALL);
    expect(response.body.included).toEqual({
      // PLAIN and ON_SALE inherit the parent's image; the two SHARED children name the same one.
      main_images: [
        rendered(PARENT_IMAGE, 'parent'),
        rendered(SHARED_IMAGE, 'shared'),
        rendered(OWN_IMAGE, 'own'),
      ],
      files: [rendered(MANUAL, 'manual')],
    });
    const first = response.body.data[0];
    expect(first.relationships.main_image).toEqual({ data: { type: 'main_image', id: PARENT_IMAGE } });
  });

  it('holds only what was asked for, and only for the products of the page', async () => {
    const response = await list('include=files&page[limit]=2');
    expect(response.body.included).toEqual({ files: [rendered(MANUAL, 'manual')] });
    const page = await list('include=main_image&page[limit]=1&page[offset]=1');
    expect(page.body.included).toEqual({ main_images: [rendered(SHARED_IMAGE, 'shared')] });
  });

  it('renders the live component products of the bundles on the page, in the request locale and currency', async () => {
    const response = await list('include=component_products', {
      'accept-language': 'fr-FR',
      'x-moltin-currency': 'EUR',
    });
    expect(response.body.included.component_products).toHaveLength(1);
    const [solo] = response.body.included.component_products;
    expect(solo.id).toBe(SOLO);
    expect(solo.attributes).toMatchObject({ name: 'Solo (fr)', language: 'fr-FR' });
    expect(solo.meta.display_price.with_tax).toEqual({ amount: 450, currency: 'EUR', formatted: '4,50 €' });
    const none = await list('include=component_products&page[limit]=2');
    expect(none.body.included).toEqual({ component_products: [] });
  });

  it('accepts repeated include parameters and keeps include in the links', async () => {
    const response = await list('include=main_image&include=files&page[limit]=2');
    expect(Object.keys(response.body.included)).toEqual(['main_images', 'files']);
    expect(response.body.links.next).toBe(
      `/catalog/products/${PARENT}/relationships/children?include=main_image%2Cfiles&page[offset]=2&page[limit]=2`,
    );
  });

  it('costs at most one extra batched read on a cold cache and none when warm', async () => {
    const reads = jest.spyOn(catalogRepository, 'readRelease');
    await list();
    const without = reads.mock.calls.length;
    clearCatalogCaches();
    reads.mockClear();
    await list('include=main_image,files,component_products');
    expect(reads.mock.calls.length).toBe(without + 1);
    reads.mockClear();
    await list('include=main_image,files,component_products');
    expect(reads).not.toHaveBeenCalled();
  });

  it.each([
    ['include=main_images', '"main_images"'],
    ['include=', 'an empty item'],
    ['include=main_image,', 'an empty item'],
    ['include=children', '"children"'],
  ])('400 for %s, naming include', async (query, shown) => {
    const response = await list(query);
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatchObject({
      status: '400',
      source: 'include',
      detail: `include may list main_image, files, component_products; got ${shown}`,
    });
  });
});

describe('display currency', () => {
  const price = (body: { data: Record<string, any>[] }, n: number) => body.data[n]?.meta;

  it("shows the store's default currency without a header", async () => {
    const response = await list();
    expect(price(response.body, 0).display_price.with_tax).toEqual({
      amount: 1000,
      currency: 'USD',
      formatted: '$10.00',
    });
  });

  it.each([
    [{ 'x-moltin-currency': 'EUR' }],
    [{ 'ep-currency': 'EUR' }],
    [{ 'ep-currency': 'eur', 'x-moltin-currency': 'GBP' }],
  ])('switches display prices to EUR with %p (EP-Currency wins)', async (headers) => {
    const response = await list('', headers);
    expect(response.status).toBe(200);
    expect(price(response.body, 0).display_price).toEqual({
      with_tax: { amount: 900, currency: 'EUR', formatted: '9,00 €' },
      without_tax: { amount: 900, currency: 'EUR', formatted: '9,00 €' },
    });
    // The raw price map is the same in every currency.
    expect(response.body.data[0].attributes.price).toEqual({
      USD: { amount: 1000, includes_tax: false },
      EUR: { amount: 900, includes_tax: true },
    });
  });

  it('switches original_display_price and the bundle component and tier display prices too', async () => {
    const usd = await list();
    const eur = await list('', { 'ep-currency': 'EUR' });
    // ON_SALE: the sale has a USD price only, so in EUR there is no display_price, only the original.
    expect(price(usd.body, 4).display_price.with_tax.formatted).toBe('$8.00');
    expect(price(usd.body, 4).original_display_price.with_tax.formatted).toBe('$10.00');
    expect(price(eur.body, 4).display_price).toBeUndefined();
    expect(price(eur.body, 4).original_display_price.with_tax.formatted).toBe('9,00 €');
    expect(price(eur.body, 4).sale_id).toBe('summer');
    const component = price(eur.body, 3).component_products[SOLO];
    expect(component.display_price.with_tax.formatted).toBe('4,50 €');
    expect(component.tiers.ten.display_price.with_tax.formatted).toBe('3,50 €');
    expect(price(usd.body, 3).component_products[SOLO].tiers.ten.display_price.with_tax.formatted).toBe(
      '$4.00',
    );
  });

  it('leaves display_price out where the product has no price in the currency', async () => {
    const response = await list('', { 'ep-currency': 'GBP' });
    expect(response.status).toBe(200);
    for (const product of response.body.data) {
      expect(product.meta.display_price).toBeUndefined();
      expect(product.meta.catalog_id).toBeDefined();
    }
  });

  it.each([
    ['ep-currency', 'JPY', 'EP-Currency', '"JPY"'],
    ['x-moltin-currency', 'CHF', 'X-Moltin-Currency', '"CHF"'],
    ['x-moltin-currency', ' ', 'X-Moltin-Currency', 'an empty value'],
    ['ep-currency', 'EURO', 'EP-Currency', '"EURO"'],
  ])("400 for %s: %p, not one of the store's currencies", async (header, value, source, shown) => {
    const response = await list('', { [header]: value });
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatchObject({
      source,
      detail: `${source} must be one of the store's currencies (EUR, GBP, USD); got ${shown}`,
    });
  });
});

describe('language', () => {
  it('reads X-Moltin-Language when Accept-Language is absent, and Accept-Language first', async () => {
    const fr = await list('include=component_products&page[limit]=4&page[offset]=3', {
      'x-moltin-language': 'fr',
    });
    expect(fr.body.included.component_products[0].attributes.language).toBe('fr-FR');
    const en = await list('include=component_products&page[limit]=4&page[offset]=3', {
      'x-moltin-language': 'fr',
      'accept-language': 'en-US',
    });
    expect(en.body.included.component_products[0].attributes.language).toBe('en-US');
  });
});
