import { gunzipSync } from 'node:zlib';
import { handler as getCatalogProduct } from '../../functions/get-catalog-product/handler';
import { handler as listCatalogProducts } from '../../functions/list-catalog-products/handler';
import { handler as deleteRelease } from '../../functions/pcm-delete-release/handler';
import { handler as deleteReleases } from '../../functions/pcm-delete-releases/handler';
import { clearCatalogCaches } from '../../lib/catalog/cache';
import { runWorkflowLocally } from '../../lib/catalog/pipeline/run-local';
import { MAX_LAYERS, releaseObjects } from '../../lib/catalog/pipeline/share';
import { registerLocalWorkflow } from '../../lib/catalog/pipeline/start';
import type { ReleaseExecutionInput } from '../../lib/catalog/pipeline/workflow';
import { cleanupReleases } from '../../lib/catalog/publisher';
import { catalogRepository } from '../../lib/store/catalog-repository';
import { objectStore } from '../../lib/store/object-store';
import type { PcmRelease } from '../../lib/store/pcm-repository';
import {
  adminOfNewStore,
  childrenRelease,
  id,
  itemsOfRelease,
  LIVE_CHILDREN,
  listChildren,
  PARENT,
  readRegistryEveryRequest,
  STANDALONE,
} from '../support/catalog-fixtures';
import { invoke } from '../support/fixtures';
import { newPcmCatalog } from '../support/pcm-fixtures';
import { publishDocument, runStepByStep } from '../support/step-runner';

/**
 * Releases that share what did not change (docs/publishing.md): a publish writes the items that differ
 * from the release before it and tombstones for what it removed; shoppers read the new release through
 * its layers exactly as a release written whole; layers stay at most MAX_LAYERS deep; deleting, rolling
 * back and the cleanup never remove a release another one still reads.
 */

readRegistryEveryRequest();
jest.setTimeout(120_000);

const runs: Promise<unknown>[] = [];
/** Run once between a publish's Merge and its writes (the workflow's steps, as the harness runs them). */
let afterMerge: (() => Promise<void>) | undefined;

async function runWithPause(input: ReleaseExecutionInput): Promise<unknown> {
  const pause = afterMerge;
  afterMerge = undefined;
  if (pause === undefined) return runWorkflowLocally(input);
  return runStepByStep(input, { afterMerge: pause });
}

beforeAll(() => {
  registerLocalWorkflow((input) => {
    const run = runWithPause(input);
    runs.push(run);
    return run;
  });
});

type Document = ReturnType<typeof childrenRelease>;

async function newCatalog() {
  const { storeId, headers } = await adminOfNewStore();
  const catalogId = await newPcmCatalog(storeId, 'Main');
  const document = (): Document => childrenRelease({ catalogId, catalogName: 'Main' });
  const publish = async (doc: Document, body = '{}'): Promise<PcmRelease> => {
    const release = await publishDocument({ storeId, catalogId, headers, document: doc, runs, body });
    expect(release?.state).toBe('PUBLISHED');
    return release as PcmRelease;
  };
  const shopper = { ...headers, 'ep-channel': 'web' };
  const product = (productId: string) =>
    invoke(getCatalogProduct, {
      method: 'GET',
      path: `/catalog/products/${productId}`,
      pathParameters: { product_id: productId },
      headers: shopper,
    });
  const products = async (query = '') => {
    const result = await invoke(listCatalogProducts, {
      method: 'GET',
      path: `/catalog/products${query}`,
      headers: shopper,
    });
    expect(result.status).toBe(200);
    return result.body;
  };
  const children = async (query = '') => {
    const result = await listChildren(undefined, PARENT, query, {
      ...shopper,
      authorization: headers.authorization as string,
    });
    expect(result.status).toBe(200);
    return result.body;
  };
  const all = { path: `/pcm/catalogs/${catalogId}/releases`, pathParameters: { catalog_id: catalogId } };
  return {
    storeId,
    catalogId,
    headers,
    document,
    publish,
    product,
    products,
    children,
    remove: (releaseId: string) =>
      invoke(deleteRelease, {
        method: 'DELETE',
        path: `${all.path}/${releaseId}`,
        pathParameters: { ...all.pathParameters, release_id: releaseId },
        headers,
      }),
    removeAll: () => invoke(deleteReleases, { method: 'DELETE', ...all, headers }),
  };
}

/** The lines of a release's delta file: `createupdate <id>` or `delete <id>`, sorted. */
async function deltaLines(release: PcmRelease): Promise<string[]> {
  expect(release.delta).toBeDefined();
  const parts: Buffer[] = [];
  for await (const chunk of objectStore.read(release.delta?.key as string)) parts.push(Buffer.from(chunk));
  return gunzipSync(Buffer.concat(parts))
    .toString('utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { delta_type: string; id: string })
    .map((line) => `${line.delta_type} ${line.id}`)
    .sort();
}

const childAt = (doc: Document, productId: string) =>
  doc.products.find((p) => p.id === productId) as { id: string; attributes: Record<string, unknown> };

/** What a shopper sees of the catalog: every product page and the parent's children, by id. */
async function snapshot(catalog: Awaited<ReturnType<typeof newCatalog>>) {
  const list = await catalog.products('?page[limit]=100');
  const kids = await catalog.children('page[limit]=100');
  return {
    products: list.data.map((p: { id: string; attributes: { name: string }; meta: unknown }) => [
      p.id,
      p.attributes.name,
      JSON.stringify(p.meta),
    ]),
    total: list.meta.results.total,
    children: kids.data.map((p: { id: string }) => p.id),
  };
}

describe('a publish writes what changed, and shoppers read it as a whole release', () => {
  it('writes nothing for the same document again, and one product for one changed price', async () => {
    const catalog = await newCatalog();
    const first = await catalog.publish(catalog.document());
    expect(first.is_full_publish).toBe(true);
    expect(first.layers).toEqual([]);
    expect(first.total_items).toBe(first.release_items);
    expect(await itemsOfRelease(first.release_id)).toBe(first.total_items);
    // The local harness records each state's wall time (a document: no export).
    expect(Object.keys(first.step_seconds ?? {}).sort()).toEqual(
      ['validate', 'plan', 'derive', 'merge', 'write', 'switch'].sort(),
    );
    for (const seconds of Object.values(first.step_seconds ?? {})) expect(seconds).toBeGreaterThanOrEqual(0);
    const whole = await snapshot(catalog);
    // The first release's delta file holds the whole catalog: every live product.
    expect(first.delta?.full).toBe(true);
    expect((await deltaLines(first)).length).toBe(whole.total);

    const same = await catalog.publish(catalog.document());
    expect(same.total_items).toBe(0);
    expect(same.delta).toMatchObject({ full: false, lines: 0 });
    expect(same.release_items).toBe(first.release_items);
    expect(same.layers).toEqual([first.release_id]);
    expect(same.is_full_publish).toBe(false);
    expect(await snapshot(catalog)).toEqual(whole);

    const changed = catalog.document();
    const target = LIVE_CHILDREN[4] as string;
    childAt(changed, target).attributes.price = { USD: { amount: 12345, includes_tax: false } };
    const priced = await catalog.publish(changed);
    expect(priced.total_items).toBeGreaterThan(0);
    expect(priced.total_items).toBeLessThanOrEqual(3);
    expect(priced.sharing).toMatchObject({ changed_products: 1, removed_products: 0, full_delta: false });
    expect(priced.layers).toEqual([same.release_id, first.release_id]);
    expect(await deltaLines(priced)).toEqual([`createupdate ${target}`]);
    const read = await catalog.product(target);
    expect(read.status).toBe(200);
    expect(read.body.data.attributes.price.USD.amount).toBe(12345);
    const other = await catalog.product(LIVE_CHILDREN[5] as string);
    expect(other.status).toBe(200);
    expect((await snapshot(catalog)).total).toBe(whole.total);
  });

  it('hides a removed product behind a tombstone and shows an added one, in every read', async () => {
    const catalog = await newCatalog();
    await catalog.publish(catalog.document());
    const doc = catalog.document();
    // A live product near the end: positions after it shift (docs/publishing.md), so few items change.
    const removed = id(301);
    doc.products = doc.products.filter((p) => p.id !== removed);
    doc.products.push({
      id: id(777),
      attributes: { name: 'Added', sku: 'ADDED', status: 'live', commodity_type: 'physical' },
    } as (typeof doc.products)[number]);
    const next = await catalog.publish(doc);
    // Changed: the added product, and the draft parent of the removed child (its live-child count).
    expect(next.sharing).toMatchObject({ changed_products: 2, removed_products: 1 });
    expect(next.total_items).toBeLessThan((next.release_items as number) / 2);
    // The draft parent changed too, but shoppers never see it: no line.
    expect(await deltaLines(next)).toEqual([`createupdate ${id(777)}`, `delete ${removed}`].sort());
    expect((await catalog.product(removed)).status).toBe(404);
    expect((await catalog.product(id(777))).status).toBe(200);
    const bySku = await catalog.products(
      `?filter=${encodeURIComponent(`eq(sku,${childAt(catalog.document(), removed).attributes.sku})`)}`,
    );
    expect(bySku.data).toEqual([]);
    const added = await catalog.products('?filter=eq(sku,ADDED)');
    expect(added.data.map((p: { id: string }) => p.id)).toEqual([id(777)]);
    // The release reads as the same document published whole into a fresh catalog does.
    const fresh = await newCatalog();
    const freshDoc = fresh.document();
    freshDoc.products = doc.products;
    await fresh.publish(freshDoc);
    const a = await snapshot(catalog);
    const b = await snapshot(fresh);
    expect(a.children).toEqual(b.children);
    expect(a.total).toBe(b.total);
    expect(a.products.map((p: string[]) => p.slice(0, 2))).toEqual(
      b.products.map((p: string[]) => p.slice(0, 2)),
    );
  });

  it('keeps at most MAX_LAYERS layers: the next publish compacts onto the bottom', async () => {
    const catalog = await newCatalog();
    const bottom = await catalog.publish(catalog.document());
    const depths: number[] = [];
    let last = bottom;
    for (let n = 1; n <= MAX_LAYERS + 1; n += 1) {
      const doc = catalog.document();
      childAt(doc, LIVE_CHILDREN[n] as string).attributes.name = `Renamed ${n}`;
      last = await catalog.publish(doc);
      depths.push((last.layers ?? []).length);
      // Against the release before, whether it compacted or not: this child renamed, the last one back.
      expect(await deltaLines(last)).toEqual(
        [LIVE_CHILDREN[n], ...(n > 1 ? [LIVE_CHILDREN[n - 1]] : [])].map((c) => `createupdate ${c}`).sort(),
      );
      // Every rename so far shows (the earlier ones through the layers or the compacted one).
      for (let m = 1; m <= n; m += 1) {
        const read = await catalog.product(LIVE_CHILDREN[m] as string);
        expect(read.body.data.attributes.name).toBe(m === n ? `Renamed ${n}` : `Child ${m + 1}`);
      }
    }
    expect(Math.max(...depths)).toBeLessThanOrEqual(MAX_LAYERS - 1);
    expect(depths).toEqual([1, 2, 3, 1, 2]);
    expect(last.layers?.at(-1)).toBe(bottom.release_id);
  });
});

describe('deleting, rolling back and the cleanup keep what a kept release reads', () => {
  it('keeps a shared release past the kept three, rolls back through layers, and reclaims all at the end', async () => {
    const catalog = await newCatalog();
    const r: PcmRelease[] = [];
    for (let n = 0; n < 7; n += 1) {
      const doc = catalog.document();
      childAt(doc, STANDALONE).attributes.name = `Standalone ${n}`;
      r.push(await catalog.publish(doc));
    }
    const ids = r.map((release) => release.release_id);
    expect(r.map((release) => release.layers)).toEqual([
      [],
      [ids[0]],
      [ids[1], ids[0]],
      [ids[2], ids[1], ids[0]],
      [ids[0]],
      [ids[4], ids[0]],
      [ids[5], ids[4], ids[0]],
    ]);
    // Kept: r6 (current), r5, r4. r1-r3 are read by none of them and go; r0 is, and stays.
    const swept = await cleanupReleases(catalog.storeId, {
      catalogId: catalog.catalogId,
      retainReplacedMs: 0,
    });
    expect(new Set(swept.releases)).toEqual(new Set([ids[1], ids[2], ids[3]]));
    expect(await itemsOfRelease(ids[1] as string)).toBe(0);
    expect(await itemsOfRelease(ids[0] as string)).toBeGreaterThan(0);
    expect((await catalog.product(STANDALONE)).body.data.attributes.name).toBe('Standalone 6');

    // Deleting the current release rolls back to r5, read through its own layers (r4, r0).
    expect((await catalog.remove(ids[6] as string)).status).toBe(204);
    clearCatalogCaches();
    expect((await catalog.product(STANDALONE)).body.data.attributes.name).toBe('Standalone 5');
    expect((await catalog.product(LIVE_CHILDREN[0] as string)).status).toBe(200);
    await cleanupReleases(catalog.storeId, { catalogId: catalog.catalogId, retainReplacedMs: 0 });
    expect(await itemsOfRelease(ids[0] as string)).toBeGreaterThan(0);

    // Unpublished: nothing reads any of them, so the cleanup reclaims every item.
    expect((await catalog.removeAll()).status).toBe(204);
    await cleanupReleases(catalog.storeId, { catalogId: catalog.catalogId, retainReplacedMs: 0 });
    for (const release of ids) expect(await itemsOfRelease(release)).toBe(0);
    const markers = await catalogRepository.listReleases(catalog.storeId, catalog.catalogId);
    expect(markers.filter((m) => m.status === 'complete')).toEqual([]);
  });

  it('keeps the release a publish compares with when the catalog API deletes it meanwhile', async () => {
    const catalog = await newCatalog();
    const named = (n: number) => {
      const doc = catalog.document();
      childAt(doc, STANDALONE).attributes.name = `Standalone ${n}`;
      return doc;
    };
    const a = await catalog.publish(named(0));
    const b = await catalog.publish(named(1));
    // Between C's Merge (its comparison with B) and its writes: B, the current release, is deleted (the
    // catalog rolls back to A) and the cleanup runs with no retention at all.
    afterMerge = async () => {
      expect((await catalog.remove(b.release_id)).status).toBe(204);
      await cleanupReleases(catalog.storeId, { catalogId: catalog.catalogId, retainReplacedMs: 0 });
      expect(await itemsOfRelease(b.release_id)).toBeGreaterThan(0);
    };
    const c = await catalog.publish(named(2));
    expect(c.layers).toEqual([b.release_id, a.release_id]);
    expect((await catalog.product(STANDALONE)).body.data.attributes.name).toBe('Standalone 2');
    expect((await catalog.product(LIVE_CHILDREN[3] as string)).status).toBe(200);
    // B, deleted for the API, stays as long as C reads it.
    await cleanupReleases(catalog.storeId, { catalogId: catalog.catalogId, retainReplacedMs: 0 });
    expect(await itemsOfRelease(b.release_id)).toBeGreaterThan(0);
  });

  it('leaves no object of a deleted release once the next publish has swept', async () => {
    const catalog = await newCatalog();
    const first = await catalog.publish(catalog.document());
    expect(
      await objectStore.head(
        releaseObjects.manifestParts(catalog.storeId, catalog.catalogId, first.release_id),
      ),
    ).toBeDefined();
    await catalog.publish(
      catalog.document(),
      JSON.stringify({ data: { type: 'catalog-release', export_full_delta: true } }),
    );
    await catalog.publish(catalog.document());
    await catalog.publish(catalog.document());
    await catalog.publish(catalog.document());
    const markers = new Set(
      (await catalogRepository.listReleases(catalog.storeId, catalog.catalogId)).map((m) => m.release_id),
    );
    const objects: string[] = [];
    for await (const object of objectStore.list(`releases/${catalog.storeId}/${catalog.catalogId}/`))
      objects.push(object.key);
    for (const key of objects) expect(markers.has(key.split('/')[3] as string)).toBe(true);
    expect(objects.length).toBeGreaterThan(0);
  });
});

describe('meta.is_full_publish', () => {
  it('is true for the first release and when export_full_delta asks, false for a delta', async () => {
    const catalog = await newCatalog();
    expect((await catalog.publish(catalog.document())).is_full_publish).toBe(true);
    expect((await catalog.publish(catalog.document())).is_full_publish).toBe(false);
    const asked = await catalog.publish(
      catalog.document(),
      JSON.stringify({ data: { type: 'catalog-release', export_full_delta: true } }),
    );
    expect(asked.is_full_publish).toBe(true);
    expect(asked.sharing?.full_delta).toBe(true);
    // Asking for a full delta file does not rewrite what did not change.
    expect(asked.total_items).toBe(0);
  });
});
