import fc from 'fast-check';
import { handler as listProducts } from '../../functions/list-catalog-products/handler';
import { handler as createRelease } from '../../functions/pcm-create-release/handler';
import { clearCatalogCaches } from '../../lib/catalog/cache';
import { decodeChunk } from '../../lib/catalog/child-index';
import { generateRelease } from '../../lib/catalog/generator';
import { oldestUpdateFirst, releaseFor } from '../../lib/catalog/list-children';
import { runWorkflowLocally } from '../../lib/catalog/pipeline/run-local';
import { registerLocalWorkflow } from '../../lib/catalog/pipeline/start';
import type { ReleaseSummary } from '../../lib/catalog/product-lookups';
import type { ChildIndexEntry, ReleaseLayout } from '../../lib/catalog/types';
import { compileFilter, isIdLookup, parseFilter } from '../../lib/filter/index';
import {
  type CatalogReadRequest,
  catalogLookupRepository,
  lookupKeys,
} from '../../lib/store/catalog-lookup-repository';
import { catalogRepository } from '../../lib/store/catalog-repository';
import { getDocumentClient } from '../../lib/store/client';
import { PutCommand } from '../../lib/store/dynamodb';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { tableName } from '../../lib/store/schema';
import { adminOfNewStore } from '../support/catalog-fixtures';
import {
  bearer,
  createTestStore,
  type InvokeResult,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  tokenFor,
} from '../support/fixtures';
import { publishRelease } from '../support/one-process-publisher';
import { newPcmCatalog, setPcmDocument } from '../support/pcm-fixtures';

/**
 * `GET /catalog/products` with filters no lookup answers, on a release whose release-wide index is cut into
 * segments of 300 products (5 segments here; 10,000 a segment in production): each answer equals a scan of
 * every live product of the release (order, total, links), the first page reads the filter index's buckets
 * and the chunks of its own positions only, never the whole index.
 */
jest.setTimeout(120_000);

const SEGMENT = 300;
let token: string;
let layout: ReleaseLayout;
/** Every live product's index entry, in publish order: what the scan read. */
let everyProduct: ChildIndexEntry[];
let indexReads: CatalogReadRequest[];

function products(query: string): Promise<InvokeResult> {
  return invoke(listProducts, {
    method: 'GET',
    path: `/catalog/products?${query}`,
    routeKey: 'GET /catalog/products',
    headers: bearer(token, { 'svc-channel': 'web' }),
  });
}

/** A page of the filter, checked against the scan: its total and its ids. */
async function pageAsScanned(filter: string, offset: number, limit: number): Promise<InvokeResult> {
  const expected = scanned(filter);
  const query = `filter=${encodeURIComponent(filter)}&page[offset]=${offset}&page[limit]=${limit}`;
  const response = await products(query);
  expect(response.status).toBe(200);
  expect(response.body.meta.results.total).toBe(expected.length);
  expect(response.body.data.map((product: { id: string }) => product.id)).toEqual(
    expected.slice(offset, offset + limit),
  );
  return response;
}

/** The old answer: every live product through the compiled filter, in publish order (ids: by updated_at). */
function scanned(filter: string): string[] {
  const parsed = parseFilter(filter);
  const found = everyProduct.filter(compileFilter(parsed));
  if (isIdLookup(parsed)) found.sort(oldestUpdateFirst);
  return found.map((entry) => entry.id);
}

beforeAll(async () => {
  const store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store, 'implicit');
  // 3 parents of 400 live children and 10 drafts each, and a standalone product: 1,204 live products.
  const document = generateRelease({ children: 400, drafts: 10, parents: 3, seed: 11 }) as {
    products: { attributes: { name: string; slug?: string; tags?: string[] } }[];
  };
  // Names shared across segments, slugs derived from them (repeated), tags in several cases.
  document.products.forEach((product, i) => {
    if (i % 4 === 1) {
      product.attributes.name = `Shared name ${i % 3}`;
      delete product.attributes.slug;
    }
    if (i % 5 === 2) product.attributes.tags = [...(product.attributes.tags ?? []), 'Sale'];
  });
  await publishRelease(store.store.id, document, { releaseSegment: SEGMENT });
  const registry = await catalogRepository.getRegistry(store.store.id);
  layout = releaseFor(registry, { channel: 'web', tag: undefined, now: new Date() });
  const { summary } = await catalogLookupRepository.read(layout, { summary: true });
  const live = (JSON.parse(summary as string) as ReleaseSummary).live_products;
  const chunks = Array.from({ length: Math.ceil(live / layout.chunk_size) }, (_, n) => n);
  const read = await catalogLookupRepository.read(layout, { chunks });
  everyProduct = chunks.flatMap((n) => decodeChunk(read.chunks.get(n) as Uint8Array));
  expect(everyProduct).toHaveLength(1204);
});

beforeEach(() => {
  clearCatalogCaches();
  indexReads = [];
  const original = catalogLookupRepository.read.bind(catalogLookupRepository);
  jest.spyOn(catalogLookupRepository, 'read').mockImplementation(async (release, request) => {
    indexReads.push(request);
    return original(release, request);
  });
});
afterEach(() => jest.restoreAllMocks());

it('records the segments and their bucket counts in the summary', async () => {
  const { summary } = await catalogLookupRepository.read(layout, { summary: true });
  const index = (JSON.parse(summary as string) as ReleaseSummary).filter_index;
  expect(index?.segment).toBe(SEGMENT);
  expect(index?.buckets).toHaveLength(5);
  for (const counts of index?.buckets ?? []) expect(counts).toHaveLength(8);
});

const KINDS: [string, string][] = [
  ['eq on tags', 'eq(tags,red)'],
  ['eq on tags in another case', 'eq(tags,SALE)'],
  ['in on tags', 'in(tags,xl,sale)'],
  ['eq on a name shared across segments', 'eq(name,Shared name 2)'],
  ['in on names', 'in(name,Shared name 0,Generated Tee 2)'],
  ['eq on mpn (alias)', 'eq(mpn,MPN-7)'],
  ['in on manufacturer_part_num', 'in(manufacturer_part_num,MPN-1,MPN-49)'],
  ['eq on upc_ean', 'eq(upc_ean,4000000000133)'],
  ['eq on product_types', 'eq(product_types,parent)'],
  ['in on product_types', 'in(product_types,standard,parent)'],
  ['an AND of three', 'eq(tags,red):in(product_types,child):in(mpn,MPN-3,MPN-13,MPN-23)'],
  ['a value nobody holds', 'eq(tags,nothing-has-this)'],
  ['an AND with no common product', 'eq(tags,red):eq(tags,blue)'],
];

it.each(KINDS)(
  'answers %s (%s) as a scan of the release would, reading only its page',
  async (_kind, filter) => {
    const expected = scanned(filter);
    for (const [offset, limit] of [
      [0, 25],
      [40, 100],
      [expected.length - 3, 10],
    ] as const) {
      if (offset < 0) continue;
      clearCatalogCaches();
      indexReads = [];
      await pageAsScanned(filter, offset, limit);
      const chunksRead = new Set(indexReads.flatMap((request) => request.chunks ?? []));
      const positions = expected
        .slice(offset, offset + limit)
        .map((id) => everyProduct.findIndex((entry) => entry.id === id));
      // The chunks of the page only (13 would be the whole index), and buckets of the values named.
      expect(chunksRead).toEqual(
        new Set(positions.map((position) => Math.floor(position / layout.chunk_size))),
      );
      expect(indexReads.filter((request) => (request.postings?.length ?? 0) > 0)).toHaveLength(1);
    }
  },
);

it('answers random filters and pages exactly as a scan, with the same links', async () => {
  const pick = <T>(values: T[]) => fc.constantFrom(...values);
  const values = {
    name: [...new Set(everyProduct.map((entry) => entry.name))].slice(0, 40).concat('Shared name 1', 'none'),
    manufacturer_part_num: ['MPN-0', 'MPN-1', 'MPN-17', 'MPN-49', 'MPN-99'],
    upc_ean: ['4000000000000', '4000000000399', '4000000000005', '1'],
    product_types: ['standard', 'parent', 'child', 'bundle'],
    tags: ['red', 'BLUE', 'green', 's', 'm', 'xl', 'sale', 'generated', 'none'],
  };
  const quote = (value: string) => `"${value}"`;
  const expression = fc
    .constantFrom(...(Object.keys(values) as (keyof typeof values)[]))
    .chain((attribute) =>
      fc.tuple(
        fc.constant(attribute),
        fc.constantFrom('eq', 'in'),
        fc.uniqueArray(pick(values[attribute]), { minLength: 1, maxLength: 3 }),
      ),
    )
    .map(([attribute, op, chosen]) =>
      op === 'eq'
        ? `eq(${attribute},${quote(chosen[0] as string)})`
        : `in(${attribute},${chosen.map(quote).join(',')})`,
    );
  await fc.assert(
    fc.asyncProperty(
      fc.array(expression, { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 0, max: 700 }),
      fc.integer({ min: 1, max: 100 }),
      fc.boolean(),
      async (expressions, offset, limit, cold) => {
        if (cold) clearCatalogCaches();
        const filter = expressions.join(':');
        const expected = scanned(filter);
        const response = await pageAsScanned(filter, offset, limit);
        const pages = Math.max(1, Math.ceil(expected.length / limit));
        expect(response.body.meta.page).toEqual({
          limit,
          offset,
          current: Math.floor(offset / limit) + 1,
          total: pages,
        });
        expect(response.body.links.self).toBe(
          `/catalog/products?filter=${encodeURIComponent(filter)}&page[offset]=${offset}&page[limit]=${limit}`,
        );
      },
    ),
    { numRuns: 40 },
  );
});

it('orders an id lookup with another term by updated_at', async () => {
  const picked = [everyProduct[1100], everyProduct[3], everyProduct[650]] as ChildIndexEntry[];
  const filter = `in(id,${picked.map((entry) => entry.id).join(',')}):in(product_types,child,parent)`;
  const response = await products(`filter=${encodeURIComponent(filter)}`);
  expect(response.body.data.map((product: { id: string }) => product.id)).toEqual(scanned(filter));
});

it('serves the next page of a filter from the positions it cached, reading no bucket again', async () => {
  expect((await products('filter=eq(tags,green)&page[limit]=5')).status).toBe(200);
  const buckets = indexReads.filter((request) => (request.postings?.length ?? 0) > 0).length;
  expect(buckets).toBe(1);
  const next = await products('filter=eq(tags,green)&page[limit]=5&page[offset]=5');
  expect(indexReads.filter((request) => (request.postings?.length ?? 0) > 0).length).toBe(buckets);
  expect(next.body.data.map((product: { id: string }) => product.id)).toEqual(
    scanned('eq(tags,green)').slice(5, 10),
  );
});

it('scans the whole index of a release published before the filter index (its summary names none)', async () => {
  const { summary } = await catalogLookupRepository.read(layout, { summary: true });
  const parsed = JSON.parse(summary as string) as ReleaseSummary;
  const { filter_index: _index, ...older } = parsed;
  const put = (json: string) =>
    getDocumentClient().send(
      new PutCommand({ TableName: tableName('products'), Item: { ...lookupKeys.summary(layout), d: json } }),
    );
  await put(JSON.stringify(older));
  try {
    clearCatalogCaches();
    indexReads = [];
    await pageAsScanned('eq(tags,red):in(mpn,MPN-3,MPN-13)', 5, 10);
    expect(new Set(indexReads.flatMap((request) => request.chunks ?? [])).size).toBe(
      Math.ceil(everyProduct.length / layout.chunk_size),
    );
    expect(indexReads.filter((request) => (request.postings?.length ?? 0) > 0)).toEqual([]);
  } finally {
    await put(summary as string);
    clearCatalogCaches();
  }
});

describe('a release that shares its items with the one before', () => {
  const runs: Promise<unknown>[] = [];
  beforeAll(() =>
    registerLocalWorkflow((input) => {
      const run = runWorkflowLocally(input);
      runs.push(run);
      return run;
    }),
  );

  it('answers a filter on a tag changed by the second publish from its own buckets', async () => {
    const { storeId, headers } = await adminOfNewStore();
    const catalogId = await newPcmCatalog(storeId, 'Shared');
    const document = () =>
      generateRelease({ children: 150, parents: 2, seed: 5, catalogName: 'Shared' }) as {
        catalog: Record<string, unknown>;
        products: { id: string; attributes: { tags?: string[] } }[];
      };
    const publish = async (doc: ReturnType<typeof document>) => {
      doc.catalog.id = catalogId;
      await setPcmDocument(storeId, catalogId, doc);
      const created = await invoke(createRelease, {
        method: 'POST',
        path: `/pcm/catalogs/${catalogId}/releases`,
        pathParameters: { catalog_id: catalogId },
        headers,
        body: '{}',
      });
      expect(created.status).toBe(201);
      await Promise.all(runs.splice(0));
      return pcmRepository.getRelease(storeId, catalogId, created.body.data.id);
    };
    const shopper = { ...headers, 'ep-channel': 'web' };
    const count = async (filter: string) => {
      clearCatalogCaches();
      const response = await invoke(listProducts, {
        method: 'GET',
        path: `/catalog/products?filter=${encodeURIComponent(filter)}&page[limit]=100`,
        routeKey: 'GET /catalog/products',
        headers: shopper,
      });
      expect(response.status).toBe(200);
      return response.body as { data: { id: string }[]; meta: { results: { total: number } } };
    };
    const first = await publish(document());
    expect(first?.state).toBe('PUBLISHED');
    const before = await count('eq(tags,red)');
    expect(before.meta.results.total).toBeGreaterThan(0);

    const changed = document();
    const target = changed.products[160] as { id: string; attributes: { tags?: string[] } };
    target.attributes.tags = ['recoloured'];
    const second = await publish(changed);
    expect(second?.state).toBe('PUBLISHED');
    expect(second?.layers).toEqual([first?.release_id]);
    expect((second?.total_items as number) < (second?.release_items as number) / 2).toBe(true);
    const recoloured = await count('eq(tags,recoloured)');
    expect(recoloured.data.map((product) => product.id)).toEqual([target.id]);
    const wasRed = before.data.some((product) => product.id === target.id);
    const after = await count('eq(tags,red)');
    expect(after.meta.results.total).toBe(before.meta.results.total - (wasRed ? 1 : 0));
    expect(after.data.some((product) => product.id === target.id)).toBe(false);
  });
});
