import FormData from 'form-data';
import { handler as createFile } from '../../functions/create-file/handler';
import { handler as deleteFile } from '../../functions/delete-file/handler';
import { handler as getFile } from '../../functions/get-file/handler';
import { handler as listFiles } from '../../functions/list-files/handler';
import { getDocumentClient } from '../../lib/store/client';
import { PutCommand } from '../../lib/store/dynamodb';
import { fileKeys, fileRepository, MAX_FILES_PER_STORE } from '../../lib/store/file-repository';
import { tableName } from '../../lib/store/schema';
import {
  bearer,
  createTestStore,
  type InvokeResult,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';

/**
 * The files API (docs/files.md) on DynamoDB Local: a file is recorded from its `file_location` (JSON or the
 * multipart form the SDK's `Files.Link` sends), read, listed with the platform's paging and filters, and
 * deleted; bad input is a 400 that records nothing.
 */

const ORIGIN = 'https://api.example.test';
const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let store: TestStore;
let token: string;

beforeAll(async () => {
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store);
});

const postJson = (body: unknown, as = token) =>
  invoke(createFile, {
    method: 'POST',
    path: '/v2/files',
    headers: bearer(as, { ...HEADERS, 'content-type': 'application/json' }),
    body: JSON.stringify(body),
  });

/** A multipart body as API Gateway passes it: base64-encoded bytes. */
const postMultipart = (body: Buffer, contentType: string) =>
  invoke(createFile, {
    method: 'POST',
    path: '/v2/files',
    headers: bearer(token, { ...HEADERS, 'content-type': contentType }),
    body: body.toString('base64'),
    isBase64Encoded: true,
  });

/** The form the SDK's `Files.Link(url)` builds (the `form-data` package), as its bytes. */
function linkForm(fields: [string, string][]): { body: Buffer; contentType: string } {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  return { body: form.getBuffer(), contentType: form.getHeaders()['content-type'] as string };
}

const get = (id: string) =>
  invoke(getFile, {
    method: 'GET',
    path: `/v2/files/${id}`,
    pathParameters: { file_id: id },
    headers: bearer(token, HEADERS),
  });

const list = (query = '', as = token) =>
  invoke(listFiles, { method: 'GET', path: `/v2/files${query}`, headers: bearer(as, HEADERS) });

const remove = (id: string) =>
  invoke(deleteFile, {
    method: 'DELETE',
    path: `/v2/files/${id}`,
    pathParameters: { file_id: id },
    headers: bearer(token, HEADERS),
  });

/** The file resource the API answers for a URL, given the id and time it was recorded with. */
function expectedFile(res: InvokeResult, location: string, fileName: string, mimeType: string) {
  const { id, meta } = res.body.data;
  expect(id).toMatch(UUID);
  expect(Date.now() - Date.parse(meta.timestamps.created_at)).toBeLessThan(60_000);
  return {
    type: 'file',
    id,
    link: { href: location },
    file_name: fileName,
    mime_type: mimeType,
    file_size: 0,
    public: true,
    meta: { timestamps: { created_at: meta.timestamps.created_at } },
    links: { self: `${ORIGIN}/v2/files/${id}` },
  };
}

function expectError(res: InvokeResult, status: number, detail: string, source?: string) {
  const titles: Record<number, string> = {
    400: 'Bad Request',
    404: 'Not Found',
    409: 'Conflict',
    415: 'Unsupported Media Type',
  };
  expect(res.status).toBe(status);
  expect(res.body).toEqual({
    errors: [
      {
        status: String(status),
        title: titles[status],
        detail,
        ...(source === undefined ? {} : { source }),
        request_id: expect.any(String),
      },
    ],
  });
}

describe('POST /v2/files', () => {
  it('records a file_location sent as JSON and answers 201 with the file and its Location', async () => {
    const location = 'https://cdn.example.com/images/red-shirt.png';
    const res = await postJson({ file_location: location });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ data: expectedFile(res, location, 'red-shirt.png', 'image/png') });
    expect(res.headers.Location).toBe(`${ORIGIN}/v2/files/${res.body.data.id}`);
    const read = await get(res.body.data.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  it('records the multipart form the SDK sends for Files.Link, the same way', async () => {
    const location = 'https://cdn.example.com/docs/Size%20Guide.pdf?v=3';
    const { body, contentType } = linkForm([['file_location', location]]);
    const res = await postMultipart(body, contentType);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ data: expectedFile(res, location, 'Size Guide.pdf', 'application/pdf') });
  });

  it('records the JSON:API envelope {data: {type: "file", file_location}}', async () => {
    const location = 'https://cdn.example.com/video/intro.MP4';
    const res = await postJson({ data: { type: 'file', file_location: location } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ data: expectedFile(res, location, 'intro.MP4', 'video/mp4') });
  });

  it('names a file without an extension application/octet-stream, and one without a path by its host', async () => {
    const plain = await postJson({ file_location: 'https://images.example.net/render/abc123' });
    expect(plain.body.data).toMatchObject({ file_name: 'abc123', mime_type: 'application/octet-stream' });
    const bare = await postJson({ file_location: 'https://images.example.net/' });
    expect(bare.body.data).toMatchObject({
      file_name: 'images.example.net',
      mime_type: 'application/octet-stream',
    });
    const undecodable = await postJson({ file_location: 'https://images.example.net/a%E9.jpg' });
    expect(undecodable.body.data).toMatchObject({ file_name: 'a%E9.jpg', mime_type: 'image/jpeg' });
  });

  describe('refuses, recording nothing', () => {
    let before: number;
    beforeEach(async () => {
      before = await fileRepository.count(store.store.id);
    });
    afterEach(async () => {
      expect(await fileRepository.count(store.store.id)).toBe(before);
    });

    const long = `https://cdn.example.com/${'a'.repeat(2049 - 'https://cdn.example.com/'.length)}`;
    const SHAPE = 'must be an https URL of at most 2048 characters, without spaces or control characters';
    it.each([
      [
        'an http URL',
        'http://cdn.example.com/a.png',
        'file_location must be an https URL; http URLs are not accepted',
      ],
      [
        'an ftp URL',
        'ftp://cdn.example.com/a.png',
        'file_location must be an https URL; ftp URLs are not accepted',
      ],
      [
        'credentials in the URL',
        'https://user:secret@cdn.example.com/a.png',
        'file_location must not carry credentials (user:password@)',
      ],
      [
        'a relative path',
        '/images/a.png',
        'file_location must be an absolute https URL, such as https://cdn.example.com/a.png',
      ],
      [
        'a URL without its slashes',
        'https:cdn.example.com/a.png',
        'file_location must be written https://host/path, with forward slashes',
      ],
      [
        'a URL with backslashes',
        'https:\\\\cdn.example.com\\a.png',
        'file_location must be written https://host/path, with forward slashes',
      ],
      ['a URL with a space', 'https://cdn.example.com/a b.png', `file_location ${SHAPE}`],
      ['an empty string', '', `file_location ${SHAPE}`],
      ['a URL over 2,048 characters', long, `file_location ${SHAPE}`],
    ])('%s (400)', async (_what, location, detail) => {
      expectError(await postJson({ file_location: location }), 400, detail, 'file_location');
    });

    it('a body without file_location, or with fields the API does not take (400)', async () => {
      expectError(await postJson({}), 400, 'file_location is required', 'file_location');
      expectError(
        await postJson({ file_location: 'https://cdn.example.com/a.png', name: 'x' }),
        400,
        'name is not allowed',
        'name',
      );
      expectError(
        await postJson({ file: 'aGVsbG8=' }),
        400,
        'file: uploading file content is not supported; send file_location, the https URL where the file is hosted',
        'file',
      );
      expectError(
        await postJson({
          data: { type: 'file', file_location: 'https://cdn.example.com/a.png', public: true },
        }),
        400,
        'data.public: public cannot be sent with file_location (every file this API records is public)',
        'data.public',
      );
      expectError(
        await postJson({ data: { type: 'image', file_location: 'https://cdn.example.com/a.png' } }),
        400,
        'data.type must be file',
        'data.type',
      );
    });

    it('a multipart part carrying a file, a repeated field or a public field (400)', async () => {
      const form = new FormData();
      form.append('file', Buffer.from([0x89, 0x50, 0x4e, 0x47]), {
        filename: 'a.png',
        contentType: 'image/png',
      });
      expectError(
        await postMultipart(form.getBuffer(), form.getHeaders()['content-type'] as string),
        400,
        'part file carries a file: uploading file content is not supported; send file_location, the https URL where the file is hosted',
        'file',
      );
      const twice = linkForm([
        ['file_location', 'https://cdn.example.com/a.png'],
        ['file_location', 'https://cdn.example.com/b.png'],
      ]);
      expectError(
        await postMultipart(twice.body, twice.contentType),
        400,
        'field file_location is repeated',
        'file_location',
      );
      const withPublic = linkForm([
        ['file_location', 'https://cdn.example.com/a.png'],
        ['public', 'true'],
      ]);
      expectError(
        await postMultipart(withPublic.body, withPublic.contentType),
        400,
        'public: public cannot be sent with file_location (every file this API records is public)',
        'public',
      );
    });

    it('a multipart body without a boundary, or not closed by it (400)', async () => {
      const { body, contentType } = linkForm([['file_location', 'https://cdn.example.com/a.png']]);
      expectError(
        await postMultipart(body, 'multipart/form-data'),
        400,
        'a multipart/form-data body needs a boundary parameter of 1 to 70 characters in its Content-Type',
        'body',
      );
      expectError(
        await postMultipart(body.subarray(0, body.length - 30), contentType),
        400,
        'request body is not a valid multipart form: the body does not end with the closing boundary',
        'body',
      );
      // What Node's own fetch sends for a `form-data` object: its name, not its bytes.
      expectError(
        await postMultipart(Buffer.from('[object FormData]'), contentType),
        400,
        `request body is not a valid multipart form: no part starts with the boundary "--${contentType.split('boundary=')[1]}"`,
        'body',
      );
    });

    it('another media type (415)', async () => {
      const res = await invoke(createFile, {
        method: 'POST',
        path: '/v2/files',
        headers: bearer(token, { ...HEADERS, 'content-type': 'text/plain' }),
        body: 'https://cdn.example.com/a.png',
      });
      expect(res.status).toBe(415);
      expect(res.body.errors[0].detail).toContain('multipart/form-data');
    });

    it('a storefront (implicit) token (403)', async () => {
      const res = await postJson(
        { file_location: 'https://cdn.example.com/a.png' },
        await tokenFor(store, 'implicit'),
      );
      expect(res.status).toBe(403);
    });

    it(`a file past the store's ${MAX_FILES_PER_STORE} (409)`, async () => {
      const full = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
      await getDocumentClient().send(
        new PutCommand({
          TableName: tableName('products'),
          Item: { ...fileKeys.counter(full.store.id), file_count: MAX_FILES_PER_STORE },
        }),
      );
      const res = await postJson({ file_location: 'https://cdn.example.com/a.png' }, await tokenFor(full));
      expectError(
        res,
        409,
        `the store already has ${MAX_FILES_PER_STORE} files, the most it may hold: delete one before creating another`,
      );
      expect(await fileRepository.all(full.store.id)).toEqual([]);
    });
  });
});

describe('GET /v2/files', () => {
  let own: TestStore;
  let ownToken: string;
  const ids: string[] = [];
  const names = ['a.png', 'b.jpg', 'c.png', 'd.webp', 'e.png'];

  beforeAll(async () => {
    own = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    ownToken = await tokenFor(own);
    for (const name of names) {
      const res = await postJson({ file_location: `https://cdn.example.com/${name}` }, ownToken);
      ids.push(res.body.data.id);
    }
  });

  it('pages in creation order with the platform meta and links', async () => {
    const res = await list('?page[limit]=2&page[offset]=2', ownToken);
    expect(res.status).toBe(200);
    expect(res.body.data.map((file: { id: string }) => file.id)).toEqual(ids.slice(2, 4));
    expect(res.body.meta).toEqual({
      page: { limit: 2, offset: 2, current: 2, total: 3 },
      results: { total: 5 },
    });
    const url = (offset: number) => `${ORIGIN}/v2/files?page[offset]=${offset}&page[limit]=2`;
    expect(res.body.links).toEqual({ self: url(2), first: url(0), last: url(4), prev: url(0), next: url(4) });
  });

  it('shows 100 a page by default', async () => {
    const res = await list('', ownToken);
    expect(res.body.data.map((file: { id: string }) => file.id)).toEqual(ids);
    expect(res.body.meta.page).toEqual({ limit: 100, offset: 0, current: 1, total: 1 });
  });

  it('filters on file_name, id and public, counting only what matches', async () => {
    const byName = await list(`?filter=${encodeURIComponent('eq(file_name,c.png)')}`, ownToken);
    expect(byName.body.data.map((file: { id: string }) => file.id)).toEqual([ids[2]]);
    expect(byName.body.meta.results).toEqual({ total: 1 });
    expect(byName.body.links.self).toBe(
      `${ORIGIN}/v2/files?filter=eq(file_name%2Cc.png)&page[offset]=0&page[limit]=100`,
    );
    const someIds = `in(id,${ids[4]?.toUpperCase()},${ids[0]},not-an-id)`;
    const byId = await list(`?filter=${encodeURIComponent(someIds)}`, ownToken);
    expect(byId.body.data.map((file: { id: string }) => file.id)).toEqual([ids[0], ids[4]]);
    const both = await list(
      `?filter=${encodeURIComponent(`in(file_name,a.png,b.jpg):${someIds}`)}`,
      ownToken,
    );
    expect(both.body.data.map((file: { id: string }) => file.id)).toEqual([ids[0]]);
    const pub = await list(`?filter=${encodeURIComponent('eq(public,true)')}&page[limit]=1`, ownToken);
    expect(pub.body.meta.results).toEqual({ total: 5 });
    const priv = await list(`?filter=${encodeURIComponent('eq(public,false)')}`, ownToken);
    expect(priv.body.data).toEqual([]);
    expect(priv.body.meta.results).toEqual({ total: 0 });
  });

  it('filters file_name with like, * matching any run of characters', async () => {
    const png = await list(`?filter=${encodeURIComponent('like(file_name,*.png)')}`, ownToken);
    expect(png.body.data.map((file: { id: string }) => file.id)).toEqual([ids[0], ids[2], ids[4]]);
    expect(png.body.meta.results).toEqual({ total: 3 });
    const both = await list(
      `?filter=${encodeURIComponent('like(file_name,*.png):in(file_name,b.jpg,c.png)')}`,
      ownToken,
    );
    expect(both.body.data.map((file: { id: string }) => file.id)).toEqual([ids[2]]);
    const exact = await list(`?filter=${encodeURIComponent('like(file_name,d.webp)')}`, ownToken);
    expect(exact.body.data.map((file: { id: string }) => file.id)).toEqual([ids[3]]);
    const cased = await list(`?filter=${encodeURIComponent('like(file_name,*.PNG)')}`, ownToken);
    expect(cased.body.meta.results).toEqual({ total: 0 });
  });

  it('answers 400 for filters it cannot answer', async () => {
    const gt = await list(`?filter=${encodeURIComponent('gt(file_size,0)')}`, ownToken);
    expectError(gt, 400, "unknown operator 'gt' at character 1; expected eq, in or like", 'filter');
    const likeId = await list(`?filter=${encodeURIComponent('like(id,*)')}`, ownToken);
    expectError(
      likeId,
      400,
      "like cannot be used with attribute 'id' at character 6; use eq(id,...)",
      'filter',
    );
    const likeTwo = await list(`?filter=${encodeURIComponent('like(file_name,a*,b*)')}`, ownToken);
    expectError(
      likeTwo,
      400,
      "like(file_name,...) takes exactly one value, found ',' at character 18; use in(file_name,...) for several values",
      'filter',
    );
    const long = await list(`?filter=${encodeURIComponent(`like(file_name,${'a'.repeat(256)})`)}`, ownToken);
    expectError(long, 400, 'a like pattern has at most 255 characters', 'filter');
    const size = await list(`?filter=${encodeURIComponent('eq(file_size,0)')}`, ownToken);
    expect(size.status).toBe(400);
    expect(size.body.errors[0].detail).toContain('id, file_name, public');
    const pub = await list(`?filter=${encodeURIComponent('eq(public,yes)')}`, ownToken);
    expectError(pub, 400, 'public is true or false, not "yes"', 'filter');
    expectError(
      await list('?page[limit]=0', ownToken),
      400,
      'page[limit] must be an integer from 1 to 100',
      'page[limit]',
    );
  });
});

describe('GET and DELETE /v2/files/{file_id}', () => {
  it('deletes a file (204): it is gone from reads, the list and its count', async () => {
    const created = await postJson({ file_location: 'https://cdn.example.com/gone.png' });
    const id = created.body.data.id;
    const before = await fileRepository.count(store.store.id);
    const res = await remove(id);
    expect(res.status).toBe(204);
    expect(res.raw).toBe('');
    expectError(await get(id), 404, 'file not found');
    expectError(await remove(id), 404, 'file not found');
    expect(await fileRepository.count(store.store.id)).toBe(before - 1);
    const all = await list('?page[limit]=100');
    expect(all.body.data.map((file: { id: string }) => file.id)).not.toContain(id);
  });

  it('answers 404 for an unknown id and for one that is not a file id', async () => {
    expectError(await get('0190b5a3-0000-7000-8000-000000000000'), 404, 'file not found');
    expectError(await get('not-a-file'), 404, 'file not found');
    expectError(await remove('not-a-file'), 404, 'file not found');
  });
});
