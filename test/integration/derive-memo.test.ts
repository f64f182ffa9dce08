import { handler as getCatalogProduct } from '../../functions/get-catalog-product/handler';
import { generateRelease } from '../../lib/catalog/generator';
import { memoObjects } from '../../lib/catalog/pipeline/derive-memo';
import { releaseManifest, releaseObjects } from '../../lib/catalog/pipeline/share';
import { registerLocalWorkflow } from '../../lib/catalog/pipeline/start';
import type { ReleaseExecutionInput } from '../../lib/catalog/pipeline/workflow';
import { resetConfig } from '../../lib/config/index';
import { objectStore } from '../../lib/store/object-store';
import { type PcmRelease, pcmRepository } from '../../lib/store/pcm-repository';
import { adminOfNewStore, readRegistryEveryRequest } from '../support/catalog-fixtures';
import { invoke } from '../support/fixtures';
import { newPcmCatalog } from '../support/pcm-fixtures';
import { publishDocument, runStepByStep } from '../support/step-runner';

/**
 * Deriving only the ranges that changed (docs/publishing.md): every release keeps what each range of its
 * products derived; the next publish takes up the ranges whose inputs are the same and derives the others.
 * The release is the one a derivation of every range makes: its item manifest is byte for byte the same.
 */

readRegistryEveryRequest();
jest.setTimeout(120_000);

beforeAll(() => {
  // Ranges of about 100 products: a 600-product document is seven of them.
  process.env.DERIVE_RANGE_PRODUCTS = '100';
  resetConfig();
});
afterAll(() => {
  delete process.env.DERIVE_RANGE_PRODUCTS;
  resetConfig();
});

/** Per publish: which ranges were taken up (true) or derived (false), in order. */
let derived: boolean[] = [];
/** Run once between a publish's derivations and its merge. */
let beforeMerge: ((input: ReleaseExecutionInput) => Promise<void>) | undefined;
const runs: Promise<unknown>[] = [];

function run(input: ReleaseExecutionInput): Promise<unknown> {
  derived = [];
  const pause = beforeMerge;
  beforeMerge = undefined;
  return runStepByStep(input, {
    derived: (kept) => {
      derived.push(kept);
    },
    ...(pause ? { beforeMerge: () => pause(input) } : {}),
  });
}

beforeAll(() => {
  registerLocalWorkflow((input) => {
    const running = run(input);
    runs.push(running);
    return running;
  });
});

type Document = {
  catalog: Record<string, unknown>;
  products: { id: string; attributes: Record<string, unknown>; meta?: Record<string, unknown> }[];
};

/** 600 products (seven ranges); without their own times, so the derivation writes the publish time into every one. */
function document(catalogId: string): Document {
  const doc = generateRelease({ children: 199, parents: 3, seed: 21, catalogName: 'Memo' }) as Document;
  doc.catalog.id = catalogId;
  for (const product of doc.products) {
    delete product.attributes.created_at;
    delete product.attributes.updated_at;
    if (product.meta) {
      delete product.meta.created_at;
      delete product.meta.updated_at;
    }
  }
  return doc;
}

async function newCatalog() {
  const { storeId, headers } = await adminOfNewStore();
  const catalogId = await newPcmCatalog(storeId, 'Memo');
  const publish = async (doc: Document, body = '{}'): Promise<PcmRelease> => {
    const release = await publishDocument({ storeId, catalogId, headers, document: doc, runs, body });
    expect([release?.state, release?.errors]).toEqual(['PUBLISHED', undefined]);
    return release as PcmRelease;
  };
  const manifest = async (release: PcmRelease) => {
    const parts: Buffer[] = [];
    for await (const bytes of releaseManifest(
      { store_id: storeId, catalog_id: catalogId },
      release.release_id,
    ))
      parts.push(Buffer.from(bytes));
    return Buffer.concat(parts);
  };
  const kept = async (release: PcmRelease) => {
    const names: string[] = [];
    const prefix = memoObjects.partial({ store_id: storeId, catalog_id: catalogId }, release.release_id, '');
    for await (const object of objectStore.list(prefix.slice(0, prefix.lastIndexOf('/') + 1)))
      names.push(object.key);
    return names.filter((name) => name.endsWith('.partial.json')).length;
  };
  const product = (productId: string) =>
    invoke(getCatalogProduct, {
      method: 'GET',
      path: `/catalog/products/${productId}`,
      pathParameters: { product_id: productId },
      headers: { ...headers, 'ep-channel': 'web' },
    });
  return { storeId, catalogId, publish, manifest, kept, product };
}

describe('a publish derives only the ranges that changed', () => {
  it('takes up every range of the same document, and derives only the range of a changed product', async () => {
    const catalog = await newCatalog();
    const first = await catalog.publish(document(catalog.catalogId));
    expect(derived.length).toBeGreaterThanOrEqual(4);
    expect(derived.every((kept) => !kept)).toBe(true);
    expect(await catalog.kept(first)).toBe(derived.length);

    const same = await catalog.publish(document(catalog.catalogId));
    expect(derived.every((kept) => kept)).toBe(true);
    expect(same.total_items).toBe(0);
    expect(same.layers).toEqual([first.release_id]);
    // Kept again by the release that took them up, for the one after it.
    expect(await catalog.kept(same)).toBe(derived.length);

    // One product of the third range renamed: that range is derived, every other one taken up.
    const changed = document(catalog.catalogId);
    const target = changed.products[250] as Document['products'][number];
    target.attributes.name = 'Renamed in the third range';
    const one = await catalog.publish(changed);
    expect(derived.filter((kept) => !kept).length).toBe(1);
    expect(one.sharing).toMatchObject({ changed_products: 1, removed_products: 0 });
    const read = await catalog.product(target.id);
    expect([read.status, read.body.data?.attributes?.name]).toEqual([200, 'Renamed in the third range']);

    // The same document published with every range derived (a full publish takes up nothing): the same
    // items, entry for entry, as the release that took most of them up.
    const full = await catalog.publish(changed, JSON.stringify({ export_full_delta: true }));
    expect(derived.every((kept) => !kept)).toBe(true);
    expect((await catalog.manifest(full)).equals(await catalog.manifest(one))).toBe(true);
  });

  it("reads a range's bytes beside its plan when nothing can take it up (the catalog's first release)", async () => {
    const catalog = await newCatalog();
    const reads: string[] = [];
    const read = objectStore.read.bind(objectStore);
    jest.spyOn(objectStore, 'read').mockImplementation((key, range) => {
      if (key.endsWith('/plan.json')) reads.push('plan');
      else if (range !== undefined) reads.push('range');
      return read(key, range);
    });
    try {
      await catalog.publish(document(catalog.catalogId));
    } finally {
      jest.restoreAllMocks();
    }
    expect(derived.length).toBeGreaterThanOrEqual(4);
    // The first derivation reads the plan (the process keeps it for the others): its range's bytes went first.
    expect(reads.slice(0, 2)).toEqual(['range', 'plan']);
    expect(reads.filter((what) => what === 'range')).toHaveLength(derived.length);
  });

  it('derives the taken-up ranges again when the merge needs their items: a full delta file asked meanwhile', async () => {
    const catalog = await newCatalog();
    await catalog.publish(document(catalog.catalogId));
    const changed = document(catalog.catalogId);
    (changed.products[120] as Document['products'][number]).attributes.name = 'Renamed';
    // Planned on the release before (ranges taken up), then a whole write is asked before the merge.
    beforeMerge = (input) =>
      pcmRepository
        .updateRelease(input.store_id, input.catalog_id, input.release_id, { full_delta: true })
        .then(() => undefined);
    const asked = await catalog.publish(changed);
    expect(derived.filter((kept) => kept).length).toBe(derived.length - 1);
    // Its delta file lists every product (read from the ranges derived again), its writes are the change.
    expect(asked.is_full_publish).toBe(true);
    expect(asked.delta?.full).toBe(true);
    expect(asked.total_items).toBeLessThan(20);
    // The same items and the same delta file as a release derived whole.
    const whole = await catalog.publish(changed, JSON.stringify({ export_full_delta: true }));
    expect(derived.every((kept) => !kept)).toBe(true);
    expect((await catalog.manifest(whole)).equals(await catalog.manifest(asked))).toBe(true);
    expect(asked.delta?.lines).toBe(whole.delta?.lines);
    expect(asked.delta?.lines).toBeGreaterThan(400);
  });

  it('compacting, derives again only the kept ranges that differ from the bottom release', async () => {
    const catalog = await newCatalog();
    const doc = document(catalog.catalogId);
    const bottom = await catalog.publish(doc);
    const ranges = derived.length;
    expect(ranges).toBeGreaterThanOrEqual(6);
    // Three publishes, each renaming a product of another range: three layers over the first release.
    const releases = [bottom];
    for (const at of [150, 250, 350]) {
      (doc.products[at] as Document['products'][number]).attributes.name = `Renamed ${at}`;
      releases.push(await catalog.publish(doc));
      expect(derived.filter((kept) => !kept).length).toBe(1);
    }
    expect(releases[3]?.layers).toHaveLength(3);
    // The fifth compacts: compared with the first, ranges 1 to 3 differ (taken up, then derived again
    // for their lines) and range 4 changed now; the others stay taken up.
    (doc.products[450] as Document['products'][number]).attributes.name = 'Renamed 450';
    const compacted = await catalog.publish(doc);
    expect(compacted.layers).toEqual([bottom.release_id]);
    expect(derived.filter((kept) => !kept).length).toBe(1);
    expect(compacted.derivation).toEqual({ ranges, kept: ranges - 4 });
    expect(compacted.sharing).toMatchObject({ changed_products: 1, removed_products: 0 });
    for (const at of [150, 250, 350, 450]) {
      const read = await catalog.product((doc.products[at] as Document['products'][number]).id);
      expect([read.status, read.body.data?.attributes?.name]).toEqual([200, `Renamed ${at}`]);
    }
    const whole = await catalog.publish(doc, JSON.stringify({ export_full_delta: true }));
    expect(whole.derivation).toEqual({ ranges, kept: 0 });
    expect((await catalog.manifest(whole)).equals(await catalog.manifest(compacted))).toBe(true);
  });
  it('compares only the ranges it does not share with the release before: their manifest parts are not read', async () => {
    const catalog = await newCatalog();
    const first = await catalog.publish(document(catalog.catalogId));
    const changed = document(catalog.catalogId);
    (changed.products[250] as Document['products'][number]).attributes.name = 'Renamed';
    const read = jest.spyOn(objectStore, 'read');
    let one: PcmRelease;
    let keys: string[];
    try {
      one = await catalog.publish(changed);
    } finally {
      keys = read.mock.calls.map(([key]) => key);
      read.mockRestore();
    }
    expect(derived.filter((kept) => !kept).length).toBe(1);
    expect(one.sharing).toMatchObject({ changed_products: 1, removed_products: 0 });
    // Of the releases' manifests, only the compared release's merged part and its part of the changed
    // range were read; neither the parts of the ranges both releases have nor any of the new release's.
    const prefix = (release: PcmRelease) =>
      releaseObjects.prefix(catalog.storeId, catalog.catalogId, release.release_id);
    const manifests = new Set(keys.filter((key) => key.startsWith('releases/') && key.endsWith('.manifest')));
    expect(manifests.size).toBe(2);
    expect(manifests.has(`${prefix(first)}merged.manifest`)).toBe(true);
    expect([...manifests].filter((key) => key.startsWith(`${prefix(first)}ranges/`))).toHaveLength(1);
    // The same release as one derived whole.
    const whole = await catalog.publish(changed, JSON.stringify({ export_full_delta: true }));
    expect((await catalog.manifest(whole)).equals(await catalog.manifest(one))).toBe(true);
  });

  it('compares with a release whose manifest is one object (published before manifests had parts)', async () => {
    const catalog = await newCatalog();
    const first = await catalog.publish(document(catalog.catalogId));
    // The first release's manifest as such a release keeps it: its entries in one object, no parts list.
    const ids = { store_id: catalog.storeId, catalog_id: catalog.catalogId };
    const entries = await catalog.manifest(first);
    await objectStore.put(
      releaseObjects.manifest(catalog.storeId, catalog.catalogId, first.release_id),
      entries,
      {
        contentType: 'application/octet-stream',
      },
    );
    await objectStore.delete(releaseObjects.manifestParts(ids.store_id, ids.catalog_id, first.release_id));
    const changed = document(catalog.catalogId);
    (changed.products[250] as Document['products'][number]).attributes.name = 'Renamed';
    const one = await catalog.publish(changed);
    expect(one.layers).toEqual([first.release_id]);
    expect(one.sharing).toMatchObject({ changed_products: 1, removed_products: 0 });
    expect(one.total_items).toBeLessThan(20);
    const read = await catalog.product((changed.products[250] as Document['products'][number]).id);
    expect(read.body.data?.attributes?.name).toBe('Renamed');
  });
});
