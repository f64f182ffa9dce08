import {
  type AuthoredNode,
  type AuthoredProduct,
  activeSale,
  documentNodes,
  documentPrice,
  documentProduct,
} from '../../lib/catalog/pipeline/authored-document';
import { inOrder } from '../../lib/catalog/pipeline/export';
import { validateRelease } from '../../lib/catalog/validate-stream';
import { DEFAULT_CURRENCIES } from '../../lib/store/store-repository';
import { prepareRelease } from '../support/one-process-publisher';

const AT = new Date('2026-06-15T12:00:00.000Z');
const BOOK = '0190a0c0-0e00-7000-8000-000000000001';
const id = (n: number) => `0190a0c0-0a00-7000-8000-${String(n).padStart(12, '0')}`;

describe('documentPrice: a price book price as the document prices it', () => {
  it('keeps each currency and regroups tiers by minimum quantity, a price per currency', () => {
    expect(
      documentPrice({
        USD: { amount: 1000, tiers: { ten: { minimum_quantity: 10, amount: 900 } } },
        EUR: { amount: 950, includes_tax: true, tiers: { dix: { minimum_quantity: 10, amount: 850 } } },
      }),
    ).toEqual({
      USD: { amount: 1000, includes_tax: false },
      EUR: { amount: 950, includes_tax: true },
      tiers: {
        dix: {
          minimum_quantity: 10,
          price: { EUR: { amount: 850, includes_tax: true }, USD: { amount: 900, includes_tax: false } },
        },
      },
    });
  });

  it('gives a tier name used at two quantities its quantity, so the document never holds two alike', () => {
    const price = documentPrice({
      EUR: { amount: 1, tiers: { bulk: { minimum_quantity: 5, amount: 1 } } },
      USD: { amount: 1, tiers: { bulk: { minimum_quantity: 10, amount: 1 } } },
    });
    expect(Object.keys(price.tiers ?? {})).toEqual(['bulk', 'bulk-10']);
  });
});

describe('activeSale: the sale shoppers see at publish time', () => {
  const sale = (from: string | null, to: string | null, amount: number) => ({
    schedule: { valid_from: from, valid_to: to },
    currencies: { USD: { amount } },
  });

  it('takes the shortest sale whose schedule holds the time, with its end as expires', () => {
    expect(
      activeSale(
        {
          summer: sale('2026-06-01T00:00:00Z', '2026-09-01T00:00:00Z', 800),
          weekend: sale('2026-06-14T00:00:00Z', '2026-06-16T00:00:00+02:00', 700),
          later: sale('2026-07-01T00:00:00Z', '2026-07-02T00:00:00Z', 100),
        },
        AT,
      ),
    ).toEqual({
      id: 'weekend',
      expires: '2026-06-15T22:00:00.000Z',
      price: { USD: { amount: 700, includes_tax: false } },
    });
  });

  it('applies a sale without schedule always, a bundle-only sale never, an ended one never', () => {
    expect(activeSale({ always: { currencies: { USD: { amount: 5 } } } }, AT)?.id).toBe('always');
    expect(activeSale({ always: { currencies: { USD: { amount: 5 } } } }, AT)?.expires).toBeNull();
    expect(
      activeSale({ bundle: { bundle_ids: [id(9)], currencies: { USD: { amount: 5 } } } }, AT),
    ).toBeUndefined();
    expect(activeSale({ past: sale(null, '2026-06-15T12:00:00.000Z', 5) }, AT)).toBeUndefined();
    expect(activeSale(undefined, AT)).toBeUndefined();
  });
});

describe('documentNodes: a hierarchy as the document holds it', () => {
  const node = (n: number, parent: number | null, sort: number | null, updated: string): AuthoredNode => ({
    id: id(n),
    name: `Node ${n}`,
    parent_id: parent === null ? null : id(parent),
    sort_order: sort,
    curated_products: [],
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: updated,
  });

  it('puts the hierarchy first, then its nodes depth first, siblings by sort_order then newest update', () => {
    const hierarchy = {
      id: id(1),
      name: 'Apparel',
      slug: 'apparel',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    };
    const nodes = documentNodes(hierarchy, [
      node(2, null, null, '2026-01-02T00:00:00.000Z'),
      node(3, null, null, '2026-01-03T00:00:00.000Z'),
      node(4, null, 1, '2026-01-01T00:00:00.000Z'),
      node(5, 4, null, '2026-01-01T00:00:00.000Z'),
      node(6, null, 7, '2026-01-01T00:00:00.000Z'),
      node(7, 99, 7, '2026-01-01T00:00:00.000Z'),
    ]);
    expect(nodes.map((n) => [n.id.slice(-1), n.parent_id?.slice(-1) ?? null])).toEqual([
      ['1', null],
      ['6', '1'],
      ['4', '1'],
      ['5', '4'],
      ['3', '1'],
      ['2', '1'],
    ]);
    expect(nodes[0]).toMatchObject({ name: 'Apparel', slug: 'apparel', parent_id: null });
  });
});

describe('documentProduct: authored products make a valid document', () => {
  const parent: AuthoredProduct = {
    id: id(10),
    attributes: {
      name: 'Tee',
      sku: 'TEE',
      status: 'live',
      commodity_type: 'physical',
      mpn: 'MPN-1',
      locales: { 'fr-FR': { name: 'T-shirt', description: 'En coton' } },
    },
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-02T00:00:00.000Z',
  };
  const child: AuthoredProduct = {
    id: id(11),
    attributes: { name: 'Tee Red', sku: 'TEERed', status: 'live', commodity_type: 'physical' },
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    parent_id: id(10),
    child_variations: [{ id: id(20), option: { id: id(21) } }],
    price_modifiers: ['red-surcharge', 'gone'],
  };

  it('names the parent, the picked options, the price and the known modifiers only', () => {
    const modifiers = new Set(['red-surcharge']);
    const variations = [{ id: id(20), name: 'Colour', options: [{ id: id(21), name: 'Red' }] }];
    const parentDoc = documentProduct(parent, {
      node_ids: [id(1)],
      curated: true,
      price: { currencies: { USD: { amount: 2500 } }, pricebook_id: BOOK },
      variations,
      modifiers,
      at: AT,
    });
    const childDoc = documentProduct(child, { node_ids: [], curated: false, modifiers, at: AT });
    expect(parentDoc.attributes).toMatchObject({
      manufacturer_part_num: 'MPN-1',
      curated_product: true,
      price: { USD: { amount: 2500, includes_tax: false } },
      locales: { 'fr-FR': { name: 'T-shirt', description: 'En coton' } },
    });
    expect(childDoc).toMatchObject({
      attributes: { base_product_id: id(10), price_modifiers: ['red-surcharge'] },
      variation_options: { [id(20)]: id(21) },
    });
    expect(childDoc.attributes.commodity_type).toBeUndefined();
    // A bundle without an sku, as the platform's own runbooks publish one.
    const bundle = documentProduct(
      {
        id: id(12),
        attributes: {
          name: 'SKU-less bundle',
          status: 'live',
          commodity_type: 'physical',
          components: {
            tee: { name: 'Tee', min: 1, max: 1, options: [{ id: id(10), type: 'product', quantity: 1 }] },
          },
        },
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      },
      { node_ids: [id(1)], curated: false, modifiers, at: AT },
    );
    expect(bundle.attributes.sku).toBeUndefined();
    const document = {
      catalog: { name: 'Authored' },
      nodes: [{ id: id(1), name: 'Apparel', parent_id: null }],
      price_modifiers: {
        'red-surcharge': { modifier_type: 'price_increment', currencies: { USD: { amount: 100 } } },
      },
      products: [parentDoc, childDoc, bundle],
    };
    const result = validateRelease(document);
    expect(result.ok ? [] : result.issues).toEqual([]);
    if (!result.ok) return;
    // The book that priced the parent is its meta.pricebook_id, and its child's (which takes its price).
    const prepared = prepareRelease(result.document, {
      catalogId: id(99),
      publishedAt: AT.toISOString(),
      currencies: DEFAULT_CURRENCIES,
    });
    expect(prepared.products.map((p) => p.resource.meta.pricebook_id)).toEqual([BOOK, BOOK, null]);
  });
});

describe('inOrder: the export reads ahead and writes in order', () => {
  it('yields results in task order with at most `window` started ahead, and throws a failure in its turn', async () => {
    let running = 0;
    let most = 0;
    const task = (n: number, ms: number) => async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running -= 1;
      if (n === 4) throw new Error('page 4 failed');
      return n;
    };
    const seen: number[] = [];
    const tasks = [task(0, 30), task(1, 5), task(2, 20), task(3, 1), task(4, 1)];
    await expect(
      (async () => {
        for await (const n of inOrder(tasks, 2)) seen.push(n);
      })(),
    ).rejects.toThrow('page 4 failed');
    expect(seen).toEqual([0, 1, 2, 3]);
    expect(most).toBe(2);
  });
});
