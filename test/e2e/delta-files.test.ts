import { writeDeltaFile } from '../../lib/catalog/pipeline/delta-file';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { childrenRelease, LIVE_CHILDREN, PARENT } from '../support/catalog-fixtures';
import { downloadDelta, releaseChanges, streamOf } from '../support/delta-fixtures';
import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore, tokenFor } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * A release's delta file through the official SDK, unmodified (docs/catalog-api.md, "Delta files"): a
 * catalog published over the API, its delta file written as the workflow writes it, then
 * `Catalogs.Releases.Get` / `All` and the shopper's `ShopperCatalog.Get` give a link that plain `fetch`
 * downloads.
 */

let api: LocalApi;
let store: TestStore;
let token: string;

beforeAll(async () => {
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
  api = await startLocalApi();
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store);
});
afterAll(async () => {
  await api.close();
  jest.restoreAllMocks();
});

type Release = {
  id: string;
  relationships?: { delta?: { links: { related: string } } };
  meta: { release_status: string; is_full_delta: boolean; is_full_publish: boolean };
};

const admin = () => sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });

async function published(catalogId: string, releaseId: string): Promise<Release> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const { data } = (await admin().Catalogs.Releases.Get({ catalogId, releaseId })) as unknown as {
      data: Release;
    };
    if (data.meta.release_status === 'PUBLISHED') return data;
    if (data.meta.release_status === 'FAILED') throw new Error(`release ${releaseId} failed`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`release ${releaseId} did not finish`);
}

it('links a published release’s delta file on Catalogs.Releases.Get and All and ShopperCatalog.Get', async () => {
  const created = (await admin().Catalogs.Create({ attributes: { name: 'Delta' } } as never)) as unknown as {
    data: { id: string };
  };
  const catalogId = created.data.id;
  const stored = await fetch(`${api.baseUrl}/pcm/catalogs/${catalogId}/document`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(childrenRelease({ namePrefix: 'D ' })),
  });
  expect(stored.status).toBe(200);
  const release = (await admin().Catalogs.Releases.Create({
    catalogId,
    export_full_delta: true,
  } as never)) as unknown as {
    data: Release;
  };
  const before = await published(catalogId, release.data.id);
  expect(before.relationships).toBeUndefined();
  // The SDK's Releases.Create sends no body: no export_full_delta asked for.
  expect(before.meta).toMatchObject({ is_full_publish: true, is_full_delta: false });

  const changes = await releaseChanges(store.store.id, catalogId, [PARENT, ...LIVE_CHILDREN]);
  const written = await writeDeltaFile({
    storeId: store.store.id,
    catalogId,
    releaseId: release.data.id,
    full: true,
    changes: streamOf(changes),
  });
  expect(written.lines).toBe(1 + LIVE_CHILDREN.length);
  await pcmRepository.updateRelease(store.store.id, catalogId, release.data.id, {
    delta: { key: written.key, full: true, lines: written.lines },
  });

  const latest = (await admin().Catalogs.Releases.Get({
    catalogId,
    releaseId: 'latestPublished',
  })) as unknown as {
    data: Release;
  };
  // The first publish's delta file is the whole catalog.
  expect(latest.data.meta).toMatchObject({ is_full_publish: true, is_full_delta: true });
  const { status, lines } = await downloadDelta(latest.data.relationships?.delta?.links.related as string);
  expect(status).toBe(200);
  expect(lines.map((line) => [line.delta_type, line.id])).toEqual(
    [PARENT, ...LIVE_CHILDREN].map((id) => ['createupdate', id]),
  );
  expect(lines[1]?.attributes.name).toBe('D Child 1');

  const all = (await admin().Catalogs.Releases.All({ catalogId })) as unknown as { data: Release[] };
  expect((await downloadDelta(all.data[0]?.relationships?.delta?.links.related as string)).lines).toEqual(
    lines,
  );

  const shopper = sdkClient(api, { clientId: store.clientId });
  const served = (await shopper.ShopperCatalog.Get({
    additionalHeaders: { 'SVC-Channel': 'web' } as Record<string, string>,
  } as never)) as unknown as { data: Release };
  expect(served.data.id).toBe(release.data.id);
  expect((await downloadDelta(served.data.relationships?.delta?.links.related as string)).lines).toEqual(
    lines,
  );
});
