import { handler as getCatalog } from '../../functions/get-catalog/handler';
import { handler as createRelease } from '../../functions/pcm-create-release/handler';
import { handler as deleteRelease } from '../../functions/pcm-delete-release/handler';
import { handler as deleteReleases } from '../../functions/pcm-delete-releases/handler';
import { handler as getPcmCatalog } from '../../functions/pcm-get-catalog/handler';
import { handler as getRelease } from '../../functions/pcm-get-release/handler';
import { handler as listReleases } from '../../functions/pcm-list-releases/handler';
import { clearCatalogCaches } from '../../lib/catalog/cache';
import { registerLocalWorkflow } from '../../lib/catalog/pipeline/start';
import { uuidv7 } from '../../lib/ids';
import { deleteReleases as deleteEveryRelease } from '../../lib/pcm/service';
import { CallerRevokedError, type WriteCaller } from '../../lib/store/caller-check';
import { catalogRepository } from '../../lib/store/catalog-repository';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { adminOfNewStore, childrenRelease, readRegistryEveryRequest } from '../support/catalog-fixtures';
import { expectErrorBody } from '../support/error-body';
import { invoke } from '../support/fixtures';
import { publishRelease } from '../support/one-process-publisher';
import { recordOperationOrder } from '../support/operation-order';
import { newPcmCatalog, releaseRequests } from '../support/pcm-fixtures';

/**
 * Releases as the platform treats them (docs/catalog-api.md): deleting the current release rolls the catalog
 * back to the release before it, deleting the only one or all of them unpublishes it, the list shows the
 * three kept releases, a release reads the same under the catalog API and the shopper's `GET /catalog`,
 * and the create body's `export_full_delta` is recorded.
 */

readRegistryEveryRequest();

const PUBLISH_TIMEOUT_MS = 60_000;

async function newClient() {
  const { storeId, headers } = await adminOfNewStore();
  const catalogId = await newPcmCatalog(storeId, 'Main', childrenRelease({ catalogName: 'Main' }));
  const { all, one: releasePath } = releaseRequests(catalogId, headers);
  return {
    storeId,
    catalogId,
    headers,
    /** Publishes the catalog (the publisher the workflow runs), its products' names marked `mark`. */
    publish: async (mark: string) =>
      (await publishRelease(storeId, childrenRelease({ catalogId, catalogName: 'Main', namePrefix: mark })))
        .release_id,
    list: () => invoke(listReleases, { method: 'GET', ...all }),
    listed: async () =>
      (await invoke(listReleases, { method: 'GET', ...all })).body.data.map(
        (release: { id: string; meta: { current: boolean } }) =>
          `${release.id}${release.meta.current ? '*' : ''}`,
      ),
    get: (id: string) => invoke(getRelease, { method: 'GET', ...releasePath(id) }),
    remove: (id: string) => invoke(deleteRelease, { method: 'DELETE', ...releasePath(id) }),
    removeAll: () => invoke(deleteReleases, { method: 'DELETE', ...all }),
    create: (body: string) => invoke(createRelease, { method: 'POST', ...all, body }),
    catalog: () =>
      invoke(getPcmCatalog, {
        method: 'GET',
        path: `/pcm/catalogs/${catalogId}`,
        pathParameters: { catalog_id: catalogId },
        headers,
      }),
    /** The release `GET /catalog` serves (undefined: 404). */
    shopperRelease: async () => {
      clearCatalogCaches();
      const result = await invoke(getCatalog, {
        method: 'GET',
        path: '/catalog',
        headers: { ...headers, 'ep-channel': 'web' },
      });
      if (result.status === 404) return undefined;
      if (result.status !== 200) throw new Error(result.raw);
      return result.body.data;
    },
  };
}

describe('releases of the catalog API', () => {
  let c: Awaited<ReturnType<typeof newClient>>;
  beforeEach(async () => {
    c = await newClient();
  });

  it(
    'rolls back to the release before the current one when it is deleted, and unpublishes with the last',
    async () => {
      const first = await c.publish('A ');
      const second = await c.publish('B ');
      const third = await c.publish('C ');
      expect(await c.listed()).toEqual([`${third}*`, second, first]);
      expect((await c.shopperRelease()).id).toBe(third);

      expect((await c.remove(third)).status).toBe(204);
      expect(await c.listed()).toEqual([`${second}*`, first]);
      expect((await c.get(third)).status).toBe(404);
      expect((await c.shopperRelease()).id).toBe(second);
      const registry = await catalogRepository.getRegistry(c.storeId);
      expect(registry?.catalogs[c.catalogId]?.release.id).toBe(second);
      // The deleted release is marked replaced now: its items outlive readers that still hold it.
      const marker = await pcmRepository.getRelease(c.storeId, c.catalogId, third);
      expect(marker?.superseded_at).toBe(marker?.deleted_at);

      // Deleting one that is not current changes nothing for shoppers.
      expect((await c.remove(first)).status).toBe(204);
      expect(await c.listed()).toEqual([`${second}*`]);
      expect((await c.shopperRelease()).id).toBe(second);

      // The only release: the catalog is unpublished, shoppers get no catalog.
      expect((await c.remove(second)).status).toBe(204);
      expect(await c.listed()).toEqual([]);
      expect(await c.shopperRelease()).toBeUndefined();
      expect((await catalogRepository.getRegistry(c.storeId))?.catalogs[c.catalogId]).toBeUndefined();
      expectErrorBody(await c.get('latestPublished'), 404, 'the catalog has no published release');

      // Published again, it serves again.
      const fourth = await c.publish('D ');
      expect((await c.shopperRelease()).id).toBe(fourth);
    },
    PUBLISH_TIMEOUT_MS,
  );

  it(
    'deletes every release and unpublishes with DELETE …/releases; shoppers get the next catalog',
    async () => {
      const other = await newPcmCatalog(c.storeId, 'Other');
      const otherRelease = (
        await publishRelease(c.storeId, childrenRelease({ catalogId: other, catalogName: 'Other' }))
      ).release_id;
      await c.publish('A ');
      await c.publish('B ');
      // The oldest published catalog serves shoppers when no rules exist: `Other`, published first.
      expect((await c.shopperRelease()).id).toBe(otherRelease);
      expect((await c.removeAll()).status).toBe(204);
      expect(await c.listed()).toEqual([]);
      expect((await catalogRepository.getRegistry(c.storeId))?.catalogs[c.catalogId]).toBeUndefined();
      expect((await c.shopperRelease()).id).toBe(otherRelease);
      // Nothing left: still 204.
      expect((await c.removeAll()).status).toBe(204);
    },
    PUBLISH_TIMEOUT_MS,
  );

  it(
    'lists at most the three kept releases, the current one always among them',
    async () => {
      const ids = [];
      for (const mark of ['A ', 'B ', 'C ', 'D ']) ids.push(await c.publish(mark));
      const [, second, third, fourth] = ids;
      const list = await c.list();
      expect(list.body.meta.results.total).toBe(3);
      expect(await c.listed()).toEqual([`${fourth}*`, third, second]);
      expect((await c.get(ids[0] as string)).status).toBe(404);
    },
    PUBLISH_TIMEOUT_MS,
  );

  it(
    'shows the same name, description and hierarchies as the shopper catalog, and a working releases link',
    async () => {
      const id = await c.publish('A ');
      const shopper = await c.shopperRelease();
      const release = (await c.get(id)).body.data;
      for (const field of ['name', 'description', 'hierarchies']) {
        expect(release.attributes[field]).toEqual(shopper.attributes[field]);
      }
      expect(shopper.attributes.hierarchies).not.toEqual([]);
      const listed = (await c.list()).body.data[0];
      expect(listed.attributes).toEqual(release.attributes);

      const related = (await c.catalog()).body.data.relationships.releases.links.related;
      expect(related).toBe(`https://api.example.test/pcm/catalogs/${c.catalogId}/releases`);
    },
    PUBLISH_TIMEOUT_MS,
  );

  it(
    'reads the catalog, its releases and the registry in one round trip; deleting them all reads them once',
    async () => {
      await c.publish('A ');
      await c.publish('B ');
      const { order, stop } = recordOperationOrder();
      try {
        expect((await c.list()).status).toBe(200);
        // Sent before any of them answered (the token check's BatchGetItem and the limiter's UpdateItem aside).
        const firstAnswer = order.findIndex(
          (step) => step === 'GetItem answered' || step === 'Query answered',
        );
        const reads = order.slice(0, firstAnswer).filter((step) => /^(GetItem|Query) sent$/.test(step));
        expect(reads.sort()).toEqual(['GetItem sent', 'GetItem sent', 'Query sent']);
        order.length = 0;
        expect((await c.removeAll()).status).toBe(204);
        const beforeWrites = order.slice(0, order.indexOf('TransactWriteItems sent'));
        expect(beforeWrites.filter((step) => step === 'Query sent')).toHaveLength(1);
      } finally {
        stop();
      }
      expect(await c.listed()).toEqual([]);
      expect(await c.shopperRelease()).toBeUndefined();
    },
    PUBLISH_TIMEOUT_MS,
  );

  it("refuses a revoked caller's deletion of every release before a missing catalog's 404", async () => {
    const caller: WriteCaller = { storeId: c.storeId, keyId: uuidv7(), tokenHash: 'no-such-token' };
    await expect(deleteEveryRelease(c.storeId, uuidv7(), caller)).rejects.toBeInstanceOf(CallerRevokedError);
    await expect(deleteEveryRelease(c.storeId, c.catalogId, caller)).rejects.toBeInstanceOf(
      CallerRevokedError,
    );
  });

  it('records export_full_delta, sent in data or bare, as meta.is_full_delta; refuses other members', async () => {
    // No workflow runs here: each release stays PENDING.
    registerLocalWorkflow(async () => undefined);
    const cases: [string, boolean][] = [
      ['{"data":{"export_full_delta":true}}', true],
      ['{"export_full_delta":true}', true],
      ['{"data":{"type":"catalog-release","export_full_delta":false}}', false],
      ['{}', false],
    ];
    for (const [body, expected] of cases) {
      const created = await c.create(body);
      expect(created.status).toBe(201);
      expect(created.body.data.meta.is_full_delta).toBe(expected);
      expect((await c.get(created.body.data.id)).body.data.meta.is_full_delta).toBe(expected);
      // Free the catalog for the next create.
      await pcmRepository.releaseLock(c.storeId, c.catalogId, created.body.data.id);
    }
    expect((await c.create('{"data":{"unknown":1}}')).status).toBe(400);
    expect((await c.create('{"unknown":1}')).status).toBe(400);
    expect((await c.create('{"export_full_delta":"yes"}')).status).toBe(400);
    expect((await c.create('{"export_full_delta":true,"data":{"export_full_delta":false}}')).status).toBe(
      400,
    );
  });
});
