import { decodeChunk } from '../../lib/catalog/child-index';
import { decodePostings, FILTER_ATTRIBUTES } from '../../lib/catalog/filter-index';
import {
  lookupTerm,
  MAX_SUMMARY_BYTES,
  RELEASE_SEGMENT,
  type ReleaseSummary,
} from '../../lib/catalog/product-lookups';
import type { ReleaseDocument, ReleaseLayout, StoredProduct } from '../../lib/catalog/types';
import { parseFilter } from '../../lib/filter/index';
import { lookupKeys } from '../../lib/store/catalog-lookup-repository';
import { productLookupItems } from '../support/one-process-publisher';

const LAYOUT: ReleaseLayout = {
  id: 'rel-1',
  shards: 16,
  chunk_size: 2,
  published_at: '2024-06-01T00:00:00.000Z',
};

function stored(id: string, live: boolean, attributes: Record<string, unknown> = {}): StoredProduct {
  return {
    resource: {
      id,
      type: 'product',
      attributes: {
        name: `Name ${id}`,
        sku: `SKU-${id}`,
        slug: `slug-${id}`,
        tags: ['a'],
        product_types: ['standard'],
        updated_at: '2024-01-01T00:00:00Z',
        ...attributes,
      },
      relationships: {},
      meta: {},
    },
    locales: {},
    live,
    base_product: false,
    live_children: 0,
  };
}

function document(nodes: ReleaseDocument['nodes'] = []): ReleaseDocument {
  return {
    catalog: { name: 'Cat', description: 'Desc', pricebook_id: null },
    rules: [],
    nodes,
    price_modifiers: {},
    files: [],
    products: [],
  };
}

const byKey = (items: ReturnType<typeof productLookupItems>) => new Map(items.map((item) => [item.sk, item]));

describe('productLookupItems', () => {
  const products = [
    stored('p1', true),
    stored('p2', false),
    stored('p3', true, { slug: 'shared', upc_ean: '123' }),
    stored('p4', true, { slug: 'shared' }),
  ];
  const items = byKey(
    productLookupItems(
      document([
        { id: 'n1', name: 'Root', parent_id: null },
        { id: 'n2', name: 'Leaf', parent_id: 'n1' },
      ]),
      { products },
      { catalogId: 'cat-1', layout: LAYOUT },
    ),
  );

  it('writes a summary with the live count and the root nodes', () => {
    const summary = JSON.parse(items.get('M#release')?.d as string) as ReleaseSummary;
    expect(summary).toEqual({
      catalog_id: 'cat-1',
      name: 'Cat',
      description: 'Desc',
      pricebook_id: null,
      published_at: LAYOUT.published_at,
      live_products: 3,
      total_nodes: 2,
      filter_index: { segment: RELEASE_SEGMENT, buckets: [[1, 1, 1, 1, 1, 1, 1, 1]] },
      hierarchies: [{ id: 'n1', name: 'Root' }],
    });
  });

  it('writes the filter index of the release-wide index: every bucket of its one segment', () => {
    const buckets = [...items.keys()].filter((sk) => sk.startsWith('Y#')).sort();
    expect(buckets).toEqual(FILTER_ATTRIBUTES.map((attribute) => `Y#000000#${attribute}#000000`).sort());
    expect(decodePostings(items.get('Y#000000#slug#000000')?.z as Uint8Array)).toEqual(
      new Map([
        ['slug-p1', [0]],
        ['shared', [1, 2]],
      ]),
    );
  });

  it('indexes the live products in publish order, chunk by chunk', () => {
    const chunks = ['I#000000', 'I#000001'].map((sk) => decodeChunk(items.get(sk)?.z as Uint8Array));
    expect(chunks.map((chunk) => chunk.map((entry) => entry.id))).toEqual([['p1', 'p3'], ['p4']]);
    expect(chunks[0]?.[1]).toEqual({
      id: 'p3',
      name: 'Name p3',
      sku: 'SKU-p3',
      slug: 'shared',
      manufacturer_part_num: '',
      upc_ean: '123',
      product_types: ['standard'],
      tags: ['a'],
      updated_at: '2024-01-01T00:00:00Z',
    });
    expect(items.has('I#000002')).toBe(false);
  });

  it('writes one lookup per live id, slug and sku, with positions; drafts have none', () => {
    const entries = (sk: string) =>
      (JSON.parse(items.get(sk)?.d as string) as { id: string; pos: number }[]).map((e) => [e.id, e.pos]);
    expect(entries('L#id#p3')).toEqual([['p3', 1]]);
    expect(entries('L#sku#SKU-p4')).toEqual([['p4', 2]]);
    expect(entries('L#slug#shared')).toEqual([
      ['p3', 1],
      ['p4', 2],
    ]);
    expect(items.has('L#id#p2')).toBe(false);
    expect(items.has('L#sku#SKU-p2')).toBe(false);
    expect(items.get('L#id#p1')?.pk).toBe(lookupKeys.lookup(LAYOUT, 'id', 'p1').pk);
  });

  it('lists only the root nodes that fit in the summary', () => {
    const roots = Array.from({ length: 2000 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      name: 'r'.repeat(255),
      parent_id: null,
    }));
    const built = byKey(
      productLookupItems(document(roots), { products: [] }, { catalogId: 'c', layout: LAYOUT }),
    );
    const json = built.get('M#release')?.d as string;
    const summary = JSON.parse(json) as ReleaseSummary;
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(MAX_SUMMARY_BYTES);
    expect(summary.total_nodes).toBe(2000);
    expect(summary.hierarchies.length).toBeGreaterThan(500);
    expect(summary.hierarchies.length).toBeLessThan(2000);
    expect(summary.hierarchies[0]).toEqual({ id: roots[0]?.id, name: roots[0]?.name });
  });
});

describe('lookupTerm', () => {
  it.each([
    ['eq(slug,a)', { attribute: 'slug', values: ['a'] }],
    ['in(sku,a,b,a):eq(slug,x)', { attribute: 'slug', values: ['x'] }],
    ['in(id,p1,p2):in(sku,a,b,c)', { attribute: 'id', values: ['p1', 'p2'] }],
    ['eq(tags,red):eq(name,x)', undefined],
  ])('%s', (filter, expected) => {
    expect(lookupTerm(parseFilter(filter))).toEqual(expected);
  });
});
