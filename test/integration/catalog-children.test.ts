import { clearCatalogCaches } from '../../lib/catalog/cache';
import {
  childAttributes,
  childrenRelease,
  DRAFT_PARENT,
  EMPTY_PARENT,
  id,
  LEAF_NODE,
  LIVE_CHILDREN,
  listChildren,
  PARENT,
  ROOT_NODE,
  STANDALONE,
} from '../support/catalog-fixtures';
import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore, tokenFor } from '../support/fixtures';
import { publishRelease } from '../support/one-process-publisher';

let store: TestStore;
let implicit: string;
let admin: string;
let catalogId: string;
const BASE = `/catalog/products/${PARENT}/relationships/children`;

beforeAll(async () => {
  store = await createTestStore({ page_length: 5, rate_limit: SHARED_STORE_RATE_LIMIT });
  implicit = await tokenFor(store, 'implicit');
  admin = await tokenFor(store, 'client_credentials');
  catalogId = (await publishRelease(store.store.id, childrenRelease())).catalog_id;
});

beforeEach(() => clearCatalogCaches());

const ids = (body: { data: { id: string }[] }) => body.data.map((product) => product.id);

describe('GET /catalog/products/{id}/relationships/children: 200', () => {
  it("returns the first page of live children in publish order, sized by the store's page length", async () => {
    const response = await listChildren(implicit, PARENT);
    expect(response.status).toBe(200);
    expect(response.headers['Content-Type']).toBe('application/json');
    expect(ids(response.body)).toEqual(LIVE_CHILDREN.slice(0, 5));
    expect(response.body.meta).toEqual({
      results: { total: 12 },
      page: { limit: 5, offset: 0, current: 1, total: 3 },
    });
    expect(response.body.links).toEqual({
      self: `${BASE}?page[offset]=0&page[limit]=5`,
      first: `${BASE}?page[offset]=0&page[limit]=5`,
      last: `${BASE}?page[offset]=10&page[limit]=5`,
      prev: null,
      next: `${BASE}?page[offset]=5&page[limit]=5`,
    });
  });

  it('renders each child in the product resource shape with inherited price, modifiers and breadcrumbs', async () => {
    const response = await listChildren(admin, PARENT, 'page[limit]=3');
    const third = response.body.data[2];
    expect(third.type).toBe('product');
    expect(third.attributes).toMatchObject({
      name: 'Child 3',
      sku: 'CH-3',
      slug: 'child-3',
      status: 'live',
      base_product: false,
      base_product_id: PARENT,
      product_types: ['child'],
      tags: ['red', 'odd'],
      price_modifiers: ['plus'],
      price: { USD: { amount: 1250, includes_tax: false } },
      language: 'en-US',
      updated_at: '2024-01-27T00:00:00.000Z',
    });
    expect('curated_product' in third.attributes).toBe(false);
    expect(third.relationships).toEqual({ parent: { data: { id: PARENT, type: 'product' } } });
    expect(third.meta).toEqual({
      catalog_id: catalogId,
      catalog_source: 'pim',
      pricebook_id: null,
      bread_crumbs: { [LEAF_NODE]: [ROOT_NODE, LEAF_NODE] },
      bread_crumb_nodes: [LEAF_NODE],
      display_price: {
        with_tax: { amount: 1250, currency: 'USD', formatted: '$12.50' },
        without_tax: { amount: 1250, currency: 'USD', formatted: '$12.50' },
      },
      price_modifiers: {
        plus: { modifier_type: 'price_increment', currencies: { USD: { amount: 250, includes_tax: false } } },
      },
      variation_matrix: {},
    });
  });

  it('renders names in the locale accept-language picks', async () => {
    const french = await listChildren(implicit, PARENT, 'page[limit]=2', {
      'svc-channel': 'web',
      'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8',
    });
    expect(
      french.body.data.map((p: { attributes: { name: string; language: string } }) => [
        p.attributes.name,
        p.attributes.language,
      ]),
    ).toEqual([
      ['Enfant 1', 'fr-FR'],
      ['Child 2', 'en-US'],
    ]);
  });

  it('accepts EP-Channel and EP-Context-Tag as aliases', async () => {
    const response = await listChildren(implicit, PARENT, '', {
      'ep-channel': 'web',
      'ep-context-tag': 'vip',
    });
    expect(response.status).toBe(200);
    expect(response.body.meta.results.total).toBe(12);
  });

  it('returns 200 with an empty list for a base product whose children are all drafts', async () => {
    const response = await listChildren(implicit, EMPTY_PARENT);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    expect(response.body.meta).toEqual({
      results: { total: 0 },
      page: { limit: 5, offset: 0, current: 1, total: 1 },
    });
    expect(response.body.links).toMatchObject({ last: null, prev: null, next: null });
  });
});

describe('pagination edges', () => {
  it('pages through an exact multiple of the limit', async () => {
    const last = await listChildren(implicit, PARENT, 'page[limit]=4&page[offset]=8');
    expect(ids(last.body)).toEqual(LIVE_CHILDREN.slice(8, 12));
    expect(last.body.meta.page).toEqual({ limit: 4, offset: 8, current: 3, total: 3 });
    expect(last.body.links).toMatchObject({
      last: `${BASE}?page[offset]=8&page[limit]=4`,
      next: null,
      prev: `${BASE}?page[offset]=4&page[limit]=4`,
    });
  });

  it('walks every child exactly once through links.next', async () => {
    const seen: string[] = [];
    let query: string | undefined = 'page[limit]=5';
    while (query !== undefined) {
      const response = await listChildren(implicit, PARENT, query);
      seen.push(...ids(response.body));
      const next: string | null = response.body.links.next;
      query = next === null ? undefined : next.split('?')[1];
    }
    expect(seen).toEqual(LIVE_CHILDREN);
  });

  it('returns an empty page past the end, with links back into the results', async () => {
    const response = await listChildren(implicit, PARENT, 'page[limit]=5&page[offset]=20');
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual([]);
    expect(response.body.meta).toEqual({
      results: { total: 12 },
      page: { limit: 5, offset: 20, current: 5, total: 3 },
    });
    expect(response.body.links).toMatchObject({
      prev: `${BASE}?page[offset]=15&page[limit]=5`,
      next: null,
      last: `${BASE}?page[offset]=10&page[limit]=5`,
    });
  });

  it('accepts the bounds page[limit]=100 and page[offset]=10000', async () => {
    const all = await listChildren(implicit, PARENT, 'page[limit]=100');
    expect(ids(all.body)).toEqual(LIVE_CHILDREN);
    expect(all.body.links).toMatchObject({ last: null, prev: null, next: null });
    const far = await listChildren(implicit, PARENT, 'page[limit]=1&page[offset]=10000');
    expect(far.status).toBe(200);
    expect(far.body.data).toEqual([]);
  });

  it('pages filtered results too', async () => {
    const response = await listChildren(implicit, PARENT, 'filter=eq(tags,red)&page[limit]=2&page[offset]=2');
    expect(response.body.data.map((p: { attributes: { name: string } }) => p.attributes.name)).toEqual([
      'Child 9',
      'Child 12',
    ]);
    expect(response.body.meta.results.total).toBe(4);
    expect(response.body.links.first).toBe(`${BASE}?filter=eq(tags%2Cred)&page[offset]=0&page[limit]=2`);
    expect(response.body.links.next).toBeNull();
  });
});

describe('filters: every attribute and operator', () => {
  const names = (body: { data: { attributes: { name: string } }[] }) =>
    body.data.map((p) => p.attributes.name);
  const filtered = async (filter: string) => {
    const response = await listChildren(
      implicit,
      PARENT,
      `filter=${encodeURIComponent(filter)}&page[limit]=100`,
    );
    expect(response.status).toBe(200);
    expect(response.body.meta.results.total).toBe(response.body.data.length);
    return names(response.body);
  };

  it.each([
    ['eq(name,Child 4)', ['Child 4']],
    ['eq(name,"Child 1")', ['Child 1']],
    ['in(name,Child 2,Child 11,Nobody)', ['Child 2', 'Child 11']],
    ['eq(sku,CH-7)', ['Child 7']],
    ['in(sku,CH-7,CH-8)', ['Child 7', 'Child 8']],
    ['eq(slug,child-10)', ['Child 10']],
    ['in(slug,child-10,child-12)', ['Child 10', 'Child 12']],
    ['eq(mpn,MPN-0)', ['Child 3', 'Child 6', 'Child 9', 'Child 12']],
    ['eq(manufacturer_part_num,MPN-1)', ['Child 1', 'Child 4', 'Child 7', 'Child 10']],
    [
      'in(mpn,MPN-1,MPN-2)',
      ['Child 1', 'Child 2', 'Child 4', 'Child 5', 'Child 7', 'Child 8', 'Child 10', 'Child 11'],
    ],
    [`eq(upc_ean,${childAttributes(5).upc_ean})`, ['Child 5']],
    [`in(upc_ean,${childAttributes(5).upc_ean},${childAttributes(6).upc_ean})`, ['Child 5', 'Child 6']],
    ['eq(product_types,child)', Array.from({ length: 12 }, (_, i) => `Child ${i + 1}`)],
    ['eq(product_types,standard)', []],
    ['in(product_types,standard,child)', Array.from({ length: 12 }, (_, i) => `Child ${i + 1}`)],
    ['eq(tags,blue)', ['Child 1', 'Child 4', 'Child 7', 'Child 10']],
    ['eq(tags,BLUE)', ['Child 1', 'Child 4', 'Child 7', 'Child 10']],
    [
      'in(tags,blue,green)',
      ['Child 1', 'Child 2', 'Child 4', 'Child 5', 'Child 7', 'Child 8', 'Child 10', 'Child 11'],
    ],
    ['eq(tags,red):eq(tags,odd)', ['Child 3', 'Child 9']],
    ['in(tags,green):eq(mpn,MPN-2):in(sku,CH-2,CH-5,CH-11)', ['Child 2', 'Child 5', 'Child 11']],
  ])('%s', async (filter, expected) => {
    expect(await filtered(filter)).toEqual(expected);
  });

  it('orders in(id,...) results by updated_at, oldest first, whatever the order of the ids', async () => {
    const wanted = [LIVE_CHILDREN[1], LIVE_CHILDREN[9], LIVE_CHILDREN[4]] as string[];
    const response = await listChildren(implicit, PARENT, `filter=in(id,${wanted.join(',')})`);
    // Child 10 was updated on 2024-01-20, child 5 on 01-25, child 2 on 01-28.
    expect(ids(response.body)).toEqual([LIVE_CHILDREN[9], LIVE_CHILDREN[4], LIVE_CHILDREN[1]]);
  });

  it('never returns a draft, even when the filter names it', async () => {
    expect(await filtered(`in(id,${id(202)},${id(206)},${id(213)})`)).toEqual([]);
    expect(await filtered('eq(sku,CH-DRAFT-213)')).toEqual([]);
    expect(await filtered('eq(name,Child 1)')).toEqual(['Child 1']);
  });

  it('treats quotes and expression syntax in values as data', async () => {
    expect(await filtered(`eq(name,"x' OR name <> '")`)).toEqual([]);
    expect(await filtered('eq(sku,"CH-1) OR (1=1")')).toEqual([]);
  });

  it('returns an empty result for a filter that matches nothing', async () => {
    const response = await listChildren(implicit, PARENT, 'filter=eq(sku,NOPE)');
    expect(response.body).toEqual({
      data: [],
      meta: { results: { total: 0 }, page: { limit: 5, offset: 0, current: 1, total: 1 } },
      links: {
        self: `${BASE}?filter=eq(sku%2CNOPE)&page[offset]=0&page[limit]=5`,
        first: `${BASE}?filter=eq(sku%2CNOPE)&page[offset]=0&page[limit]=5`,
        last: null,
        prev: null,
        next: null,
      },
    });
  });
});

describe('errors', () => {
  const expectError = (
    response: { status: number; body: any },
    status: number,
    detail: string,
    source?: string,
  ) => {
    expect(response.status).toBe(status);
    expect(response.body.errors).toHaveLength(1);
    expect(response.body.errors[0]).toMatchObject({
      status: String(status),
      detail,
      ...(source ? { source } : {}),
    });
    if (!source) expect(response.body.errors[0].source).toBeUndefined();
  };

  it('400 without SVC-Channel', async () => {
    expectError(
      await listChildren(implicit, PARENT, '', {}),
      400,
      'the SVC-Channel header is required (e.g. SVC-Channel: web)',
      'SVC-Channel',
    );
  });

  it.each([
    ['page[limit]=0', 'page[limit]', 'page[limit] must be an integer from 1 to 100'],
    ['page[limit]=101', 'page[limit]', 'page[limit] must be an integer from 1 to 100'],
    ['page[limit]=abc', 'page[limit]', 'page[limit] must be an integer from 1 to 100'],
    ['page[offset]=10001', 'page[offset]', 'page[offset] must be an integer from 0 to 10000'],
    ['page[offset]=-1', 'page[offset]', 'page[offset] must be an integer from 0 to 10000'],
  ])('400 for %s', async (query, source, detail) => {
    expectError(await listChildren(implicit, PARENT, query), 400, detail, source);
  });

  it.each(['eq(color,red)', 'gt(sku,1)', 'eq(tags,a,b)', 'eq(sku', ''])(
    '400 naming the filter for %p',
    async (filter) => {
      const response = await listChildren(implicit, PARENT, `filter=${encodeURIComponent(filter)}`);
      expect(response.status).toBe(400);
      expect(response.body.errors[0].source).toBe('filter');
    },
  );

  it('401 without a token or with an unknown one', async () => {
    expectError(await listChildren(undefined, PARENT), 401, 'Unable to validate access token');
    expectError(await listChildren('x'.repeat(40), PARENT), 401, 'Unable to validate access token');
  });

  it('404 for a product that is not in the release, not live, or not an id', async () => {
    expectError(await listChildren(implicit, id(777)), 404, 'product not found in the catalog');
    expectError(await listChildren(implicit, DRAFT_PARENT), 404, 'product not found in the catalog');
    expectError(await listChildren(implicit, 'not-a-uuid'), 404, 'product not found in the catalog');
    expectError(await listChildren(implicit, 'x'.repeat(2000)), 404, 'product not found in the catalog');
  });

  it('422 for a product that is not a base product (standalone or child)', async () => {
    const detail = 'the product is not a base product, so it has no child products';
    expectError(await listChildren(implicit, STANDALONE), 422, detail);
    expectError(await listChildren(implicit, LIVE_CHILDREN[0] as string), 422, detail);
  });

  it("404 'no catalog for this context' for a store without a published catalog", async () => {
    const empty = await createTestStore();
    expectError(
      await listChildren(await tokenFor(empty, 'implicit'), PARENT),
      404,
      'no catalog for this context',
    );
  });

  it("never shows another store's catalog", async () => {
    const other = await createTestStore();
    await publishRelease(other.store.id, childrenRelease({ namePrefix: 'Other ' }));
    const theirs = await listChildren(await tokenFor(other, 'implicit'), PARENT, 'page[limit]=1');
    expect(theirs.body.data[0].attributes.name).toBe('Other Child 1');
    const ours = await listChildren(implicit, PARENT, 'page[limit]=1');
    expect(ours.body.data[0].attributes.name).toBe('Child 1');
  });
});

describe('catalog rules choose the release', () => {
  let ruled: TestStore;
  let token: string;
  const web = id(5001);
  const summer = id(5002);

  beforeAll(async () => {
    ruled = await createTestStore();
    token = await tokenFor(ruled, 'implicit');
    await publishRelease(
      ruled.store.id,
      childrenRelease({
        catalogId: web,
        catalogName: 'Web',
        namePrefix: 'Web ',
        rules: [{ name: 'web', channels: ['web'] }],
      }),
    );
    await publishRelease(
      ruled.store.id,
      childrenRelease({
        catalogId: summer,
        catalogName: 'Summer',
        namePrefix: 'Summer ',
        rules: [
          { name: 'summer on web', channels: ['web'], tags: ['summer'] },
          { name: 'expired', channels: ['mobile'], schedules: [{ valid_to: '2020-01-01T00:00:00Z' }] },
        ],
      }),
    );
  });

  const firstName = async (headers: Record<string, string>) => {
    const response = await listChildren(token, PARENT, 'page[limit]=1', headers);
    return response.status === 200 ? response.body.data[0].attributes.name : response.body.errors[0].detail;
  };

  it('picks the rule that matches the most criteria', async () => {
    expect(await firstName({ 'svc-channel': 'web' })).toBe('Web Child 1');
    expect(await firstName({ 'svc-channel': 'web', 'svc-context-tag': 'summer' })).toBe('Summer Child 1');
    expect(await firstName({ 'svc-channel': 'WEB', 'svc-context-tag': 'winter' })).toBe('Web Child 1');
  });

  it('404s when rules exist but none applies (other channel, expired schedule)', async () => {
    expect(await firstName({ 'svc-channel': 'pos' })).toBe('no catalog for this context');
    expect(await firstName({ 'svc-channel': 'mobile' })).toBe('no catalog for this context');
  });

  it('uses the oldest published catalog when the store has no rules', async () => {
    const plain = await createTestStore();
    await publishRelease(plain.store.id, childrenRelease({ catalogName: 'First', namePrefix: 'First ' }));
    await publishRelease(plain.store.id, childrenRelease({ catalogName: 'Second', namePrefix: 'Second ' }));
    const response = await listChildren(await tokenFor(plain, 'implicit'), PARENT, 'page[limit]=1', {
      'svc-channel': 'anything',
    });
    expect(response.body.data[0].attributes.name).toBe('First Child 1');
  });
});
