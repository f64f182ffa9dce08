import { cleanupReleases, RETAIN_REPLACED_MS } from '../../lib/catalog/publisher';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { childrenRelease, LIVE_CHILDREN, PARENT } from '../support/catalog-fixtures';
import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore, tokenFor } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * Publishing over the API (DESIGN.md section 17, docs/publishing.md): the platform's own calls, through
 * the official SDK where it has them: create a catalog, store its document, `Catalogs.Releases.Create`,
 * then poll `Catalogs.Releases.Get` until PUBLISHED, and read the catalog as a storefront does.
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
  type: string;
  attributes: { catalog_id: string; published_at: string | null; name: string };
  meta: {
    release_status: string;
    percent_completed: number;
    total_products: number | null;
    total_nodes: number | null;
    current: boolean;
    errors?: { source: string; rule: string; detail: string }[];
    errors_total?: number;
  };
};

const admin = () => sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
const storefront = () => sdkClient(api, { clientId: store.clientId });

async function call(method: string, path: string, body?: string, contentType = 'application/json') {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'Content-Type': contentType }),
    },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function createCatalog(name: string): Promise<string> {
  const created = (await admin().Catalogs.Create({ attributes: { name } } as never)) as unknown as {
    data: { id: string; type: string; attributes: { name: string } };
  };
  expect(created.data.type).toBe('catalog');
  expect(created.data.attributes.name).toBe(name);
  return created.data.id;
}

async function putDocument(catalogId: string, document: unknown) {
  return call('PUT', `/pcm/catalogs/${catalogId}/document`, JSON.stringify(document));
}

/** Polls the release as the platform's tools do (they poll every 3 s; the local workflow takes less). */
async function waitForRelease(catalogId: string, releaseId: string): Promise<Release> {
  const seen: string[] = [];
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const { data } = (await admin().Catalogs.Releases.Get({ catalogId, releaseId })) as unknown as {
      data: Release;
    };
    if (seen.at(-1) !== data.meta.release_status) seen.push(data.meta.release_status);
    if (data.meta.release_status === 'PUBLISHED' || data.meta.release_status === 'FAILED') return data;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`release ${releaseId} did not finish; states seen: ${seen.join(' -> ')}`);
}

async function publish(catalogId: string): Promise<Release> {
  const created = (await admin().Catalogs.Releases.Create({ catalogId })) as unknown as { data: Release };
  expect(created.data.type).toBe('catalog-release');
  expect(created.data.meta.release_status).toBe('PENDING');
  expect(created.data.attributes.catalog_id).toBe(catalogId);
  return waitForRelease(catalogId, created.data.id);
}

async function childNames(): Promise<string[]> {
  const page = (await storefront()
    .ShopperCatalog.Products.Limit(100)
    .GetProductChildren({
      productId: PARENT,
      additionalHeaders: { 'SVC-Channel': 'web' } as Record<string, string>,
    })) as unknown as { data: { attributes: { name: string } }[] };
  return page.data.map((product) => product.attributes.name);
}

describe('publishing a catalog over the API, as the platform tools do', () => {
  let catalogId: string;
  let first: Release;

  it('creates a catalog, stores its document and publishes it: PENDING, then PUBLISHED, and shoppers read it', async () => {
    catalogId = await createCatalog('Main catalog');
    const stored = await putDocument(catalogId, childrenRelease({ namePrefix: 'A ' }));
    expect(stored.status).toBe(200);
    expect(stored.body.data.meta.document.bytes).toBeGreaterThan(0);
    first = await publish(catalogId);
    expect(first.meta).toMatchObject({
      release_status: 'PUBLISHED',
      percent_completed: 100,
      total_products: expect.any(Number),
      current: true,
    });
    expect(first.attributes.published_at).toEqual(expect.any(String));
    expect(first.attributes.name).toBe('Main catalog');
    const names = await childNames();
    expect(names).toHaveLength(LIVE_CHILDREN.length);
    expect(names[0]).toBe('A Child 1');
  });

  it('answers latestPublished and lists the releases newest first (SDK Releases.All)', async () => {
    const latest = (await admin().Catalogs.Releases.Get({
      catalogId,
      releaseId: 'latestPublished',
    })) as unknown as {
      data: Release;
    };
    expect(latest.data.id).toBe(first.id);
    const all = (await admin().Catalogs.Releases.All({ catalogId })) as unknown as {
      data: Release[];
      meta: { results: { total: number } };
    };
    expect(all.data.map((release) => release.id)).toEqual([first.id]);
    expect(all.meta.results.total).toBe(1);
  });

  it('fails a broken document with its JSON paths, and the previous release keeps serving', async () => {
    const broken = childrenRelease({ namePrefix: 'B ' }) as unknown as {
      products: { attributes: { sku?: string } }[];
    };
    const sku = broken.products[1]?.attributes.sku;
    (broken.products[2] as { attributes: { sku?: string } }).attributes.sku = sku;
    expect((await putDocument(catalogId, broken)).status).toBe(200);
    const failed = await publish(catalogId);
    expect(failed.meta.release_status).toBe('FAILED');
    expect(failed.meta.current).toBe(false);
    expect(failed.meta.errors?.[0]).toMatchObject({ source: 'products[2].attributes.sku', rule: 'unique' });
    expect(failed.meta.errors_total).toBe(1);
    expect((await childNames())[0]).toBe('A Child 1');
  });

  it('keeps the current release and the two published before it', async () => {
    const published: string[] = [first.id];
    for (const prefix of ['C ', 'D ', 'E ']) {
      expect((await putDocument(catalogId, childrenRelease({ namePrefix: prefix }))).status).toBe(200);
      const release = await publish(catalogId);
      expect(release.meta.release_status).toBe('PUBLISHED');
      published.push(release.id);
    }
    expect((await childNames())[0]).toBe('E Child 1');
    const publishedIds = async () => {
      const { body } = await call('GET', `/pcm/catalogs/${catalogId}/releases`);
      return (body.data as Release[]).filter((release) => release.meta.release_status === 'PUBLISHED');
    };
    // Replaced a moment ago: a reader may still hold its id (cached up to 10 s), so it stays a minute.
    expect((await publishedIds()).map((release) => release.id)).toEqual(published.slice().reverse());
    // A minute later, the next publish's cleanup (run here with the clock moved) removes it, items and all.
    const later = new Date(Date.now() + RETAIN_REPLACED_MS + 1000);
    expect(await cleanupReleases(store.store.id, { catalogId, now: later })).toMatchObject({
      releases: [first.id],
    });
    const listed = await publishedIds();
    expect(listed.map((release) => release.id)).toEqual(published.slice(1).reverse());
    expect(listed.map((release) => release.meta.current)).toEqual([true, false, false]);
  });

  it('refuses to delete the current release or a catalog with releases; deletes the others', async () => {
    const { body } = await call('GET', `/pcm/catalogs/${catalogId}/releases`);
    const releases = body.data as Release[];
    const current = releases.find((release) => release.meta.current) as Release;
    const old = releases.find((release) => !release.meta.current) as Release;
    expect((await call('DELETE', `/pcm/catalogs/${catalogId}/releases/${current.id}`)).status).toBe(409);
    expect((await call('DELETE', `/pcm/catalogs/${catalogId}`)).status).toBe(409);
    await admin().Catalogs.Releases.Delete({ catalogId, releaseId: old.id });
    expect((await call('GET', `/pcm/catalogs/${catalogId}/releases/${old.id}`)).status).toBe(404);
    await admin().Catalogs.Releases.DeleteAll({ catalogId });
    const after = await call('GET', `/pcm/catalogs/${catalogId}/releases`);
    expect((after.body.data as Release[]).map((release) => release.id)).toEqual([current.id]);
    expect((await childNames())[0]).toBe('E Child 1');
  });
});

describe('what the catalog API refuses', () => {
  it('refuses a second publish while one is in progress (409), and takes over a stalled one', async () => {
    const catalogId = await createCatalog('Busy');
    expect((await putDocument(catalogId, childrenRelease())).status).toBe(200);
    const catalog = await pcmRepository.getCatalog(store.store.id, catalogId);
    const now = new Date().toISOString();
    const running = {
      store_id: store.store.id,
      catalog_id: catalogId,
      release_id: '01900000-0000-7000-8000-000000000001',
      shards: 16,
      status: 'writing' as const,
      started_at: now,
      heartbeat_at: now,
      state: 'IN_PROGRESS' as const,
      name: 'Busy',
      document_key: catalog?.document?.key as string,
      created_at: now,
      updated_at: now,
    };
    await pcmRepository.createRelease(running);
    const refused = await call('POST', `/pcm/catalogs/${catalogId}/releases`);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].detail).toContain(running.release_id);
    // No heartbeat for over five minutes: the next publish fails it and goes ahead.
    await pcmRepository.updateRelease(store.store.id, catalogId, running.release_id, {
      heartbeat_at: new Date(Date.now() - 6 * 60 * 1000).toISOString(),
    });
    const created = await call(
      'POST',
      `/pcm/catalogs/${catalogId}/releases`,
      '{"data":{"type":"catalog-release"}}',
    );
    expect(created.status).toBe(201);
    const stalled = await call('GET', `/pcm/catalogs/${catalogId}/releases/${running.release_id}`);
    expect(stalled.body.data.meta).toMatchObject({ release_status: 'FAILED' });
    expect((await waitForRelease(catalogId, created.body.data.id)).meta.release_status).toBe('PUBLISHED');
  });

  it.each([
    ['not JSON', '{"catalog": ', 400, 'application/json'],
    ['not a JSON media type', '{}', 415, 'text/plain'],
  ])('refuses a document that is %s', async (_what, body, status, type) => {
    const catalogId = await createCatalog('Refusals');
    const response = await call('PUT', `/pcm/catalogs/${catalogId}/document`, body, type);
    expect(response.status).toBe(status);
    const catalog = await call('GET', `/pcm/catalogs/${catalogId}`);
    expect(catalog.body.data.meta.document).toBeNull();
  });

  it('refuses a document over 5 MB (413) and a release of a catalog without a document (409)', async () => {
    const catalogId = await createCatalog('Too big');
    const big = JSON.stringify({ catalog: { name: 'x' }, padding: 'x'.repeat(5 * 1024 * 1024) });
    expect((await call('PUT', `/pcm/catalogs/${catalogId}/document`, big)).status).toBe(413);
    const refused = await call('POST', `/pcm/catalogs/${catalogId}/releases`);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].detail).toContain('no document');
  });

  it('answers 404 for an unknown catalog and for another store’s', async () => {
    const other = await createTestStore();
    const otherToken = await tokenFor(other);
    const catalogId = await createCatalog('Mine');
    const response = await fetch(`${api.baseUrl}/pcm/catalogs/${catalogId}`, {
      headers: { Authorization: `Bearer ${otherToken}` },
    });
    expect(response.status).toBe(404);
    expect((await call('GET', '/pcm/catalogs/not-a-uuid')).status).toBe(404);
    expect((await call('GET', `/pcm/catalogs/${catalogId}/releases/latestPublished`)).status).toBe(404);
  });

  it('refuses a storefront (implicit) token', async () => {
    const implicit = await tokenFor(store, 'implicit');
    const response = await fetch(`${api.baseUrl}/pcm/catalogs`, {
      headers: { Authorization: `Bearer ${implicit}` },
    });
    expect(response.status).toBe(403);
  });
});
