import { slugFromName } from '../../lib/catalog/derive';
import { productLocale, renderProduct, renderProductJson } from '../../lib/catalog/render';
import type { StoredProduct } from '../../lib/catalog/types';
import { validateRelease } from '../../lib/catalog/validate-stream';
import { DEFAULT_CURRENCIES } from '../../lib/store/store-repository';
import { prepareRelease } from '../support/one-process-publisher';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const PARENT = id(1);
const CHILD_XL = id(2);
const CHILD_DRAFT = id(3);
const CHILD_FR = id(4);
const STANDALONE = id(5);
const BUNDLE = id(6);
const ROOT = id(10);
const LEAF = id(11);
const SIZE = id(20);
const SIZE_M = id(21);
const SIZE_XL = id(22);
const PUBLISHED = '2024-06-01T12:00:00.000Z';

function document() {
  return {
    catalog: { id: id(99), name: 'Unit catalog' },
    nodes: [
      { id: ROOT, name: 'Apparel', parent_id: null },
      { id: LEAF, name: 'Tees', parent_id: ROOT },
    ],
    price_modifiers: {
      xl: { modifier_type: 'price_increment', currencies: { USD: { amount: 300, includes_tax: false } } },
      cheap: { modifier_type: 'price_decrement', currencies: { USD: { amount: 5000, includes_tax: false } } },
    },
    files: [
      {
        id: id(30),
        file_name: 'tee.png',
        mime_type: 'image/png',
        file_size: 1024,
        link: { href: 'https://files.example/tee.png' },
      },
    ],
    products: [
      {
        id: PARENT,
        attributes: {
          name: 'Tee',
          description: 'Cotton tee',
          sku: 'TEE',
          status: 'live',
          commodity_type: 'physical',
          tags: ['Cotton'],
          price: {
            USD: { amount: 2500, includes_tax: false },
            tiers: { bulk: { minimum_quantity: 10, price: { USD: { amount: 2000, includes_tax: false } } } },
          },
          extensions: { specs: { fabric: 'cotton' } },
        },
        node_ids: [LEAF],
        main_image: id(30),
        variations: [
          {
            id: SIZE,
            name: 'Size',
            sort_order: 1,
            options: [
              { id: SIZE_M, name: 'M', sort_order: 1, description: 'Medium' },
              { id: SIZE_XL, name: 'XL', sort_order: 2, description: 'Extra large' },
            ],
          },
        ],
      },
      {
        id: CHILD_XL,
        attributes: {
          name: 'Tee XL',
          sku: 'TEE-XL',
          status: 'live',
          base_product_id: PARENT,
          price_modifiers: ['xl'],
          updated_at: '2024-05-02T00:00:00+02:00',
        },
        variation_options: { [SIZE]: SIZE_XL },
      },
      {
        id: CHILD_DRAFT,
        attributes: { name: 'Tee draft', sku: 'TEE-D', status: 'draft', base_product_id: PARENT },
      },
      {
        id: CHILD_FR,
        attributes: {
          name: 'Tee M',
          sku: 'TEE-M',
          slug: 'tee-m',
          status: 'live',
          base_product_id: PARENT,
          price_modifiers: ['cheap'],
          curated_product: false,
          locales: { 'fr-FR': { name: 'T-shirt M' } },
        },
        variation_options: { [SIZE]: SIZE_M },
      },
      {
        id: STANDALONE,
        attributes: {
          name: 'Tote bag',
          sku: 'TOTE',
          status: 'live',
          commodity_type: 'physical',
          curated_product: true,
          price: { USD: { amount: 1800, includes_tax: false } },
        },
        node_ids: [ROOT],
      },
      {
        id: BUNDLE,
        attributes: {
          name: 'Bundle',
          sku: 'BUNDLE',
          status: 'live',
          commodity_type: 'physical',
          price: { USD: { amount: 3900, includes_tax: false } },
          components: {
            top: {
              name: 'Top',
              min: 1,
              max: 1,
              options: [{ id: CHILD_XL, quantity: 1, default: true }],
            },
            bag: { name: 'Bag', options: [{ id: STANDALONE, type: 'product', quantity: 2 }] },
          },
        },
      },
    ],
  };
}

function prepared() {
  const result = validateRelease(document());
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return prepareRelease(result.document, {
    catalogId: id(99),
    publishedAt: PUBLISHED,
    currencies: DEFAULT_CURRENCIES,
  });
}

function stored(productId: string): StoredProduct {
  const found = prepared().products.find((product) => product.resource.id === productId);
  if (!found) throw new Error(`no ${productId}`);
  return found;
}

const display = (amount: number, formatted: string) => ({
  with_tax: { amount, currency: 'USD', formatted },
  without_tax: { amount, currency: 'USD', formatted },
});

describe('prepareRelease + renderProduct', () => {
  it('renders a child in the full product resource shape, inheriting from its parent with modifiers applied', () => {
    expect(renderProduct(stored(CHILD_XL), 'en-US')).toEqual({
      id: CHILD_XL,
      type: 'product',
      attributes: {
        published_at: PUBLISHED,
        created_at: PUBLISHED,
        updated_at: '2024-05-01T22:00:00.000Z',
        name: 'Tee XL',
        description: 'Cotton tee',
        sku: 'TEE-XL',
        slug: 'tee-xl',
        status: 'live',
        commodity_type: 'physical',
        base_product: false,
        base_product_id: PARENT,
        tags: [],
        price_modifiers: ['xl'],
        external_ref: null,
        product_types: ['child'],
        price: {
          USD: { amount: 2800, includes_tax: false },
          tiers: { bulk: { minimum_quantity: 10, price: { USD: { amount: 2300, includes_tax: false } } } },
        },
        extensions: { specs: { fabric: 'cotton' } },
        language: 'en-US',
      },
      relationships: {
        parent: { data: { id: PARENT, type: 'product' } },
        main_image: { data: { type: 'main_image', id: id(30) } },
      },
      meta: {
        catalog_id: id(99),
        catalog_source: 'pim',
        pricebook_id: null,
        bread_crumbs: { [LEAF]: [ROOT, LEAF] },
        bread_crumb_nodes: [LEAF],
        display_price: display(2800, '$28.00'),
        price_modifiers: {
          xl: { modifier_type: 'price_increment', currencies: { USD: { amount: 300, includes_tax: false } } },
        },
        variation_matrix: {},
        variations: [
          {
            id: SIZE,
            name: 'Size',
            sort_order: 1,
            options: [{ id: SIZE_XL, name: 'XL', sort_order: 2, description: 'Extra large' }],
          },
        ],
      },
    });
  });

  it('floors a decrement at 0 and renders curated_product only when true', () => {
    const child = renderProduct(stored(CHILD_FR), 'en-US');
    expect(child.attributes.price).toEqual({
      USD: { amount: 0, includes_tax: false },
      tiers: { bulk: { minimum_quantity: 10, price: { USD: { amount: 0, includes_tax: false } } } },
    });
    expect(child.meta.display_price).toEqual(display(0, '$0.00'));
    expect('curated_product' in child.attributes).toBe(false);
    expect(renderProduct(stored(STANDALONE), 'en-US').attributes.curated_product).toBe(true);
  });

  it('omits variations when there are none and keeps variation_matrix {}', () => {
    const standalone = renderProduct(stored(STANDALONE), 'en-US');
    expect(standalone.meta.variation_matrix).toEqual({});
    expect('variations' in standalone.meta).toBe(false);
    expect(standalone.attributes.product_types).toEqual(['standard']);
    expect(standalone.meta.bread_crumbs).toEqual({ [ROOT]: [ROOT] });
  });

  it('gives a parent its variation matrix of live children, children links and live count', () => {
    const parent = stored(PARENT);
    expect(parent.base_product).toBe(true);
    expect(parent.live_children).toBe(2);
    expect(parent.resource.attributes.product_types).toEqual(['parent']);
    expect(parent.resource.attributes.tags).toEqual(['cotton']);
    expect(parent.resource.relationships.children).toEqual({
      links: { self: `/catalog/products/${PARENT}/relationships/children` },
    });
    expect(parent.resource.meta.variation_matrix).toEqual({ [SIZE_XL]: CHILD_XL, [SIZE_M]: CHILD_FR });
  });

  it('indexes only live children, in publish order, with their filterable attributes', () => {
    const index = prepared().childIndex.get(PARENT);
    expect(index?.map((entry) => entry.id)).toEqual([CHILD_XL, CHILD_FR]);
    expect(index?.[0]).toEqual({
      id: CHILD_XL,
      name: 'Tee XL',
      sku: 'TEE-XL',
      slug: 'tee-xl',
      manufacturer_part_num: '',
      upc_ean: '',
      product_types: ['child'],
      tags: [],
      updated_at: '2024-05-01T22:00:00.000Z',
    });
    expect(prepared().counts).toEqual({
      total: 6,
      live: 5,
      draft: 1,
      parents: 1,
      children: 3,
      live_children: 2,
      standard: 1,
      bundles: 1,
    });
  });

  it('renders a bundle with component products, their prices and the default selection', () => {
    const bundle = renderProduct(stored(BUNDLE), 'en-US');
    expect(bundle.attributes.product_types).toEqual(['bundle']);
    expect(bundle.relationships.component_products).toEqual({
      data: [
        { id: CHILD_XL, type: 'product' },
        { id: STANDALONE, type: 'product' },
      ],
      links: { self: `/catalog/products/${BUNDLE}/relationships/component_products` },
    });
    expect(bundle.meta.bundle_configuration).toEqual({
      selected_options: { top: { [CHILD_XL]: 1 }, bag: {} },
    });
    expect(bundle.meta.component_products).toEqual({
      [CHILD_XL]: {
        price: { USD: { amount: 2800, includes_tax: false } },
        display_price: display(2800, '$28.00'),
        pricebook_id: null,
        price_modifiers: {
          xl: { modifier_type: 'price_increment', currencies: { USD: { amount: 300, includes_tax: false } } },
        },
        tiers: { bulk: { display_price: display(2300, '$23.00') } },
      },
      [STANDALONE]: {
        price: { USD: { amount: 1800, includes_tax: false } },
        display_price: display(1800, '$18.00'),
        pricebook_id: null,
        price_modifiers: {},
        tiers: {},
      },
    });
    expect((bundle.attributes.components as Record<string, { options: unknown[] }>).bag?.options).toEqual([
      { id: STANDALONE, type: 'product', quantity: 2, sort_order: null, default: null },
    ]);
  });

  it('shows a sale as display_price with the list price as original_*', () => {
    const doc = document();
    (doc.products[4] as Record<string, unknown>).sale = {
      id: 'spring',
      expires: '2030-01-01T00:00:00Z',
      price: { USD: { amount: 1500, includes_tax: false } },
    };
    const result = validateRelease(doc);
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const tote = prepareRelease(result.document, {
      catalogId: id(99),
      publishedAt: PUBLISHED,
      currencies: DEFAULT_CURRENCIES,
    }).products[4];
    expect(tote?.resource.meta).toMatchObject({
      display_price: display(1500, '$15.00'),
      original_price: { USD: { amount: 1800, includes_tax: false } },
      original_display_price: display(1800, '$18.00'),
      sale_id: 'spring',
      sale_expires: '2030-01-01T00:00:00.000Z',
    });
    expect(tote?.resource.attributes.price).toEqual({ USD: { amount: 1800, includes_tax: false } });
  });

  it('renders display prices in another currency of the release, and none where the price lacks it', () => {
    const result = validateRelease(document());
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const GBP = {
      format: '£{price}',
      decimal_point: '.',
      thousand_separator: ',',
      decimal_places: 2,
      default: false,
    };
    const products = prepareRelease(result.document, {
      catalogId: id(99),
      publishedAt: PUBLISHED,
      currencies: { ...DEFAULT_CURRENCIES, GBP },
    }).products;
    const parent = products.find((product) => product.resource.id === PARENT) as StoredProduct;
    expect(parent.currency).toBe('USD');
    expect(Object.keys(parent.display ?? {})).toEqual(['GBP']);
    // The document has USD prices only: in GBP, no display price; in USD (or no currency), the stored one.
    const inGbp = renderProduct(parent, 'en-US', 'GBP');
    expect(inGbp.meta.display_price).toBeUndefined();
    expect(inGbp.meta.catalog_id).toBe(id(99));
    expect(renderProduct(parent, 'en-US', 'USD').meta).toBe(parent.resource.meta);
    expect(renderProduct(parent, 'en-US').meta).toBe(parent.resource.meta);
    const bundle = products.find((product) => product.resource.id === BUNDLE) as StoredProduct;
    const components = renderProduct(bundle, 'en-US', 'GBP').meta.component_products as Record<
      string,
      Record<string, unknown>
    >;
    for (const entry of Object.values(components)) {
      expect(entry.display_price).toBeUndefined();
      expect(entry.price).toBeDefined();
    }
    expect(renderProductJson(parent, 'en-US', 'GBP')).toBe(JSON.stringify(inGbp));
  });

  it('switches name and description to the chosen locale, keeping the base text where the locale has none', () => {
    const child = stored(CHILD_FR);
    const locale = productLocale(child, 'fr-CH, en;q=0.5', 'en-US');
    expect(locale).toBe('fr-FR');
    const rendered = renderProduct(child, locale);
    expect(rendered.attributes).toMatchObject({
      name: 'T-shirt M',
      description: 'Cotton tee',
      language: 'fr-FR',
    });
    expect(renderProduct(child, 'en-US').attributes).toMatchObject({ name: 'Tee M', language: 'en-US' });
    // The stored (cached) resource is not changed by rendering.
    expect(child.resource.attributes.name).toBe('Tee M');
    expect('language' in child.resource.attributes).toBe(false);
  });
});

describe('slugFromName', () => {
  it.each([
    ['Classic Crew T-Shirt - Black / S', 'classic-crew-t-shirt-black-s'],
    ['  Déjà vu!  ', 'deja-vu'],
    ['v1.2_final', 'v1.2_final'],
    ['***', 'fallback'],
  ])('%p -> %p', (name, slug) => {
    expect(slugFromName(name, 'fallback')).toBe(slug);
  });
});

describe('renderProductJson', () => {
  it('is the JSON of renderProduct, per locale', () => {
    const child = stored(CHILD_FR);
    expect(JSON.parse(renderProductJson(child, 'en-US'))).toEqual(renderProduct(child, 'en-US'));
    const french = JSON.parse(renderProductJson(child, 'fr-FR'));
    expect(french.attributes).toMatchObject({ name: 'T-shirt M', language: 'fr-FR' });
  });

  it('serializes a stored product once per locale and reuses the text', () => {
    const child = stored(CHILD_FR);
    const spy = jest.spyOn(JSON, 'stringify');
    try {
      const first = renderProductJson(child, 'en-US');
      const again = renderProductJson(child, 'en-US');
      expect(again).toBe(first);
      expect(spy).toHaveBeenCalledTimes(1);
      renderProductJson(child, 'fr-FR');
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });
});
