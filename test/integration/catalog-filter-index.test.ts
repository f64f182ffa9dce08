import { clearCatalogCaches } from '../../lib/catalog/cache';
import { decodeChunk } from '../../lib/catalog/child-index';
import { FILTER_INDEX_VERSION } from '../../lib/catalog/filter-index';
import { generateRelease } from '../../lib/catalog/generator';
import type { ChildIndexEntry, ReleaseLayout } from '../../lib/catalog/types';
import { compileFilter, parseFilter } from '../../lib/filter/index';
import { catalogRepository, chunkId } from '../../lib/store/catalog-repository';
import { listChildren } from '../support/catalog-fixtures';
import { createTestStore, tokenFor } from '../support/fixtures';
import { publishRelease } from '../support/one-process-publisher';

/**
 * Filtered child lists of a parent with 1,500 live children (15 index chunks, 3 filter-index buckets per
 * attribute): the first page reads the buckets its values hash to, the chunks of its own positions and its
 * products, never the whole child index, and finds exactly what scanning every child finds.
 */
const CHILDREN = 1500;
let token: string;
let layout: ReleaseLayout;
let parentId: string;
let everyChild: ChildIndexEntry[];
let chunkReads: number[][];
let postingReads: number;

beforeAll(async () => {
  const store = await createTestStore();
  token = await tokenFor(store, 'implicit');
  const document = generateRelease({ children: CHILDREN, drafts: 20 });
  parentId = (document.products as { id: string }[])[0]?.id as string;
  await publishRelease(store.store.id, document);
  const registry = await catalogRepository.getRegistry(store.store.id);
  layout = Object.values(registry?.catalogs ?? {})[0]?.release as ReleaseLayout;
  const chunks = Array.from({ length: CHILDREN / layout.chunk_size }, (_, chunk) => ({ parentId, chunk }));
  const read = await catalogRepository.readRelease(layout, { products: [], chunks });
  everyChild = chunks.flatMap(({ chunk }) =>
    decodeChunk(read.chunks.get(chunkId(parentId, chunk)) as Uint8Array),
  );
}, 120_000);

beforeEach(() => {
  clearCatalogCaches();
  chunkReads = [];
  postingReads = 0;
  const original = catalogRepository.readRelease.bind(catalogRepository);
  jest.spyOn(catalogRepository, 'readRelease').mockImplementation(async (release, request) => {
    chunkReads.push(request.chunks.map((each) => each.chunk));
    postingReads += request.postings?.length ?? 0;
    return original(release, request);
  });
});
afterEach(() => jest.restoreAllMocks());

/** The old way: every child through the compiled filter, in index order (`in(id,...)`: by updated_at). */
function scanned(filter: string): string[] {
  const found = everyChild.filter(compileFilter(parseFilter(filter)));
  return found.map((entry) => entry.id);
}

it('is recorded on the release', () => {
  expect(layout.filter_index).toBe(FILTER_INDEX_VERSION);
  expect(everyChild).toHaveLength(CHILDREN);
});

it.each([
  ['eq(tags,red)', 'page[limit]=25'],
  ['eq(tags,red):eq(tags,xl)', 'page[limit]=10&page[offset]=20'],
  ['in(manufacturer_part_num,MPN-3,MPN-44)', 'page[limit]=25&page[offset]=50'],
  ['eq(sku,GEN-1-000777)', 'page[limit]=25'],
  ['eq(tags,nothing-has-this)', 'page[limit]=25'],
])(
  'answers %s (%s) as scanning every child would, reading only the chunks of the page',
  async (filter, paging) => {
    const response = await listChildren(token, parentId, `filter=${filter}&${paging}`);
    expect(response.status).toBe(200);
    const expected = scanned(filter);
    const params = new URLSearchParams(paging);
    const offset = Number(params.get('page[offset]') ?? 0);
    const limit = Number(params.get('page[limit]'));
    expect(response.body.meta.results.total).toBe(expected.length);
    expect(response.body.data.map((product: { id: string }) => product.id)).toEqual(
      expected.slice(offset, offset + limit),
    );
    const pagePositions = expected
      .slice(offset, offset + limit)
      .map((id) => everyChild.findIndex((entry) => entry.id === id));
    const pageChunks = new Set(pagePositions.map((position) => Math.floor(position / layout.chunk_size)));
    // Only the page's chunks were read (15 would be the whole index), and a bucket per value at most.
    expect(new Set(chunkReads.flat())).toEqual(pageChunks);
    expect(postingReads).toBeLessThanOrEqual(filter.split(',').length);
    expect(postingReads).toBeGreaterThan(0);
  },
);

it('orders an in(id,...) lookup by updated_at, reading only the chunks of the ids asked for', async () => {
  const picked = [everyChild[1400], everyChild[3], everyChild[777]] as ChildIndexEntry[];
  const filter = `in(id,${picked.map((entry) => entry.id).join(',')})`;
  const response = await listChildren(token, parentId, `filter=${filter}`);
  expect(response.status).toBe(200);
  const expected = [...picked]
    .sort((a, b) =>
      a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : a.id < b.id ? -1 : 1,
    )
    .map((entry) => entry.id);
  expect(response.body.data.map((product: { id: string }) => product.id)).toEqual(expected);
  expect(new Set(chunkReads.flat())).toEqual(new Set([14, 0, 7]));
});

it('serves the same filter from the container cache the second time, reading no bucket again', async () => {
  expect((await listChildren(token, parentId, 'filter=eq(tags,blue)&page[limit]=5')).status).toBe(200);
  const first = postingReads;
  expect(first).toBeGreaterThan(0);
  const second = await listChildren(token, parentId, 'filter=eq(tags,blue)&page[limit]=5&page[offset]=5');
  expect(second.status).toBe(200);
  expect(postingReads).toBe(first);
  expect(second.body.data.map((product: { id: string }) => product.id)).toEqual(
    scanned('eq(tags,blue)').slice(5, 10),
  );
});
