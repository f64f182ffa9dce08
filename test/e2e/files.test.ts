import FormData from 'form-data';
import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { crossFetch, type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * The files API (docs/files.md) through the official SDK, unmodified: `Files.Link`, `Files.Create`,
 * `Files.Get`, `Files.All` (with `Limit`, `Offset`, `Filter`) and `Files.Delete` against the local API.
 *
 * `Files.Link` builds its form with the `form-data` package, a Node stream: Node's own `fetch` (which the
 * SDK uses when the runtime has one) sends its name, `[object FormData]`, instead of its bytes, and the
 * API answers 400. The SDK's `custom_fetch` option with `cross-fetch` (the SDK's own dependency, which
 * streams it) sends the form; browsers send their native FormData either way.
 */

let api: LocalApi;
let store: TestStore;

beforeAll(async () => {
  api = await startLocalApi();
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
});
afterAll(() => api.close());

type FileResource = {
  type: string;
  id: string;
  link: { href: string };
  file_name: string;
  mime_type: string;
  file_size: number;
  public: boolean;
  meta: { timestamps: { created_at: string }; dimensions?: unknown };
  links: { self: string };
};

/** The SDK as a Node application uses it for files: with `custom_fetch` set to cross-fetch. */
const admin = () =>
  sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret }, crossFetch);

function expectFile(file: FileResource, location: string, fileName: string, mimeType: string) {
  expect(file).toEqual({
    type: 'file',
    id: file.id,
    link: { href: location },
    file_name: fileName,
    mime_type: mimeType,
    file_size: 0,
    public: true,
    meta: { timestamps: { created_at: file.meta.timestamps.created_at } },
    links: { self: `${api.baseUrl}/v2/files/${file.id}` },
  });
  expect(file.id).toMatch(/^[0-9a-f-]{36}$/);
  expect(Date.now() - Date.parse(file.meta.timestamps.created_at)).toBeLessThan(60_000);
}

describe('files through the official SDK', () => {
  const ids: string[] = [];

  it('links a hosted file with Files.Link and reads it back with Files.Get', async () => {
    const location = 'https://cdn.example.com/images/red-shirt.png';
    const created = (await admin().Files.Link(location)) as unknown as { data: FileResource };
    expectFile(created.data, location, 'red-shirt.png', 'image/png');
    ids.push(created.data.id);
    const read = (await admin().Files.Get(created.data.id)) as unknown as { data: FileResource };
    expect(read).toEqual(created);
  });

  it('creates with Files.Create from a form holding file_location, or from JSON', async () => {
    const form = new FormData();
    form.append('file_location', 'https://cdn.example.com/images/blue-shirt.jpg');
    const fromForm = (await admin().Files.Create(
      form as never,
      form.getHeaders()['content-type'],
    )) as unknown as {
      data: FileResource;
    };
    expectFile(
      fromForm.data,
      'https://cdn.example.com/images/blue-shirt.jpg',
      'blue-shirt.jpg',
      'image/jpeg',
    );
    ids.push(fromForm.data.id);
    const location = 'https://cdn.example.com/images/green-shirt.webp';
    const fromJson = (await admin().Files.Create(
      { file_location: location } as never,
      'application/json',
    )) as unknown as { data: FileResource };
    expectFile(fromJson.data, location, 'green-shirt.webp', 'image/webp');
    ids.push(fromJson.data.id);
  });

  it('lists with Files.All, Limit, Offset and Filter', async () => {
    const page = (await admin().Files.Limit(2).Offset(1).All()) as unknown as {
      data: FileResource[];
      meta: unknown;
      links: unknown;
    };
    expect(page.data.map((file) => file.id)).toEqual(ids.slice(1, 3));
    expect(page.meta).toEqual({
      page: { limit: 2, offset: 1, current: 1, total: 2 },
      results: { total: 3 },
    });
    const url = (offset: number) => `${api.baseUrl}/v2/files?page[offset]=${offset}&page[limit]=2`;
    expect(page.links).toEqual({ self: url(1), first: url(0), last: url(2), prev: url(0), next: null });
    const filtered = (await admin()
      .Files.Filter({ eq: { file_name: 'blue-shirt.jpg' } })
      .All()) as unknown as { data: FileResource[]; meta: { results: { total: number } } };
    expect(filtered.data.map((file) => file.id)).toEqual([ids[1]]);
    expect(filtered.meta.results.total).toBe(1);
    const liked = (await admin()
      .Files.Filter({ like: { file_name: '*-shirt.*' } })
      .All()) as unknown as { data: FileResource[] };
    expect(liked.data.map((file) => file.id)).toEqual(ids);
  });

  it('deletes with Files.Delete: the file is then 404 to Files.Get', async () => {
    const [id] = ids.splice(0, 1) as [string];
    await admin().Files.Delete(id);
    await expect(admin().Files.Get(id)).rejects.toEqual({
      errors: [
        { status: '404', title: 'Not Found', detail: 'file not found', request_id: expect.any(String) },
      ],
    });
    const all = (await admin().Files.All()) as unknown as { data: FileResource[] };
    expect(all.data.map((file) => file.id)).toEqual(ids);
  });

  it("refuses bad URLs with the API's 400, and a storefront token with 403", async () => {
    await expect(admin().Files.Link('http://cdn.example.com/a.png')).rejects.toEqual({
      errors: [
        {
          status: '400',
          title: 'Bad Request',
          detail: 'file_location must be an https URL; http URLs are not accepted',
          source: 'file_location',
          request_id: expect.any(String),
        },
      ],
    });
    const storefront = sdkClient(api, { clientId: store.clientId });
    await expect(storefront.Files.All()).rejects.toMatchObject({ errors: [{ status: '403' }] });
  });

  it("answers Files.Link over Node's own fetch (which sends no form) with a 400 that says so", async () => {
    const plain = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
    await expect(plain.Files.Link('https://cdn.example.com/a.png')).rejects.toEqual({
      errors: [
        {
          status: '400',
          title: 'Bad Request',
          detail: expect.stringMatching(
            /^request body is not a valid multipart form: no part starts with the boundary "--/,
          ),
          source: 'body',
          request_id: expect.any(String),
        },
      ],
    });
  });
});
