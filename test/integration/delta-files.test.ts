import { handler as getCatalog } from '../../functions/get-catalog/handler';
import { handler as getProduct } from '../../functions/get-catalog-product/handler';
import { handler as deleteCatalog } from '../../functions/pcm-delete-catalog/handler';
import { handler as deleteReleases } from '../../functions/pcm-delete-releases/handler';
import { handler as getRelease } from '../../functions/pcm-get-release/handler';
import { handler as listReleases } from '../../functions/pcm-list-releases/handler';
import { clearCatalogCaches } from '../../lib/catalog/cache';
import {
  type DeltaChange,
  deleteDeltaFile,
  deltaFileKey,
  writeDeltaFile,
} from '../../lib/catalog/pipeline/delta-file';
import { DELTA_LINK_SECONDS, DELTA_RETENTION_DAYS } from '../../lib/pcm/delta-link';
import { objectStore } from '../../lib/store/object-store';
import { pcmRepository } from '../../lib/store/pcm-repository';
import {
  adminOfNewStore,
  childrenRelease,
  DRAFT_PARENT,
  id,
  LIVE_CHILDREN,
  PARENT,
  readRegistryEveryRequest,
  STANDALONE,
} from '../support/catalog-fixtures';
import { downloadDelta, releaseChanges, streamOf } from '../support/delta-fixtures';
import { invoke } from '../support/fixtures';
import { publishRelease } from '../support/one-process-publisher';
import { newPcmCatalog, releaseRequests } from '../support/pcm-fixtures';
import { withAlteredSignature } from '../support/signed-urls';

/**
 * A published release's delta file (docs/catalog-api.md, "Delta files"): written with `writeDeltaFile` from
 * the release's own products, linked by the release on the catalog API and the shopper's `GET /catalog`
 * with a URL signed for an hour that plain `fetch` downloads, each line the product as
 * `GET /catalog/products/{id}` renders it; the local object store refuses an expired or altered URL; the
 * file goes with its release and with its catalog.
 */

readRegistryEveryRequest();

const WEB = { 'ep-channel': 'web' };
const GONE = id(777);
const IDS = [PARENT, DRAFT_PARENT, STANDALONE, ...LIVE_CHILDREN];

async function publishedCatalog() {
  const { storeId, headers } = await adminOfNewStore();
  const catalogId = await newPcmCatalog(storeId, 'Main', childrenRelease({ catalogName: 'Main' }));
  const first = await publishRelease(
    storeId,
    childrenRelease({ catalogId, catalogName: 'Main', namePrefix: 'A ' }),
  );
  const second = await publishRelease(
    storeId,
    childrenRelease({ catalogId, catalogName: 'Main', namePrefix: 'B ' }),
  );
  const { all, one } = releaseRequests(catalogId, headers);
  return {
    storeId,
    catalogId,
    headers,
    first: first.release_id,
    releaseId: second.release_id,
    get: (releaseId: string) => invoke(getRelease, { method: 'GET', ...one(releaseId) }),
    list: () => invoke(listReleases, { method: 'GET', ...all }),
    removeAll: () => invoke(deleteReleases, { method: 'DELETE', ...all }),
    shopperRelease: async () => {
      clearCatalogCaches();
      const result = await invoke(getCatalog, {
        method: 'GET',
        path: '/catalog',
        headers: { ...headers, ...WEB },
      });
      if (result.status !== 200) throw new Error(result.raw);
      return result.body.data;
    },
    shopperProduct: async (productId: string) => {
      const result = await invoke(getProduct, {
        method: 'GET',
        path: `/catalog/products/${productId}`,
        pathParameters: { product_id: productId },
        headers: { ...headers, ...WEB },
      });
      if (result.status !== 200) throw new Error(result.raw);
      return result.body.data;
    },
  };
}

describe('delta files', () => {
  it('are linked by the published release for an hour, downloaded without credentials, each product as the shopper catalog renders it', async () => {
    const c = await publishedCatalog();
    const before = (await c.get(c.releaseId)).body.data;
    expect(before.relationships).toBeUndefined();
    expect(before.meta).toMatchObject({ is_full_publish: true, is_full_delta: false });

    const changes = await releaseChanges(c.storeId, c.catalogId, IDS, [GONE]);
    const drafts = changes.filter((change) => change.type === 'createupdate' && !change.stored.live);
    expect(drafts.length).toBeGreaterThan(0);
    const written = await writeDeltaFile({
      storeId: c.storeId,
      catalogId: c.catalogId,
      releaseId: c.releaseId,
      full: false,
      changes: streamOf(changes),
    });
    expect(written).toEqual({
      key: deltaFileKey(c.storeId, c.catalogId, c.releaseId),
      lines: changes.length - drafts.length,
    });
    await pcmRepository.updateRelease(c.storeId, c.catalogId, c.releaseId, {
      delta: { key: written.key, full: false, lines: written.lines },
      is_full_publish: false,
    });

    const started = Date.now();
    const release = (await c.get(c.releaseId)).body.data;
    expect(release.meta).toMatchObject({ is_full_publish: false, is_full_delta: false });
    const url: string = release.relationships.delta.links.related;
    const signed = new URL(url);
    expect(signed.searchParams.get('X-Amz-Expires')).toBe(String(DELTA_LINK_SECONDS));
    const signedAt = Date.parse(
      (signed.searchParams.get('X-Amz-Date') as string).replace(
        /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/,
        '$1-$2-$3T$4:$5:$6Z',
      ),
    );
    expect(Math.abs(signedAt - started)).toBeLessThan(5_000);

    const { status, lines } = await downloadDelta(url);
    expect(status).toBe(200);
    expect(lines).toHaveLength(written.lines);
    expect(lines.at(-1)).toEqual({ delta_type: 'delete', id: GONE, type: 'product' });
    const products = lines.slice(0, -1);
    expect(products.map((line) => line.id)).toEqual(
      changes.flatMap((change) =>
        change.type === 'createupdate' && change.stored.live ? [change.stored.resource.id] : [],
      ),
    );
    for (const { delta_type, ...product } of products) {
      expect(delta_type).toBe('createupdate');
      expect(product).toEqual(await c.shopperProduct(product.id));
    }
    // The current release's products (its children's names carry its mark).
    expect(products.find((line) => line.id === LIVE_CHILDREN[0])?.attributes.name).toMatch(/^B /);

    // Each read signs afresh; the release before, without a delta file, links none.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const again = (await c.get('latestPublished')).body.data.relationships.delta.links.related;
    expect(again).not.toBe(url);
    expect((await downloadDelta(again)).lines).toEqual(lines);
    const listed = (await c.list()).body.data;
    expect(
      listed.map((each: { id: string; relationships?: { delta?: unknown } }) => [
        each.id,
        each.relationships?.delta !== undefined,
      ]),
    ).toEqual([
      [c.releaseId, true],
      [c.first, false],
    ]);

    // The shopper's GET /catalog shows the same release the same way.
    const shopper = await c.shopperRelease();
    expect(shopper.id).toBe(c.releaseId);
    expect(shopper.meta).toMatchObject({ is_full_publish: false, is_full_delta: false });
    expect((await downloadDelta(shopper.relationships.delta.links.related)).lines).toEqual(lines);
    expect(shopper.relationships.products).toEqual({ links: { related: '/catalog/products' } });
  });

  it('refuses an expired or altered link, drops the link after 30 days, and go with their release and their catalog', async () => {
    const c = await publishedCatalog();
    const written = await writeDeltaFile({
      storeId: c.storeId,
      catalogId: c.catalogId,
      releaseId: c.releaseId,
      full: true,
      changes: streamOf(await releaseChanges(c.storeId, c.catalogId, IDS, [GONE])),
    });
    // A full file is the whole catalog: no delete lines.
    await pcmRepository.updateRelease(c.storeId, c.catalogId, c.releaseId, {
      delta: { key: written.key, full: true, lines: written.lines },
    });
    const release = (await c.get(c.releaseId)).body.data;
    expect(release.meta).toMatchObject({ is_full_publish: true, is_full_delta: true });
    const url: string = release.relationships.delta.links.related;
    const { lines } = await downloadDelta(url);
    expect(lines.map((line) => line.delta_type)).not.toContain('delete');
    expect(lines).toHaveLength(written.lines);

    const tampered = await fetch(withAlteredSignature(url));
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    const otherRelease = url.replace(c.releaseId, c.first);
    expect((await fetch(otherRelease)).status).toBe(403);

    const short = await objectStore.presignGet(written.key, { expiresInSeconds: 1 });
    while (Date.now() <= Date.parse(short.expires_at) + 10) await new Promise((r) => setTimeout(r, 50));
    const expired = await fetch(short.url);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('expired');

    // Past the platform's 30 days the release no longer links its file (the bucket expires it a day later).
    const published = Date.now() - DELTA_RETENTION_DAYS * 24 * 3600 * 1000 - 60_000;
    await pcmRepository.updateRelease(c.storeId, c.catalogId, c.releaseId, {
      published_at: new Date(published).toISOString(),
    });
    const old = (await c.get(c.releaseId)).body.data;
    expect(old.relationships).toBeUndefined();
    expect(old.meta.is_full_delta).toBe(true);
    expect((await c.shopperRelease()).relationships.delta).toBeUndefined();

    // Deleting the release's items deletes its file (what the release's deletion calls); twice is fine.
    expect((await c.removeAll()).status).toBe(204);
    await deleteDeltaFile(c.storeId, c.catalogId, c.releaseId);
    expect(await objectStore.head(written.key)).toBeUndefined();
    expect((await fetch(url)).status).toBe(404);
    await expect(deleteDeltaFile(c.storeId, c.catalogId, c.releaseId)).resolves.toBeUndefined();

    // Deleting the catalog deletes any delta file left under it.
    const leftOver = deltaFileKey(c.storeId, c.catalogId, c.first);
    await writeDeltaFile({
      storeId: c.storeId,
      catalogId: c.catalogId,
      releaseId: c.first,
      full: false,
      changes: streamOf([]),
    });
    expect(await objectStore.head(leftOver)).toBeDefined();
    const removed = await invoke(deleteCatalog, {
      method: 'DELETE',
      path: `/pcm/catalogs/${c.catalogId}`,
      pathParameters: { catalog_id: c.catalogId },
      headers: c.headers,
    });
    expect(removed.status).toBe(204);
    expect(await objectStore.head(leftOver)).toBeUndefined();
  });

  it('store nothing when their changes fail midway, and need the store to exist', async () => {
    const c = await publishedCatalog();
    const changes = await releaseChanges(c.storeId, c.catalogId, IDS);
    async function* failing(): AsyncGenerator<DeltaChange> {
      yield* changes;
      throw new Error('the comparison broke');
    }
    const input = { storeId: c.storeId, catalogId: c.catalogId, releaseId: c.releaseId, full: false };
    await expect(writeDeltaFile({ ...input, changes: failing() })).rejects.toThrow('the comparison broke');
    expect(await objectStore.head(deltaFileKey(c.storeId, c.catalogId, c.releaseId))).toBeUndefined();
    const unknownStore = id(888);
    await expect(
      writeDeltaFile({ ...input, storeId: unknownStore, changes: streamOf(changes) }),
    ).rejects.toThrow(`store ${unknownStore} does not exist`);
  });
});
