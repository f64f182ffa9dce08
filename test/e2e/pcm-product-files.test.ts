import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { crossFetch, type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * A product's file relationships (docs/products.md#files-and-the-main-image) through the official SDK,
 * unmodified, over HTTP: `PCM.MainImageRelationships` (`Create`, `Update`, `Get`, `Delete`) and
 * `PCM.FileRelationships` (`Create`, `Update`, `All`, `Delete`), with `PCM.With('main_image,files').Get`.
 * The files are made with `Files.Link`, which on Node needs `custom_fetch: cross-fetch` (test/e2e/files.test.ts
 * says why); the relationship calls send JSON and work with Node's own fetch.
 */

let api: LocalApi;
let store: TestStore;

beforeAll(async () => {
  api = await startLocalApi();
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
});
afterAll(() => api.close());

type Identifier = { type: string; id: string; meta?: { created_at: string; tags?: string[] } };
type Product = {
  id: string;
  relationships: { main_image: { data: Identifier | null }; files: { data: Identifier[] } };
};
type One = { data: Product; included?: { main_images?: { id: string }[]; files?: { id: string }[] } };
type SdkError = { errors: { status: string; detail: string; source?: string }[] };

const admin = () => sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
const filesClient = () =>
  sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret }, crossFetch);

async function setUp() {
  const files = filesClient();
  const link = async (name: string) =>
    (
      (await files.Files.Link(`https://cdn.example.com/sdk/${name}.png`)) as unknown as {
        data: { id: string };
      }
    ).data.id;
  const [front, back, side] = [await link('front'), await link('back'), await link('side')];
  const sdk = admin();
  const created = (await sdk.PCM.Create({
    attributes: { name: 'SDK gallery shirt', commodity_type: 'physical' },
  } as never)) as unknown as One;
  return { sdk, files, productId: created.data.id, front, back, side };
}

describe('PCM.MainImageRelationships', () => {
  it('Create, Update, Get and Delete the main image; the product and include show it', async () => {
    const { sdk, productId, front, back } = await setUp();
    const none = (await sdk.PCM.MainImageRelationships.Get(productId)) as unknown as { data: unknown[] };
    expect(none.data).toEqual([]);
    await sdk.PCM.MainImageRelationships.Create(productId, front);
    expect(await sdk.PCM.MainImageRelationships.Get(productId)).toEqual({
      data: [{ type: 'file', id: front }],
    });
    await sdk.PCM.MainImageRelationships.Update(productId, back);
    const read = (await sdk.PCM.With('main_image').Get(productId)) as unknown as One;
    expect(read.data.relationships.main_image.data).toEqual({ type: 'file', id: back });
    expect(read.included?.main_images?.map((file) => file.id)).toEqual([back]);
    // Delete(productId, fileId) names the file: another one than the main image is refused.
    const refused = (await sdk.PCM.MainImageRelationships.Delete(productId, front).catch(
      (error: unknown) => error,
    )) as SdkError;
    expect(refused.errors[0]?.status).toBe('409');
    await sdk.PCM.MainImageRelationships.Delete(productId, back);
    expect(await sdk.PCM.MainImageRelationships.Get(productId)).toEqual({ data: [] });
  });

  it('answers 422 naming a file the store does not have', async () => {
    const { sdk, productId } = await setUp();
    const missing = '0193a0c0-0000-7000-8000-0000000000ff';
    const error = (await sdk.PCM.MainImageRelationships.Create(productId, missing).catch(
      (caught: unknown) => caught,
    )) as SdkError;
    expect(error.errors[0]).toMatchObject({ status: '422', source: 'data.id' });
    expect(error.errors[0]?.detail).toContain(missing);
  });
});

describe('PCM.FileRelationships', () => {
  it('Create adds, Update replaces, Delete removes, All lists with tags; a linked file cannot be deleted', async () => {
    const { sdk, files, productId, front, back, side } = await setUp();
    await sdk.PCM.FileRelationships.Create(productId, [{ id: front, meta: { tags: ['hero'] } }, back]);
    const listed = (await sdk.PCM.FileRelationships.All(productId)) as unknown as { data: Identifier[] };
    expect(listed.data).toEqual([
      { type: 'file', id: front, meta: { created_at: expect.any(String), tags: ['hero'] } },
      { type: 'file', id: back, meta: { created_at: expect.any(String) } },
    ]);
    const refused = (await files.Files.Delete(front).catch((error: unknown) => error)) as SdkError;
    expect(refused.errors[0]?.status).toBe('409');
    await sdk.PCM.FileRelationships.Update(productId, [side, front]);
    const read = (await sdk.PCM.With('files').Get(productId)) as unknown as One;
    expect(read.data.relationships.files.data.map((entry) => entry.id)).toEqual([side, front]);
    expect(read.included?.files?.map((file) => file.id)).toEqual([side, front]);
    await sdk.PCM.FileRelationships.Delete(productId, [front]);
    const left = (await sdk.PCM.FileRelationships.All(productId)) as unknown as { data: Identifier[] };
    expect(left.data.map((entry) => entry.id)).toEqual([side]);
    await files.Files.Delete(front);
    // Update with no ids sends `{data: []}`: every file leaves the product.
    await sdk.PCM.FileRelationships.Update(productId, []);
    expect(await sdk.PCM.FileRelationships.All(productId)).toEqual({ data: [] });
  });
});
