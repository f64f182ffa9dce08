import fc from 'fast-check';
import sample from '../../catalog/sample-release.json';
import { clearCatalogCaches } from '../../lib/catalog/cache';
import { generateRelease } from '../../lib/catalog/generator';
import { cleanupReleases, RELEASE_SHARDS, StoreNotFoundError } from '../../lib/catalog/publisher';
import type { ReleaseLayout } from '../../lib/catalog/types';
import { ReleaseValidationError } from '../../lib/catalog/validate-release';
import { validateRelease } from '../../lib/catalog/validate-stream';
import { catalogRepository } from '../../lib/store/catalog-repository';
import { getDocumentClient } from '../../lib/store/client';
import { storeRepository } from '../../lib/store/store-repository';
import {
  childrenRelease,
  itemsOfRelease,
  listChildren,
  PARENT,
  readRegistryEveryRequest,
  SAMPLE_COUNTS,
} from '../support/catalog-fixtures';
import { createTestStore, type TestStore, tokenFor } from '../support/fixtures';
import { publishRelease } from '../support/one-process-publisher';
import { mutate, mutation, pathsOf, schemaValidRelease } from '../support/release-arbitrary';

// Readers here must see a switch or rule write at once: no registry caching in this file.
readRegistryEveryRequest();
afterEach(() => jest.restoreAllMocks());

/**
 * The tests that publish a whole release (the sample with its files and EUR prices, 260 generated products)
 * take 2-5 s on a 2-core machine shared with other test runs: past jest's 5 s default there.
 */
const PUBLISH_TIMEOUT_MS = 30_000;

/**
 * Items of `childrenRelease()`: 21 products, one index chunk for each parent with live children (2) and
 * their filter-index buckets (one per attribute their children hold a value of: 15 in all); the
 * product indexes of its 16 live products (a summary, one chunk of the release-wide index and its filter
 * index's 8 buckets, one per filterable attribute of its one segment, one lookup per live product for each
 * of id, slug and sku); and for its two nodes 3 node items (the nodes and the
 * release-wide entry) and 6 id lists (the release's hierarchies and nodes, the root's children,
 * descendants and products of all its nodes, the leaf's products).
 */
const RELEASE_ITEMS = 21 + 2 + 15 + 1 + 1 + 8 + 16 * 3 + 3 + 6;

async function firstNames(token: string, count = 12): Promise<string[]> {
  const response = await listChildren(token, PARENT, `page[limit]=${count}`);
  expect(response.status).toBe(200);
  return response.body.data.map((product: { attributes: { name: string } }) => product.attributes.name);
}

describe('publishRelease: validation', () => {
  it('rejects an invalid document with every issue and writes nothing', async () => {
    const store = await createTestStore();
    const bad = childrenRelease();
    (bad.products[0] as { attributes: Record<string, unknown> }).attributes.slug = 'not ok';
    (bad.products[1] as { attributes: Record<string, unknown> }).attributes.status = 'gone';
    let caught: unknown;
    try {
      await publishRelease(store.store.id, bad);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ReleaseValidationError);
    expect((caught as ReleaseValidationError).issues).toEqual([
      {
        path: 'products[0].attributes.slug',
        rule: 'slug',
        message: 'may only contain A-Z, a-z, 0-9, hyphen, underscore and period',
      },
      {
        path: 'products[1].attributes.status',
        rule: 'enum',
        message: 'must be one of live, draft, got "gone"',
      },
    ]);
    expect(await catalogRepository.getRegistry(store.store.id)).toBeUndefined();
    expect(await catalogRepository.listReleases(store.store.id)).toEqual([]);
  });

  it('refuses an unknown store before writing anything', async () => {
    await expect(
      publishRelease('00000000-0000-4000-8000-00000000dead', childrenRelease()),
    ).rejects.toBeInstanceOf(StoreNotFoundError);
  });
});

describe('publishRelease: success', () => {
  it(
    'publishes the sample release, keeps given ids and sets the store currencies in the same switch',
    async () => {
      const store = await createTestStore();
      const result = await publishRelease(store.store.id, sample);
      expect(result.catalog_id).toBe(sample.catalog.id);
      expect(result.products).toEqual(SAMPLE_COUNTS);
      // 14 products, 8 files, 2 child-index chunks, 8 filter-index buckets for each of the 2 parents; a
      // summary, 1 release-wide index chunk, its filter index's 8 buckets (one segment) and 3 lookups (id,
      // slug, sku) for each of the 11 live products;
      // 8 node items (7 nodes and the release-wide entry) and 14 node id lists (2 of them the products
      // of each hierarchy's nodes).
      expect(result.items).toBe(14 + 8 + 2 + 16 + 1 + 1 + 8 + 11 * 3 + 8 + 14);
      const registry = await catalogRepository.getRegistry(store.store.id);
      const catalog = registry?.catalogs[sample.catalog.id];
      expect(catalog?.release.id).toBe(result.release_id);
      expect(catalog?.rules.map((rule) => [rule.id, rule.name, rule.catalog_id])).toEqual(
        sample.rules.map((rule) => [rule.id, rule.name, sample.catalog.id]),
      );
      expect((await storeRepository.get(store.store.id, true))?.currencies).toEqual(sample.currencies);
      expect(await itemsOfRelease(result.release_id)).toBe(result.items);
      const tee = sample.files[0] as (typeof sample.files)[number];
      const read = await catalogRepository.readRelease(catalog?.release as ReleaseLayout, {
        products: [],
        files: [tee.id, '00000000-0000-4000-8000-000000000000'],
        chunks: [],
      });
      expect([...read.files.keys()]).toEqual([tee.id]);
      expect(JSON.parse(read.files.get(tee.id) as string)).toEqual({
        type: 'file',
        ...tee,
        meta: {
          ...tee.meta,
          timestamps: { created_at: '2024-03-01T09:00:00.000Z' },
        },
      });
      const markers = await catalogRepository.listReleases(store.store.id);
      expect(markers.map((marker) => [marker.release_id, marker.status])).toEqual([
        [result.release_id, 'complete'],
      ]);
    },
    PUBLISH_TIMEOUT_MS,
  );

  it('leaves the store currencies alone when the document has none, and reuses a catalog by name', async () => {
    const store = await createTestStore();
    const first = await publishRelease(store.store.id, childrenRelease());
    const second = await publishRelease(store.store.id, childrenRelease());
    expect(second.catalog_id).toBe(first.catalog_id);
    expect(second.release_id).not.toBe(first.release_id);
    expect((await storeRepository.get(store.store.id, true))?.currencies).toEqual(store.store.currencies);
    const registry = await catalogRepository.getRegistry(store.store.id);
    expect(Object.keys(registry?.catalogs ?? {})).toEqual([first.catalog_id]);
    expect(registry?.version).toBe(2);
  });

  it(
    'pages a parent whose index spans several chunks in publish order, filtered or not',
    async () => {
      const store = await createTestStore();
      const document = generateRelease({ children: 250, drafts: 10, seed: 7 });
      await publishRelease(store.store.id, document);
      const token = await tokenFor(store, 'implicit');
      const products = document.products as { id: string; attributes: Record<string, any> }[];
      const parentId = products[0]?.id as string;
      const live = products.filter(
        (p) => p.attributes.base_product_id === parentId && p.attributes.status === 'live',
      );
      const seen: string[] = [];
      for (const offset of [0, 50, 150]) {
        const limit = offset === 0 ? 50 : 100;
        clearCatalogCaches();
        const response = await listChildren(token, parentId, `page[offset]=${offset}&page[limit]=${limit}`);
        expect(response.body.meta.results.total).toBe(250);
        seen.push(...response.body.data.map((p: { id: string }) => p.id));
      }
      expect(seen).toEqual(live.map((p) => p.id));
      const red = live.filter((p) => p.attributes.tags.includes('red')).map((p) => p.id);
      clearCatalogCaches();
      const filtered = await listChildren(token, parentId, 'filter=eq(tags,red)&page[limit]=100');
      expect(filtered.body.meta.results.total).toBe(red.length);
      expect(filtered.body.data.map((p: { id: string }) => p.id)).toEqual(red.slice(0, 100));
    },
    PUBLISH_TIMEOUT_MS,
  );
});

describe('switching releases', () => {
  let store: TestStore;
  let token: string;

  beforeEach(async () => {
    // Three readers loop without pause from one source address for as long as a publish takes, and one
    // address may take at most half a store's storefront pool (docs/rate-limits.md): at the default 100/s
    // a publish slowed past a second by a loaded machine drew 429s. These tests are about the switch.
    store = await createTestStore({ rate_limit: 10_000 });
    token = await tokenFor(store, 'implicit');
    await publishRelease(store.store.id, childrenRelease({ namePrefix: 'A ' }));
  });

  it('shows a republish at once', async () => {
    expect((await firstNames(token, 1))[0]).toBe('A Child 1');
    await publishRelease(store.store.id, childrenRelease({ namePrefix: 'B ' }));
    expect((await firstNames(token, 1))[0]).toBe('B Child 1');
  });

  it('never shows a half-written release: readers keep the old one until the switch', async () => {
    const write = catalogRepository.writeItems.bind(catalogRepository);
    const seenMidway: string[][] = [];
    jest.spyOn(catalogRepository, 'writeItems').mockImplementation(async (items, options) => {
      const half = Math.floor(items.length / 2);
      await write(items.slice(0, half), options);
      clearCatalogCaches();
      seenMidway.push(await firstNames(token));
      await write(items.slice(half), options);
      clearCatalogCaches();
      seenMidway.push(await firstNames(token));
    });
    await publishRelease(store.store.id, childrenRelease({ namePrefix: 'B ' }));
    const allA = Array.from({ length: 12 }, (_, i) => `A Child ${i + 1}`);
    expect(seenMidway).toEqual([allA, allA]);
    expect(await firstNames(token, 1)).toEqual(['B Child 1']);
  });

  it('keeps the previous release serving when a publish dies half-way, and removes what it wrote', async () => {
    const before = await catalogRepository.getRegistry(store.store.id);
    const write = catalogRepository.writeItems.bind(catalogRepository);
    jest.spyOn(catalogRepository, 'writeItems').mockImplementation(async (items, options) => {
      await write(items.slice(0, Math.floor(items.length / 2)), options);
      throw new Error('network gone');
    });
    await expect(publishRelease(store.store.id, childrenRelease({ namePrefix: 'B ' }))).rejects.toThrow(
      'network gone',
    );
    jest.restoreAllMocks();
    expect(await catalogRepository.getRegistry(store.store.id)).toEqual(before);
    expect((await firstNames(token, 1))[0]).toBe('A Child 1');
    const markers = await catalogRepository.listReleases(store.store.id);
    const currentId = Object.values(before?.catalogs ?? {})[0]?.release.id;
    expect(markers.map((marker) => marker.release_id)).toEqual([currentId]);
  });

  it('serves every read from one release or the other while a publish switches them', async () => {
    // The publish writes only once a read has completed (so some reads certainly see the old release
    // first, however slow the machine), not after a fixed sleep that a loaded machine can outlast.
    let firstRead: () => void = () => undefined;
    const readOnce = new Promise<void>((resolve) => {
      firstRead = resolve;
    });
    const write = catalogRepository.writeItems.bind(catalogRepository);
    jest.spyOn(catalogRepository, 'writeItems').mockImplementation(async (items, options) => {
      await readOnce;
      await write(items, options);
    });
    const publishing = publishRelease(store.store.id, childrenRelease({ namePrefix: 'B ' }));
    let done = false;
    const finish = () => {
      done = true;
    };
    publishing.then(finish, finish);
    // Each read with the clock ticks at which it started and ended: three readers run at once, so the
    // order reads end in is not the order they started in.
    let tick = 0;
    const pages: { names: string[]; started: number; ended: number }[] = [];
    const reader = async () => {
      while (!done) {
        const started = tick++;
        const response = await listChildren(token, PARENT, 'page[limit]=12');
        if (!response.body.data)
          throw new Error(`read failed: ${response.status} ${JSON.stringify(response.body)}`);
        const names = response.body.data.map((p: { attributes: { name: string } }) => p.attributes.name);
        pages.push({ names, started, ended: tick++ });
        firstRead();
      }
    };
    await Promise.all([reader(), reader(), reader(), publishing]);
    const started = tick++;
    pages.push({ names: await firstNames(token), started, ended: tick++ });
    for (const page of pages) {
      expect(page.names).toHaveLength(12);
      const prefix = page.names[0]?.slice(0, 2);
      expect(page.names.every((name) => name.startsWith(prefix as string))).toBe(true);
    }
    const isB = (page: { names: string[] }) => page.names[0]?.startsWith('B ') === true;
    expect(pages[0]?.names[0]).toBe('A Child 1');
    expect(isB(pages[pages.length - 1] as { names: string[] })).toBe(true);
    // Monotonic: a read that starts after a read returned the new release never gets the old one.
    const firstBEnded = Math.min(...pages.filter(isB).map((page) => page.ended));
    const oldAfterNew = pages.filter((page) => !isB(page) && page.started > firstBEnded);
    expect(oldAfterNew).toEqual([]);
  });

  it('cleans up replaced releases past the kept ones after the retention time, never the current one', async () => {
    const firstRegistry = await catalogRepository.getRegistry(store.store.id);
    const first = Object.values(firstRegistry?.catalogs ?? {})[0]?.release.id as string;
    const second = await publishRelease(store.store.id, childrenRelease({ namePrefix: 'B ' }));
    expect(second.cleaned_up).toEqual([]);
    expect(await itemsOfRelease(first)).toBe(RELEASE_ITEMS);
    expect(await cleanupReleases(store.store.id, { retainReplacedMs: 60_000, keepReplaced: 0 })).toEqual({
      releases: [],
      items: 0,
    });
    // A catalog keeps the two releases before its current one.
    expect(await cleanupReleases(store.store.id, { retainReplacedMs: 0 })).toEqual({
      releases: [],
      items: 0,
    });
    const cleaned = await cleanupReleases(store.store.id, { retainReplacedMs: 0, keepReplaced: 0 });
    expect(cleaned).toEqual({ releases: [first], items: RELEASE_ITEMS });
    expect(await itemsOfRelease(first)).toBe(0);
    expect(await itemsOfRelease(second.release_id)).toBe(RELEASE_ITEMS);
    expect((await firstNames(token, 1))[0]).toBe('B Child 1');
  });

  it('stops deleting at its deadline, keeps what it did not finish (marker and items), and a later cleanup finishes it', async () => {
    const replaced = (await catalogRepository.getRegistry(store.store.id))?.catalogs;
    const doomed = Object.values(replaced ?? {})[0]?.release.id as string;
    await publishRelease(store.store.id, childrenRelease({ namePrefix: 'C ' }));
    const options = { retainReplacedMs: 0, keepReplaced: 0 };
    // A deadline already past: nothing is deleted.
    expect(await cleanupReleases(store.store.id, { ...options, deadline: Date.now() })).toEqual({
      releases: [],
      items: 0,
    });
    expect(await itemsOfRelease(doomed)).toBe(RELEASE_ITEMS);
    // Each BatchWriteItem takes 2 s: the deadline (1.5 s away, time enough for the cleanup's reads even on a
    // loaded machine) passes during the first page of deletes.
    const slow = getDocumentClient().use((next) => async (operation, body) => {
      if (operation === 'BatchWriteItem') await new Promise((resolve) => setTimeout(resolve, 2000));
      return next(operation, body);
    });
    let partial: Awaited<ReturnType<typeof cleanupReleases>>;
    try {
      partial = await cleanupReleases(store.store.id, { ...options, deadline: Date.now() + 1500 });
    } finally {
      slow();
    }
    expect(partial.releases).toEqual([]);
    expect(partial.items).toBeGreaterThan(0);
    expect(partial.items).toBeLessThan(RELEASE_ITEMS);
    expect(await itemsOfRelease(doomed)).toBe(RELEASE_ITEMS - partial.items);
    expect((await catalogRepository.listReleases(store.store.id)).map((m) => m.release_id)).toContain(doomed);
    // Without a deadline the next cleanup takes the rest, then the marker.
    expect(await cleanupReleases(store.store.id, options)).toEqual({
      releases: [doomed],
      items: RELEASE_ITEMS - partial.items,
    });
    expect(await itemsOfRelease(doomed)).toBe(0);
  });

  it('deletes a release 25 items to a request, its partitions pooled (not one request a partition)', async () => {
    const replaced = (await catalogRepository.getRegistry(store.store.id))?.catalogs;
    const doomed = Object.values(replaced ?? {})[0]?.release.id as string;
    await publishRelease(store.store.id, childrenRelease({ namePrefix: 'D ' }));
    // The release's 105 items are spread over its partitions, a few each.
    expect(RELEASE_ITEMS).toBeGreaterThan(25 * 4);
    let requests = 0;
    const counting = getDocumentClient().use((next) => async (operation, body) => {
      if (operation === 'BatchWriteItem') requests += 1;
      return next(operation, body);
    });
    try {
      expect(await cleanupReleases(store.store.id, { retainReplacedMs: 0, keepReplaced: 0 })).toEqual({
        releases: [doomed],
        items: RELEASE_ITEMS,
      });
    } finally {
      counting();
    }
    expect(await itemsOfRelease(doomed)).toBe(0);
    expect(requests).toBe(Math.ceil(RELEASE_ITEMS / 25));
  });

  it('cleans up a release whose publisher died (no heartbeat), and leaves a live publish alone', async () => {
    const now = new Date();
    const marker = {
      store_id: store.store.id,
      catalog_id: '00000000-0000-4000-8000-00000000c0de',
      release_id: '00000000-0000-4000-8000-00000000abcd',
      shards: RELEASE_SHARDS,
      status: 'writing' as const,
      started_at: now.toISOString(),
      heartbeat_at: now.toISOString(),
    };
    await catalogRepository.startRelease(marker);
    const layout = {
      id: marker.release_id,
      shards: RELEASE_SHARDS,
      chunk_size: 100,
      published_at: marker.started_at,
    };
    await catalogRepository.writeItems([
      catalogRepository.chunkItem(layout, PARENT, 0, new Uint8Array([1, 2, 3])),
    ]);
    expect(await cleanupReleases(store.store.id)).toEqual({ releases: [], items: 0 });
    const later = new Date(now.getTime() + 6 * 60 * 1000);
    expect(await cleanupReleases(store.store.id, { now: later })).toEqual({
      releases: [marker.release_id],
      items: 1,
    });
    expect((await catalogRepository.listReleases(store.store.id)).map((m) => m.release_id)).not.toContain(
      marker.release_id,
    );
  });
});

describe('publishRelease agrees with the schema and the code checks (property)', () => {
  it('a document the validator accepts is published; one it rejects is refused with the same issues and nothing is written', async () => {
    const store = await createTestStore();
    const documents = fc.oneof(
      schemaValidRelease(),
      fc.constant(generateRelease({ children: 3, drafts: 1 }) as Record<string, unknown>),
    );
    const cases = documents.chain((document) =>
      fc.tuple(
        fc.constant(document),
        fc.option(fc.tuple(fc.constantFrom([], ...pathsOf(document)), mutation)),
      ),
    );
    let published = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(cases, async ([document, change]) => {
        const input = change ? mutate(document, change[0], change[1]) : document;
        const verdict = validateRelease(input);
        const releasesBefore = await catalogRepository.listReleases(store.store.id);
        const registryBefore = await catalogRepository.getRegistry(store.store.id);
        if (verdict.ok) {
          const result = await publishRelease(store.store.id, input);
          const registry = await catalogRepository.getRegistry(store.store.id);
          expect(registry?.catalogs[result.catalog_id]?.release.id).toBe(result.release_id);
          expect(result.products.total).toBe(verdict.document.products.length);
          published += 1;
        } else {
          const refusal = await publishRelease(store.store.id, input).catch((error: unknown) => error);
          expect(refusal).toBeInstanceOf(ReleaseValidationError);
          expect((refusal as ReleaseValidationError).issues).toEqual(verdict.issues);
          expect(await catalogRepository.listReleases(store.store.id)).toEqual(releasesBefore);
          expect(await catalogRepository.getRegistry(store.store.id)).toEqual(registryBefore);
          refused += 1;
        }
      }),
      { numRuns: 40 },
    );
    expect(published).toBeGreaterThan(3);
    expect(refused).toBeGreaterThan(3);
  }, 120_000);
});

describe('publishRelease: a catalog no shopper can reach', () => {
  const webRule = { name: 'Web', channels: ['web'], tags: [], schedules: [] };

  it('warns when the new catalog has no rules while another catalog of the store has rules', async () => {
    const store = await createTestStore();
    const ruled = await publishRelease(
      store.store.id,
      childrenRelease({ catalogName: 'Main', rules: [webRule] }),
    );
    expect(ruled.warnings).toEqual([]);
    const bare = await publishRelease(store.store.id, childrenRelease({ catalogName: 'Outlet' }));
    expect(bare.warnings).toHaveLength(1);
    expect(bare.warnings[0]).toContain(`catalog ${bare.catalog_id} can never be selected`);
    expect(bare.warnings[0]).toContain('has no rules while other catalogs of the store have rules');
    // It was published all the same, and the ruled catalog still serves the web channel.
    const registry = await catalogRepository.getRegistry(store.store.id);
    expect(registry?.catalogs[bare.catalog_id]?.release.id).toBe(bare.release_id);
  });

  it('warns when no catalog has rules and an older catalog takes every request', async () => {
    const store = await createTestStore();
    const first = await publishRelease(store.store.id, childrenRelease({ catalogName: 'First' }));
    expect(first.warnings).toEqual([]);
    const second = await publishRelease(store.store.id, childrenRelease({ catalogName: 'Second' }));
    expect(second.warnings[0]).toContain(`the store's oldest catalog (${first.catalog_id})`);
    // Republishing the oldest catalog is fine.
    expect(
      (await publishRelease(store.store.id, childrenRelease({ catalogName: 'First' }))).warnings,
    ).toEqual([]);
  });

  it('warns when every rule of the catalog has ended', async () => {
    const store = await createTestStore();
    const ended = {
      ...webRule,
      schedules: [{ valid_from: '2020-01-01T00:00:00Z', valid_to: '2021-01-01T00:00:00Z' }],
    };
    const result = await publishRelease(store.store.id, childrenRelease({ rules: [ended] }));
    expect(result.warnings[0]).toContain('every rule of this catalog has schedules that have all ended');
  });
});
