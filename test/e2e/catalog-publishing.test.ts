import { hashSecret } from '../../lib/auth/secrets';
import { generateReleaseText, MAX_PRODUCT_BYTES } from '../../lib/catalog/generator';
import { writeDeltaFile } from '../../lib/catalog/pipeline/delta-file';
import { abandonStep } from '../../lib/catalog/pipeline/steps';
import { cleanupReleases, RELEASE_SHARDS, RETAIN_REPLACED_MS } from '../../lib/catalog/publisher';
import type { ReleaseLayout } from '../../lib/catalog/types';
import { MAX_DOCUMENT_BYTES } from '../../lib/http/middleware';
import { createDocumentUpload, UPLOAD_URL_SECONDS, uploadKey } from '../../lib/pcm/publishing';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { catalogRepository, chunkId } from '../../lib/store/catalog-repository';
import { objectStore } from '../../lib/store/object-store';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { childrenRelease, LIVE_CHILDREN, PARENT } from '../support/catalog-fixtures';
import { downloadDelta, releaseChanges, streamOf } from '../support/delta-fixtures';
import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore, tokenFor } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * Publishing over the API (docs/publishing.md): the platform's own calls, through
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
  relationships?: { delta?: { links: { related: string } } };
  meta: {
    release_status: string;
    is_full_publish: boolean;
    is_full_delta: boolean;
    percent_completed: number;
    total_products: number | null;
    total_nodes: number | null;
    current: boolean;
    errors?: { source: string; rule: string; detail: string }[];
    errors_total?: number;
    warnings?: { code: string; detail: string }[];
  };
};

const admin = () => sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
const storefront = () => sdkClient(api, { clientId: store.clientId });

async function call(
  method: string,
  path: string,
  body?: string,
  contentType = 'application/json',
  as: string = token,
) {
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${as}`,
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

/**
 * The first child's name once the storefront serves `expected`: a container keeps the release it read for
 * up to RELEASE_CACHE_SECONDS (2 s), so a read right after a switch may still get the release before.
 */
async function firstChildOnceServed(expected: string): Promise<string | undefined> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const first = (await childNames())[0];
    if (first === expected || Date.now() > deadline) return first;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
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

/** A release of the test store's catalog as its workflow leaves it while it runs (IN_PROGRESS, heartbeat now). */
function runningRelease(catalogId: string, releaseId: string, documentKey: string | undefined) {
  const now = new Date().toISOString();
  return {
    store_id: store.store.id,
    catalog_id: catalogId,
    release_id: releaseId,
    shards: RELEASE_SHARDS,
    status: 'writing' as const,
    started_at: now,
    heartbeat_at: now,
    state: 'IN_PROGRESS' as const,
    name: 'Running',
    document_key: documentKey as string,
    created_at: now,
    updated_at: now,
  };
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
    // The release's name is its document's (`catalog.name`), as the shopper's `GET /catalog` shows it.
    expect(first.attributes.name).toBe('Children');
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
    expect(await firstChildOnceServed('E Child 1')).toBe('E Child 1');
    const publishedIds = async () => {
      const { body } = await call('GET', `/pcm/catalogs/${catalogId}/releases`);
      return (body.data as Release[]).filter((release) => release.meta.release_status === 'PUBLISHED');
    };
    // The list shows the three kept releases only, though the oldest was replaced a moment ago: a reader
    // may still hold its id (cached up to 10 s), so its items stay a minute.
    expect((await publishedIds()).map((release) => release.id)).toEqual(published.slice(1).reverse());
    // A minute later, the next publish's cleanup (run here with the clock moved) removes it, items and all.
    const later = new Date(Date.now() + RETAIN_REPLACED_MS + 1000);
    expect(await cleanupReleases(store.store.id, { catalogId, now: later })).toMatchObject({
      releases: [first.id],
    });
    const listed = await publishedIds();
    expect(listed.map((release) => release.id)).toEqual(published.slice(1).reverse());
    expect(listed.map((release) => release.meta.current)).toEqual([true, false, false]);
  });

  it('rolls back when the current release is deleted, refuses to delete a catalog with releases', async () => {
    const { body } = await call('GET', `/pcm/catalogs/${catalogId}/releases`);
    const releases = body.data as Release[];
    const [current, previous] = releases as [Release, Release];
    expect(current.meta.current).toBe(true);
    expect((await call('DELETE', `/pcm/catalogs/${catalogId}`)).status).toBe(409);
    // The SDK's delete of the current release: the catalog serves the release before it again.
    await admin().Catalogs.Releases.Delete({ catalogId, releaseId: current.id });
    expect((await call('GET', `/pcm/catalogs/${catalogId}/releases/${current.id}`)).status).toBe(404);
    const rolledBack = await admin().Catalogs.Releases.Get({ catalogId, releaseId: previous.id });
    expect(rolledBack.data.id).toBe(previous.id);
    expect((rolledBack.data.meta as unknown as Release['meta']).current).toBe(true);
    expect(await firstChildOnceServed('D Child 1')).toBe('D Child 1');
    // Republished, the catalog serves the newest again for the tests that follow.
    expect((await putDocument(catalogId, childrenRelease({ namePrefix: 'E ' }))).status).toBe(200);
    expect((await publish(catalogId)).meta.release_status).toBe('PUBLISHED');
    expect(await firstChildOnceServed('E Child 1')).toBe('E Child 1');
  });

  it('publishes a catalog no shopper can reach, and says so in meta.warnings', async () => {
    expect(first.meta.warnings).toEqual([]);
    // The store has no rules, so every shopper gets its oldest catalog: a newer one is never selected.
    const hidden = await createCatalog('Hidden catalog');
    expect((await putDocument(hidden, childrenRelease({ namePrefix: 'H ' }))).status).toBe(200);
    const release = await publish(hidden);
    expect(release.meta.release_status).toBe('PUBLISHED');
    expect(release.meta.warnings).toEqual([
      {
        code: 'not_selectable',
        detail: `catalog ${hidden} can never be selected: no catalog of this store has rules, so every shopper gets the store's oldest catalog (${catalogId}); add rules (rules[]) to choose between catalogs`,
      },
    ]);
    expect(await firstChildOnceServed('E Child 1')).toBe('E Child 1');
  });
});

describe('deleting a replaced release while readers may still hold it', () => {
  /** What a reader holding `layout` (another container's cached registry) reads of the parent's children. */
  async function readAsHolder(layout: ReleaseLayout) {
    const read = await catalogRepository.readRelease(layout, {
      products: [PARENT, ...LIVE_CHILDREN],
      chunks: [{ parentId: PARENT, chunk: 0 }],
    });
    return {
      products: read.products.size,
      index: read.chunks.has(chunkId(PARENT, 0)),
      firstChild: read.products.get(LIVE_CHILDREN[0] as string)?.stored.resource.attributes.name,
    };
  }

  it.each([
    [
      'one release (DELETE …/releases/{id})',
      (catalogId: string, releaseId: string) =>
        call('DELETE', `/pcm/catalogs/${catalogId}/releases/${releaseId}`),
    ],
    [
      'every release (DELETE …/releases)',
      (catalogId: string) => call('DELETE', `/pcm/catalogs/${catalogId}/releases`),
    ],
  ])(
    'deleting %s hides it at once and reclaims its items only after readers let go',
    async (what, remove) => {
      const catalogId = await createCatalog('Held');
      expect((await putDocument(catalogId, childrenRelease({ namePrefix: 'A ' }))).status).toBe(200);
      const first = await publish(catalogId);
      // Another container resolved the catalog's release before the next publish, and keeps it (cached).
      const held = (await catalogRepository.getRegistry(store.store.id))?.catalogs[catalogId]
        ?.release as ReleaseLayout;
      expect(held.id).toBe(first.id);
      expect((await putDocument(catalogId, childrenRelease({ namePrefix: 'B ' }))).status).toBe(200);
      const second = await publish(catalogId);
      expect(second.meta.release_status).toBe('PUBLISHED');

      expect((await remove(catalogId, first.id)).status).toBe(204);
      // Gone from the API at once (with every release, the current one too: the catalog is unpublished)...
      const all = what.startsWith('every');
      expect((await call('GET', `/pcm/catalogs/${catalogId}/releases/${first.id}`)).status).toBe(404);
      const listed = await call('GET', `/pcm/catalogs/${catalogId}/releases`);
      expect((listed.body.data as Release[]).map((release) => release.id)).toEqual(all ? [] : [second.id]);
      expect(listed.body.meta.results.total).toBe(all ? 0 : 1);
      expect((await call('DELETE', `/pcm/catalogs/${catalogId}/releases/${first.id}`)).status).toBe(404);
      // ...but a reader that still holds it reads all of it, consistently.
      expect(await readAsHolder(held)).toEqual({
        products: 1 + LIVE_CHILDREN.length,
        index: true,
        firstChild: 'A Child 1',
      });

      // Once no reader can hold it (a minute after it was replaced), the next cleanup reclaims its items.
      const later = new Date(Date.now() + RETAIN_REPLACED_MS + 1000);
      const cleaned = await cleanupReleases(store.store.id, { catalogId, now: later });
      expect(cleaned.releases).toEqual(all ? [second.id, first.id] : [first.id]);
      expect(cleaned.items).toBeGreaterThan(0);
      expect(await readAsHolder(held)).toEqual({ products: 0, index: false, firstChild: undefined });
      expect(await catalogRepository.listReleases(store.store.id, catalogId)).toEqual(
        all ? [] : [expect.objectContaining({ release_id: second.id })],
      );
    },
  );
});

describe('what the catalog API refuses', () => {
  it('refuses a second publish while one is in progress (409), and takes over a stalled one', async () => {
    const catalogId = await createCatalog('Busy');
    expect((await putDocument(catalogId, childrenRelease())).status).toBe(200);
    const catalog = await pcmRepository.getCatalog(store.store.id, catalogId);
    const running = runningRelease(catalogId, '01900000-0000-7000-8000-000000000001', catalog?.document?.key);
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

describe('publishing a document uploaded to object storage (POST …/document-uploads)', () => {
  type Upload = { upload_url: string; expires_at: string; id: string };

  async function createUpload(catalogId: string): Promise<Upload> {
    const { status, body } = await call('POST', `/pcm/catalogs/${catalogId}/document-uploads`);
    expect(status).toBe(201);
    expect(body.data).toMatchObject({
      type: 'catalog-document-upload',
      id: expect.any(String),
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
    });
    return body.data as Upload;
  }

  /** The upload itself: straight to object storage, no token, the signed Content-Type. */
  function upload(url: string, body: string) {
    return fetch(url, { method: 'PUT', body, headers: { 'Content-Type': 'application/json' } });
  }

  async function documentOf(catalogId: string): Promise<{ bytes: number; updated_at: string } | null> {
    return (await call('GET', `/pcm/catalogs/${catalogId}`)).body.data.meta.document;
  }

  it('publishes a document over 5 MB PUT to the pre-signed URL: PENDING, then PUBLISHED, its document kept', async () => {
    const catalogId = await createCatalog('Large catalog');
    const text = [...generateReleaseText({ children: 400, productBytes: MAX_PRODUCT_BYTES, seed: 20 })].join(
      '',
    );
    const bytes = Buffer.byteLength(text);
    expect(bytes).toBeGreaterThan(MAX_DOCUMENT_BYTES);
    const before = Date.now();
    const granted = await createUpload(catalogId);
    const after = Date.now();
    // Signed while the request ran: UPLOAD_URL_SECONDS from a moment between the two clock reads.
    const expires = Date.parse(granted.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + UPLOAD_URL_SECONDS * 1000 - 1000);
    expect(expires).toBeLessThanOrEqual(after + UPLOAD_URL_SECONDS * 1000);
    expect(new URL(granted.upload_url).searchParams.get('X-Amz-Expires')).toBe(String(UPLOAD_URL_SECONDS));
    // Nothing changes until a release: the catalog has no document yet.
    expect(await documentOf(catalogId)).toBeNull();

    const uploaded = await upload(granted.upload_url, text);
    expect(uploaded.status).toBe(200);
    const release = await publish(catalogId);
    expect(release.meta).toMatchObject({
      release_status: 'PUBLISHED',
      percent_completed: 100,
      total_products: (JSON.parse(text) as { products: unknown[] }).products.length,
      current: true,
    });
    const latest = (await admin().Catalogs.Releases.Get({
      catalogId,
      releaseId: 'latestPublished',
    })) as unknown as { data: Release };
    expect(latest.data.id).toBe(release.id);
    // The upload became the catalog's document (copied out of uploads/, which expire after a day).
    const document = await documentOf(catalogId);
    expect(document?.bytes).toBe(bytes);
    const stored = await pcmRepository.getCatalog(store.store.id, catalogId);
    expect(stored?.document?.key).toMatch(new RegExp(`^documents/${store.store.id}/${catalogId}/`));
    expect(stored?.upload).toBeUndefined();
    // Copied by the release's workflow (not by the request, which a gigabyte's copy would outlast): the
    // document is there, the upload gone, and the catalog copies from nothing any more.
    expect(stored?.document?.copy_from).toBeUndefined();
    expect((await objectStore.head(stored?.document?.key as string))?.bytes).toBe(bytes);
    expect(await objectStore.head(uploadKey(store.store.id, catalogId, granted.id))).toBeUndefined();
    // The next release publishes the same document again.
    expect((await publish(catalogId)).meta.release_status).toBe('PUBLISHED');
    expect(await documentOf(catalogId)).toEqual(document);
  }, 120_000);

  it('fails a release whose upload is gone before any release copied it, and publishes nothing', async () => {
    const catalogId = await createCatalog('Lapsed upload');
    const at = new Date().toISOString();
    // As a first release's workflow would find it a day late: the document names an upload that has lapsed.
    await pcmRepository.setDocument(store.store.id, catalogId, {
      key: `documents/${store.store.id}/${catalogId}/never-copied.json`,
      bytes: 100,
      updated_at: at,
      copy_from: uploadKey(store.store.id, catalogId, 'lapsed'),
    });
    const release = await publish(catalogId);
    expect(release.meta.release_status).toBe('FAILED');
    expect(release.meta.errors).toEqual([
      expect.objectContaining({
        rule: 'document',
        detail: expect.stringContaining('the uploaded document is gone before a release took it in'),
      }),
    ]);
  }, 60_000);

  it('publishes the newer of an upload and an inline document', async () => {
    const catalogId = await createCatalog('Newest wins');
    const granted = await createUpload(catalogId);
    const uploaded = JSON.stringify(childrenRelease({ namePrefix: 'Uploaded ' }));
    expect((await upload(granted.upload_url, uploaded)).status).toBe(200);
    // Stored inline after the upload: the inline one is the document.
    const inline = childrenRelease({ namePrefix: 'I ' });
    expect((await putDocument(catalogId, inline)).status).toBe(200);
    expect((await publish(catalogId)).meta.release_status).toBe('PUBLISHED');
    expect((await documentOf(catalogId))?.bytes).toBe(Buffer.byteLength(JSON.stringify(inline)));

    // Uploaded after the inline document: the upload is.
    const again = await createUpload(catalogId);
    const newer = JSON.stringify(childrenRelease({ namePrefix: 'Newer upload ' }));
    expect((await upload(again.upload_url, newer)).status).toBe(200);
    expect((await publish(catalogId)).meta.release_status).toBe('PUBLISHED');
    expect((await documentOf(catalogId))?.bytes).toBe(Buffer.byteLength(newer));
  });

  it('leaves the current document when an upload URL is never used', async () => {
    const catalogId = await createCatalog('Unused upload');
    expect((await putDocument(catalogId, childrenRelease({ namePrefix: 'U ' }))).status).toBe(200);
    const before = await documentOf(catalogId);
    const granted = await createUpload(catalogId);
    expect((await publish(catalogId)).meta.release_status).toBe('PUBLISHED');
    expect(await documentOf(catalogId)).toEqual(before);
    // Its URL still works: the upload stays pending for the next release.
    expect((await pcmRepository.getCatalog(store.store.id, catalogId))?.upload?.key).toContain(granted.id);
  });

  it('refuses an upload URL used after its expiry; the next release keeps the document and forgets the upload', async () => {
    const catalogId = await createCatalog('Late upload');
    expect((await putDocument(catalogId, childrenRelease({ namePrefix: 'L ' }))).status).toBe(200);
    const before = await documentOf(catalogId);
    // The URL the API handed out 16 minutes ago (it lives 15): the same call with the clock moved back.
    const caller = { storeId: store.store.id, keyId: store.keyId, tokenHash: hashSecret(token) };
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now - (UPLOAD_URL_SECONDS + 60) * 1000);
    const late = await createDocumentUpload(store.store.id, catalogId, caller).finally(() =>
      clock.mockRestore(),
    );
    expect(Date.parse(late.expires_at)).toBeLessThan(now);
    const refused = await upload(late.upload_url, JSON.stringify(childrenRelease({ namePrefix: 'Late ' })));
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Request has expired');

    expect((await publish(catalogId)).meta.release_status).toBe('PUBLISHED');
    expect(await documentOf(catalogId)).toEqual(before);
    expect((await pcmRepository.getCatalog(store.store.id, catalogId))?.upload).toBeUndefined();
  });

  it('takes in an upload that is not JSON, and fails its release with the line and column', async () => {
    const catalogId = await createCatalog('Broken upload');
    const granted = await createUpload(catalogId);
    expect((await upload(granted.upload_url, '{\n  "catalog": {"name": "x"},\n  oops\n}\n')).status).toBe(
      200,
    );
    const failed = await publish(catalogId);
    expect(failed.meta.release_status).toBe('FAILED');
    expect(failed.meta.errors).toEqual([
      {
        status: '422',
        title: 'Unprocessable Entity',
        detail: "line 3, column 3: expected a double-quoted property name, not 'o'",
        source: '',
        rule: 'syntax',
      },
    ]);
    expect(failed.meta.errors_total).toBe(1);
  });

  /** An upload URL asked for by another key of the test store (made for it), and that key's id. */
  async function uploadOfAnotherKey(catalogId: string, name: string) {
    const { key, clientSecret } = await applicationKeyRepository.create(store.store.id, {
      name,
      reserved_rate_limit: 0,
    });
    const keyToken = await tokenFor({ ...store, clientId: key.client_id, clientSecret });
    const path = `/pcm/catalogs/${catalogId}/document-uploads`;
    const asked = await call('POST', path, undefined, undefined, keyToken);
    expect(asked.status).toBe(201);
    return { keyId: key.id, upload: asked.body.data as Upload };
  }

  it('refuses an upload whose URL was issued to a key deleted since: 409, the document kept, the upload gone', async () => {
    const catalogId = await createCatalog('Upload of a deleted key');
    const owners = childrenRelease({ namePrefix: 'Owner ' });
    expect((await putDocument(catalogId, owners)).status).toBe(200);
    const before = await documentOf(catalogId);
    // Another key of the store asks for an upload URL, then is deleted (its token is 401 from then on)...
    const leaked = await uploadOfAnotherKey(catalogId, 'Leaked');
    expect((await call('DELETE', `/v2/application-keys/${leaked.keyId}`)).status).toBe(204);
    // ...but the URL is object storage's, signed by the service: whoever holds it can still PUT a file there.
    const defaced = JSON.stringify(childrenRelease({ namePrefix: 'Defaced ' }));
    expect((await upload(leaked.upload.upload_url, defaced)).status).toBe(200);

    // The owner's next release refuses the upload instead of publishing it, and drops it.
    const refused = await call('POST', `/pcm/catalogs/${catalogId}/releases`);
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toEqual([
      {
        status: '409',
        title: 'Conflict',
        detail: `the pending upload's URL was issued to application key ${leaked.keyId}, which was deleted since: the upload is refused and discarded; upload the document again`,
        request_id: expect.any(String),
      },
    ]);
    expect(await documentOf(catalogId)).toEqual(before);
    const stored = await pcmRepository.getCatalog(store.store.id, catalogId);
    expect(stored?.upload).toBeUndefined();
    expect(stored?.publishing).toBeUndefined();
    expect(await objectStore.head(uploadKey(store.store.id, catalogId, leaked.upload.id))).toBeUndefined();
    // Publishing again releases the owner's document.
    const release = await publish(catalogId);
    expect(release.meta).toMatchObject({ release_status: 'PUBLISHED', current: true });
    expect((await pcmRepository.getRelease(store.store.id, catalogId, release.id))?.document_key).toBe(
      stored?.document?.key,
    );
    expect(await documentOf(catalogId)).toEqual(before);
  });

  it('fails a release whose upload, taken in, was asked for by a key deleted before the workflow copied it', async () => {
    const catalogId = await createCatalog('Key deleted before the copy');
    const leaked = await uploadOfAnotherKey(catalogId, 'Deleted before the copy');
    const uploaded = uploadKey(store.store.id, catalogId, leaked.upload.id);
    const pending = (await pcmRepository.getCatalog(store.store.id, catalogId))?.upload;
    expect(pending?.requested_by).toBe(leaked.keyId);
    // The owner's release takes the upload in while the key is there (what createRelease does): the
    // catalog's document is to be copied from the upload by the workflow.
    const documentKey = `documents/${store.store.id}/${catalogId}/taken-in.json`;
    const document = {
      key: documentKey,
      bytes: 10,
      updated_at: new Date().toISOString(),
      copy_from: uploaded,
      upload_requested_by: leaked.keyId,
    };
    expect(await pcmRepository.takeUpload(store.store.id, catalogId, uploaded, document)).toBe(true);
    // The key is deleted before the workflow copies the upload, and the file changed meanwhile.
    expect((await call('DELETE', `/v2/application-keys/${leaked.keyId}`)).status).toBe(204);
    await objectStore.put(uploaded, JSON.stringify(childrenRelease({ namePrefix: 'Defaced ' })));

    const failed = await publish(catalogId);
    expect(failed.meta.release_status).toBe('FAILED');
    expect(failed.meta.errors).toEqual([
      {
        status: '422',
        title: 'Unprocessable Entity',
        detail: `the upload's URL was issued to application key ${leaked.keyId}, which was deleted since: the upload is refused and discarded; upload the document again`,
        source: '',
        rule: 'upload',
      },
    ]);
    // Nothing was copied or published, and the upload is gone.
    expect(await objectStore.head(documentKey)).toBeUndefined();
    expect(await objectStore.head(uploaded)).toBeUndefined();
    expect(failed.meta.current).toBe(false);
  });

  it('answers 404 for another store’s catalog and an unknown one, 403 for a storefront token', async () => {
    const catalogId = await createCatalog('Not yours');
    const other = await createTestStore();
    const otherToken = await tokenFor(other);
    const path = `/pcm/catalogs/${catalogId}/document-uploads`;
    const foreign = await fetch(`${api.baseUrl}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${otherToken}` },
    });
    expect(foreign.status).toBe(404);
    expect((await pcmRepository.getCatalog(store.store.id, catalogId))?.upload).toBeUndefined();
    const unknown = await call('POST', '/pcm/catalogs/0190f2a0-0000-7000-8000-000000000000/document-uploads');
    expect(unknown.status).toBe(404);
    const implicit = await tokenFor(store, 'implicit');
    const storefront = await fetch(`${api.baseUrl}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${implicit}` },
    });
    expect(storefront.status).toBe(403);
  });
});

describe('the objects a catalog no longer uses', () => {
  /** The keys under a prefix of the documents bucket. */
  async function keysUnder(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const object of objectStore.list(prefix)) keys.push(object.key);
    return keys;
  }
  const documents = (catalogId: string) => keysUnder(`documents/${store.store.id}/${catalogId}/`);
  const documentKeyOf = async (catalogId: string) =>
    (await pcmRepository.getCatalog(store.store.id, catalogId))?.document?.key as string;

  it('deletes the document a PUT replaces, and every object of a deleted catalog', async () => {
    const catalogId = await createCatalog('Leaves nothing behind');
    for (const prefix of ['A ', 'B ', 'C ']) {
      expect((await putDocument(catalogId, childrenRelease({ namePrefix: prefix }))).status).toBe(200);
      // Only the current document is kept.
      expect(await documents(catalogId)).toEqual([await documentKeyOf(catalogId)]);
    }
    const granted = (await call('POST', `/pcm/catalogs/${catalogId}/document-uploads`)).body.data as {
      id: string;
      upload_url: string;
    };
    const uploaded = await fetch(granted.upload_url, {
      method: 'PUT',
      body: JSON.stringify(childrenRelease({ namePrefix: 'Uploaded ' })),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(uploaded.status).toBe(200);
    const uploads = `uploads/${store.store.id}/${catalogId}/`;
    expect(await keysUnder(uploads)).toEqual([uploadKey(store.store.id, catalogId, granted.id)]);

    expect((await call('DELETE', `/pcm/catalogs/${catalogId}`)).status).toBe(204);
    expect({ documents: await documents(catalogId), uploads: await keysUnder(uploads) }).toEqual({
      documents: [],
      uploads: [],
    });
  });

  it('keeps a replaced document while a release being published uses it, and deletes it when that release ends', async () => {
    const catalogId = await createCatalog('Document in use');
    expect((await putDocument(catalogId, childrenRelease({ namePrefix: 'In use ' }))).status).toBe(200);
    const inUse = await documentKeyOf(catalogId);
    const running = runningRelease(catalogId, '01900000-0000-7000-8000-0000000000c1', inUse);
    await pcmRepository.createRelease(running);
    // A new document while the release runs: the release still reads the one it was created with.
    expect((await putDocument(catalogId, childrenRelease({ namePrefix: 'Next ' }))).status).toBe(200);
    const next = await documentKeyOf(catalogId);
    expect(await documents(catalogId)).toEqual([inUse, next].sort());
    // The release ends (here through the workflow's failure branch): its document goes, the current stays.
    expect(await abandonStep({ ...running, export: false })).toEqual({ state: 'FAILED' });
    expect(await documents(catalogId)).toEqual([next]);
    // A release of the current document ends: the document is still the catalog's, and is kept.
    expect((await publish(catalogId)).meta.release_status).toBe('PUBLISHED');
    expect(await documents(catalogId)).toEqual([next]);
  });
});

describe('the workflow’s failure branch', () => {
  it('fails a document naming another catalog at Derive, through Abandon, with source catalog.id', async () => {
    const catalogId = await createCatalog('Named elsewhere');
    const other = '0190f2a0-0000-7000-8000-0000000000aa';
    expect((await putDocument(catalogId, childrenRelease({ catalogId: other }))).status).toBe(200);
    const failed = await publish(catalogId);
    expect(failed.meta.release_status).toBe('FAILED');
    expect(failed.meta.errors).toEqual([
      expect.objectContaining({ source: 'catalog.id', rule: 'catalog_id' }),
    ]);
    expect(failed.meta.errors?.[0]?.detail).toContain(other);
    // Abandon freed the catalog: the next publish is not refused as busy.
    expect((await putDocument(catalogId, childrenRelease())).status).toBe(200);
    expect((await publish(catalogId)).meta.release_status).toBe('PUBLISHED');
  });
});

describe('delta files', () => {
  it('are linked by ShopperCatalog.Get and by Catalogs.Releases.Get and All, and download with plain fetch', async () => {
    const shopperRelease = async () =>
      (
        (await storefront().ShopperCatalog.Get({
          additionalHeaders: { 'SVC-Channel': 'web' } as Record<string, string>,
        } as never)) as unknown as { data: Release & { attributes: { catalog_id: string } } }
      ).data;
    // The release shoppers are served (the store's oldest catalog's: it has no rules).
    const served = await shopperRelease();
    const catalogId = served.attributes.catalog_id;
    // The workflow wrote one when it published: every line a product created or updated.
    const own = await downloadDelta(served.relationships?.delta?.links.related as string);
    expect(own.status).toBe(200);
    expect(own.lines.length).toBeGreaterThan(0);
    expect(new Set(own.lines.map((line) => line.delta_type))).toEqual(new Set(['createupdate']));

    // Written again from changes of our own, the release links the new one.
    const ids = [PARENT, ...LIVE_CHILDREN];
    const gone = '0190f2a0-0000-7000-8000-0000000000dd';
    const written = await writeDeltaFile({
      storeId: store.store.id,
      catalogId,
      releaseId: served.id,
      full: false,
      changes: streamOf(await releaseChanges(store.store.id, catalogId, ids, [gone])),
    });
    await pcmRepository.updateRelease(store.store.id, catalogId, served.id, {
      delta: { key: written.key, full: false, lines: written.lines },
      is_full_publish: false,
    });

    const got = (await admin().Catalogs.Releases.Get({ catalogId, releaseId: served.id })) as unknown as {
      data: Release;
    };
    expect(got.data.meta).toMatchObject({ is_full_publish: false, is_full_delta: false });
    const { status, lines } = await downloadDelta(got.data.relationships?.delta?.links.related as string);
    expect(status).toBe(200);
    expect(lines).toHaveLength(written.lines);
    expect(lines.map((line) => [line.delta_type, line.id])).toEqual([
      ...ids.map((id) => ['createupdate', id]),
      ['delete', gone],
    ]);

    const all = (await admin().Catalogs.Releases.All({ catalogId })) as unknown as { data: Release[] };
    const listed = all.data.find((each) => each.id === served.id);
    expect((await downloadDelta(listed?.relationships?.delta?.links.related as string)).lines).toEqual(lines);

    // The shopper's GET /catalog keeps a published release's record (fixed once published) with its link
    // for minutes: the meta it read first, and the link to the release's one key, the file now rewritten.
    const again = await shopperRelease();
    expect(again.meta).toMatchObject({ is_full_publish: served.meta.is_full_publish });
    expect((await downloadDelta(again.relationships?.delta?.links.related as string)).lines).toEqual(lines);
  });
});
