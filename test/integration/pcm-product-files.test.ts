import { handler as deleteFile } from '../../functions/delete-file/handler';
import { handler as deleteProduct } from '../../functions/pcm-delete-product/handler';
import { handler as getProduct } from '../../functions/pcm-get-product/handler';
import { handler as getFiles } from '../../functions/pcm-get-product-files/handler';
import { handler as getMainImage } from '../../functions/pcm-get-product-main-image/handler';
import { handler as listProducts } from '../../functions/pcm-list-products/handler';
import { handler as updateProduct } from '../../functions/pcm-update-product/handler';
import { handler as writeFiles } from '../../functions/pcm-write-product-files/handler';
import { handler as writeMainImage } from '../../functions/pcm-write-product-main-image/handler';
import { uuidv7 } from '../../lib/ids';
import { MAX_PRODUCT_FILES_BYTES } from '../../lib/products/files';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { fileRepository } from '../../lib/store/file-repository';
import { MAX_PRODUCT_FILES, productRepository } from '../../lib/store/product-repository';
import {
  bearer,
  createTestStore,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';
import { newFile, newPcmProduct } from '../support/pcm-fixtures';

/**
 * A product's file relationships on DynamoDB Local (`…/relationships/main_image` and `…/files`): the
 * bodies each method takes, what GET and the product show, `include`, the rules (files of the store, at
 * most MAX_PRODUCT_FILES, bodies that change nothing when refused) and deletes: a file a product names
 * cannot be deleted, and a product's delete lets its files go.
 */

const ORIGIN = 'https://api.example.test';
const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };
const JSON_HEADERS = { ...HEADERS, 'content-type': 'application/json' };

let store: TestStore;
let other: TestStore;
let token: string;

beforeAll(async () => {
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  other = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store);
});

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

const relationship = (
  name: 'main_image' | 'files',
  method: Method,
  productId: string,
  body?: unknown,
  as = token,
) => {
  const handler =
    name === 'main_image'
      ? method === 'GET'
        ? getMainImage
        : writeMainImage
      : method === 'GET'
        ? getFiles
        : writeFiles;
  return invoke(handler, {
    method,
    path: `/pcm/products/${productId}/relationships/${name}`,
    pathParameters: { product_id: productId },
    headers: bearer(as, body === undefined ? HEADERS : JSON_HEADERS),
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
};
const mainImage = (method: Method, productId: string, body?: unknown) =>
  relationship('main_image', method, productId, body);
const files = (method: Method, productId: string, body?: unknown) =>
  relationship('files', method, productId, body);

const get = (id: string, query = '') =>
  invoke(getProduct, {
    method: 'GET',
    path: `/pcm/products/${id}${query}`,
    pathParameters: { product_id: id },
    headers: bearer(token, HEADERS),
  });
const removeFile = (id: string) =>
  invoke(deleteFile, {
    method: 'DELETE',
    path: `/v2/files/${id}`,
    pathParameters: { file_id: id },
    headers: bearer(token, HEADERS),
  });

const file = (id: string, tags?: string[]) => ({ type: 'file', id, ...(tags ? { meta: { tags } } : {}) });

let counter = 0;
const product = async () => {
  counter += 1;
  return newPcmProduct(
    store.store.id,
    `Files product ${counter}`,
    `files-${Date.now().toString(36)}-${counter}`,
  );
};
const image = (name: string) => newFile(store.store.id, `https://cdn.example.com/files-test/${name}.png`);
const linkCount = async (fileId: string) =>
  (await fileRepository.get(store.store.id, fileId))?.link_count ?? 0;
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((entry) => entry.id);

describe('main_image', () => {
  it('POST sets it (204), GET answers it as a list of one, the product names it, DELETE removes it', async () => {
    const id = await product();
    const red = await image('red');
    expect(await mainImage('GET', id)).toMatchObject({ status: 200, body: { data: [] } });
    const set = await mainImage('POST', id, { data: file(red) });
    expect(set.status).toBe(204);
    expect(set.raw).toBe('');
    expect((await mainImage('GET', id)).body).toEqual({ data: [{ type: 'file', id: red }] });
    const read = await get(id);
    expect(read.body.data.relationships.main_image).toEqual({ data: { type: 'file', id: red } });
    expect(await linkCount(red)).toBe(1);
    expect((await mainImage('DELETE', id)).status).toBe(204);
    expect((await mainImage('GET', id)).body).toEqual({ data: [] });
    expect((await get(id)).body.data.relationships.main_image).toEqual({ data: null });
    expect(await linkCount(red)).toBe(0);
  });

  it("PUT takes the specification's array of one and the SDK's object, and replaces the image", async () => {
    const id = await product();
    const [red, blue] = [await image('red'), await image('blue')];
    expect((await mainImage('PUT', id, { data: [file(red)] })).status).toBe(204);
    expect((await mainImage('PUT', id, { data: file(blue) })).status).toBe(204);
    expect((await mainImage('GET', id)).body).toEqual({ data: [{ type: 'file', id: blue }] });
    expect([await linkCount(red), await linkCount(blue)]).toEqual([0, 1]);
    // POST replaces it too; the same image again changes nothing.
    expect((await mainImage('POST', id, { data: file(red.toUpperCase()) })).status).toBe(204);
    const version = (await productRepository.get(store.store.id, id))?.version;
    expect((await mainImage('POST', id, { data: file(red) })).status).toBe(204);
    expect((await productRepository.get(store.store.id, id))?.version).toBe(version);
    expect([await linkCount(red), await linkCount(blue)]).toEqual([1, 0]);
  });

  it("DELETE with the SDK's body removes that file only: another main image is a 409, none is a 204", async () => {
    const id = await product();
    const [red, blue] = [await image('red'), await image('blue')];
    await mainImage('POST', id, { data: file(red) });
    const refused = await mainImage('DELETE', id, { data: file(blue) });
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0]).toMatchObject({
      source: 'data.id',
      detail: `the product's main image is file ${red}, not ${blue}: nothing was removed`,
    });
    expect((await mainImage('GET', id)).body.data).toEqual([{ type: 'file', id: red }]);
    expect((await mainImage('DELETE', id, { data: file(red) })).status).toBe(204);
    expect((await mainImage('DELETE', id, { data: file(red) })).status).toBe(204);
    expect((await mainImage('DELETE', id)).status).toBe(204);
  });

  it.each([
    ['a file that does not exist', () => uuidv7(), 'data.id'],
    ["another store's file", () => newFile(other.store.id, 'https://cdn.example.com/other.png'), 'data.id'],
  ])('refuses %s with a 422 naming it, and changes nothing', async (_what, fileOf, source) => {
    const id = await product();
    const red = await image('red');
    await mainImage('POST', id, { data: file(red) });
    const missing = await fileOf();
    for (const body of [{ data: file(missing) }, { data: [file(missing)] }]) {
      const res = await mainImage('PUT', id, body);
      expect(res.status).toBe(422);
      const at = Array.isArray(body.data) ? 'data[0].id' : source;
      expect(res.body.errors[0]).toMatchObject({
        source: at,
        detail: `${at}: file ${missing} does not exist in the store (create it with POST /v2/files first)`,
      });
    }
    expect((await mainImage('GET', id)).body.data).toEqual([{ type: 'file', id: red }]);
    expect(await linkCount(red)).toBe(1);
  });

  it.each([
    ['no body', undefined, 400, 'body'],
    ['the wrong type', { data: { type: 'image', id: uuidv7() } }, 400, 'data.type'],
    ['an id that is not a UUID', { data: { type: 'file', id: 'red.png' } }, 400, 'data.id'],
    ['an array of two', { data: [file(uuidv7()), file(uuidv7())] }, 400, 'data'],
    ['malformed JSON', '{"data":', 400, 'body'],
  ])('refuses %s (%s) and changes nothing', async (_what, body, status, source) => {
    const id = await product();
    const red = await image('red');
    await mainImage('POST', id, { data: file(red) });
    const res = await mainImage('PUT', id, body);
    expect(res.status).toBe(status);
    expect(res.body.errors[0].source).toBe(source);
    expect((await mainImage('GET', id)).body.data).toEqual([{ type: 'file', id: red }]);
  });

  it('answers 404 for a product that does not exist, before looking at the file', async () => {
    const res = await mainImage('POST', uuidv7(), { data: file(uuidv7()) });
    expect(res.status).toBe(404);
    expect(res.body.errors[0].detail).toBe('product not found');
    expect((await mainImage('GET', uuidv7())).status).toBe(404);
  });
});

describe('files', () => {
  it('POST adds at the end, PUT replaces, DELETE removes those listed; GET lists them with meta', async () => {
    const id = await product();
    const [a, b, c] = [await image('a'), await image('b'), await image('c')];
    expect(await files('GET', id)).toMatchObject({ status: 200, body: { data: [] } });
    expect((await files('POST', id, { data: [file(a, ['front']), file(b)] })).status).toBe(204);
    const listed = await files('GET', id);
    expect(listed.body.data).toEqual([
      { type: 'file', id: a, meta: { created_at: expect.any(String), tags: ['front'] } },
      { type: 'file', id: b, meta: { created_at: expect.any(String) } },
    ]);
    // Adding a listed file keeps its place; its tags are the ones sent, when sent.
    expect((await files('POST', id, { data: [file(c), file(b, ['back']), file(a)] })).status).toBe(204);
    const added = await files('GET', id);
    expect(ids(added)).toEqual([a, b, c]);
    expect(added.body.data.map((entry: { meta: { tags?: string[] } }) => entry.meta.tags)).toEqual([
      ['front'],
      ['back'],
      undefined,
    ]);
    expect(added.body.data[0].meta.created_at).toBe(listed.body.data[0].meta.created_at);
    expect((await get(id)).body.data.relationships.files).toEqual({
      data: added.body.data,
      links: { self: `/products/${id}/relationships/files` },
    });
    expect((await files('PUT', id, { data: [file(c), file(a)] })).status).toBe(204);
    expect(ids(await files('GET', id))).toEqual([c, a]);
    expect([await linkCount(a), await linkCount(b), await linkCount(c)]).toEqual([1, 0, 1]);
    // Removing a file the product does not list is no change.
    expect((await files('DELETE', id, { data: [file(a), file(b)] })).status).toBe(204);
    expect(ids(await files('GET', id))).toEqual([c]);
    expect((await files('PUT', id, { data: [] })).status).toBe(204);
    expect((await files('GET', id)).body.data).toEqual([]);
    expect([await linkCount(a), await linkCount(c)]).toEqual([0, 0]);
  });

  it('counts a file that is both the main image and listed twice, and lets it go once per link', async () => {
    const id = await product();
    const a = await image('a');
    await mainImage('POST', id, { data: file(a) });
    await files('POST', id, { data: [file(a)] });
    expect(await linkCount(a)).toBe(2);
    await mainImage('DELETE', id);
    expect(await linkCount(a)).toBe(1);
  });

  it('refuses a file that does not exist with a 422 naming its entry, and adds none of the others', async () => {
    const id = await product();
    const [a, b] = [await image('a'), await image('b')];
    const missing = uuidv7();
    const res = await files('POST', id, { data: [file(a), file(missing), file(b)] });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({
      source: 'data[1].id',
      detail: `data[1].id: file ${missing} does not exist in the store (create it with POST /v2/files first)`,
    });
    expect((await files('GET', id)).body.data).toEqual([]);
    expect([await linkCount(a), await linkCount(b)]).toEqual([0, 0]);
  });

  it(`lists at most ${MAX_PRODUCT_FILES} files (422 past it, nothing changed), and a replacement of all of them fits one transaction`, async () => {
    const id = await product();
    const first = await Promise.all(Array.from({ length: MAX_PRODUCT_FILES }, (_, i) => image(`first-${i}`)));
    const second = await Promise.all(
      Array.from({ length: MAX_PRODUCT_FILES }, (_, i) => image(`second-${i}`)),
    );
    expect((await files('PUT', id, { data: first.map((fileId) => file(fileId)) })).status).toBe(204);
    const over = await files('POST', id, { data: [file(second[0] as string)] });
    expect(over.status).toBe(422);
    expect(over.body.errors[0]).toMatchObject({
      source: 'data',
      detail: `data: the product would name ${MAX_PRODUCT_FILES + 1} files, at most ${MAX_PRODUCT_FILES} are allowed: remove some first (DELETE .../relationships/files)`,
    });
    const tooMany = await files('PUT', id, { data: [...second, first[0] as string].map((f) => file(f)) });
    expect(tooMany.status).toBe(422);
    expect(ids(await files('GET', id))).toEqual(first);
    // Every file swapped for another: 96 link counts and the product in one transaction.
    expect((await files('PUT', id, { data: second.map((fileId) => file(fileId)) })).status).toBe(204);
    expect(ids(await files('GET', id))).toEqual(second);
    expect(await linkCount(first[0] as string)).toBe(0);
    expect(await linkCount(second[0] as string)).toBe(1);
  });

  it(`bounds the files' tags to ${MAX_PRODUCT_FILES_BYTES} bytes a product (422), so the product item stays under 400 KB`, async () => {
    const id = await product();
    const many = await Promise.all(Array.from({ length: 40 }, (_, i) => image(`tagged-${i}`)));
    // 20 tags of 64 two-byte characters a file: 2.6 KB of JSON each.
    const tags = Array.from({ length: 20 }, (_, i) => `${'é'.repeat(60)}${String(i).padStart(4, '0')}`);
    // Two bodies under the 64 KiB request limit, together over the bytes a product's files may take.
    expect((await files('POST', id, { data: many.slice(0, 20).map((f) => file(f, tags)) })).status).toBe(204);
    const res = await files('POST', id, { data: many.slice(20).map((f) => file(f, tags)) });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].detail).toMatch(
      new RegExp(
        `^data: the product's files and their tags would take \\d+ bytes, at most ${MAX_PRODUCT_FILES_BYTES}`,
      ),
    );
    expect(ids(await files('GET', id))).toEqual(many.slice(0, 20));
  });

  it.each([
    ['the main_image object', 'POST', { data: file(uuidv7()) }, 'data'],
    ['the wrong type', 'POST', { data: [{ type: 'image', id: uuidv7() }] }, 'data[0].type'],
    [
      'a file named twice',
      'PUT',
      { data: [file('0193a0c0-0000-7000-8000-00000000000a'), file('0193A0C0-0000-7000-8000-00000000000A')] },
      'data[1].id',
    ],
    ['meta on a DELETE', 'DELETE', { data: [file(uuidv7(), ['x'])] }, 'data[0].meta'],
    ['an unknown field', 'PUT', { data: [{ ...file(uuidv7()), position: 1 }] }, 'data[0].position'],
    ['no body', 'PUT', undefined, 'body'],
  ] as const)('refuses %s (400) and changes nothing', async (_what, method, body, source) => {
    const id = await product();
    const a = await image('a');
    await files('POST', id, { data: [file(a)] });
    const res = await files(method, id, body);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toBe(source);
    expect(ids(await files('GET', id))).toEqual([a]);
    expect(await linkCount(a)).toBe(1);
  });
});

describe('include and the product', () => {
  it('includes main_images and files as /v2/files renders them, each once, on a product and a page', async () => {
    const [one, two] = [await product(), await product()];
    const [a, b] = [await image('include-a'), await image('include-b')];
    await mainImage('POST', one, { data: file(a) });
    await mainImage('POST', two, { data: file(a) });
    await files('POST', one, { data: [file(b), file(a)] });
    const read = await get(one, '?include=main_image,files,component_products');
    expect(read.status).toBe(200);
    expect(read.body.included.component_products).toEqual([]);
    expect(read.body.included.main_images).toEqual([
      expect.objectContaining({
        type: 'file',
        id: a,
        file_name: 'include-a.png',
        links: { self: `${ORIGIN}/v2/files/${a}` },
      }),
    ]);
    expect(read.body.included.files.map((f: { id: string }) => f.id)).toEqual([b, a]);
    expect(read.raw).not.toContain('link_count');
    const page = await invoke(listProducts, {
      method: 'GET',
      path: `/pcm/products?include=main_image&filter=in(id,${one},${two})`,
      headers: bearer(token, HEADERS),
    });
    expect(page.status).toBe(200);
    expect(page.body.included.main_images.map((f: { id: string }) => f.id)).toEqual([a]);
    expect(page.body.included.files).toBeUndefined();
    expect((await get(two, '?include=files')).body.included).toEqual({ files: [] });
  });

  it("keeps the product's files through attribute updates, and moves its version with each change", async () => {
    const id = await product();
    const a = await image('a');
    await files('POST', id, { data: [file(a, ['front'])] });
    const before = await productRepository.get(store.store.id, id);
    const res = await invoke(updateProduct, {
      method: 'PUT',
      path: `/pcm/products/${id}`,
      pathParameters: { product_id: id },
      headers: bearer(token, JSON_HEADERS),
      body: JSON.stringify({ data: { type: 'product', id, attributes: { description: 'With files' } } }),
    });
    expect(res.status).toBe(200);
    expect(res.body.data.relationships.files.data).toEqual([
      { type: 'file', id: a, meta: { created_at: expect.any(String), tags: ['front'] } },
    ]);
    const after = await productRepository.get(store.store.id, id);
    expect(after?.version).toBe((before?.version ?? 0) + 1);
    expect(after?.files).toEqual(before?.files);
  });
});

describe('a deleted key', () => {
  it('cannot write through its token, even a write that changes nothing (401, nothing written)', async () => {
    const { key, clientSecret } = await applicationKeyRepository.create(store.store.id, {
      name: 'Doomed',
      reserved_rate_limit: 0,
    });
    const doomed = await tokenFor({ ...store, keyId: key.id, clientId: key.client_id, clientSecret });
    const id = await product();
    const a = await image('a');
    // Its token works (and is cached by this container) until the key is deleted.
    expect((await relationship('main_image', 'POST', id, { data: file(a) }, doomed)).status).toBe(204);
    await applicationKeyRepository.delete(store.store.id, key.id);
    const before = await productRepository.get(store.store.id, id);
    // The write that changes nothing first: the container still caches the token, and no transaction
    // would check it. A refused write drops the token from the cache, so it could not come second.
    const same = await relationship('main_image', 'PUT', id, { data: file(a) }, doomed);
    const change = await relationship('files', 'POST', id, { data: [file(a)] }, doomed);
    expect([same.status, change.status]).toEqual([401, 401]);
    expect(await productRepository.get(store.store.id, id)).toEqual(before);
    expect(await linkCount(a)).toBe(1);
  });
});

describe('deleting', () => {
  it('refuses to delete a file a product names (409, kept), and deletes it once no product does', async () => {
    const id = await product();
    const a = await image('a');
    await files('POST', id, { data: [file(a)] });
    await mainImage('POST', id, { data: file(a) });
    const refused = await removeFile(a);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].detail).toBe(
      'products still name the file (2 links as a main_image or among files): remove it from them first (DELETE /pcm/products/{product_id}/relationships/main_image or .../relationships/files)',
    );
    expect(await fileRepository.get(store.store.id, a)).toBeDefined();
    await files('DELETE', id, { data: [file(a)] });
    expect((await removeFile(a)).status).toBe(409);
    await mainImage('DELETE', id);
    expect((await removeFile(a)).status).toBe(204);
    expect((await removeFile(a)).status).toBe(404);
  });

  it("lets a deleted product's files go: they can be deleted after it", async () => {
    const id = await product();
    const [a, b] = [await image('a'), await image('b')];
    await files('PUT', id, { data: [file(a), file(b)] });
    await mainImage('POST', id, { data: file(a) });
    const res = await invoke(deleteProduct, {
      method: 'DELETE',
      path: `/pcm/products/${id}`,
      pathParameters: { product_id: id },
      headers: bearer(token, HEADERS),
    });
    expect(res.status).toBe(204);
    expect([await linkCount(a), await linkCount(b)]).toEqual([0, 0]);
    expect((await removeFile(a)).status).toBe(204);
    expect((await removeFile(b)).status).toBe(204);
  });

  it('keeps every change of writes to one product at the same moment (files, main image, attributes)', async () => {
    const id = await product();
    const added = await Promise.all(Array.from({ length: 4 }, (_, i) => image(`together-${i}`)));
    const cover = await image('together-cover');
    const results = await Promise.all([
      ...added.map((fileId) => files('POST', id, { data: [file(fileId)] })),
      mainImage('POST', id, { data: file(cover) }),
      invoke(updateProduct, {
        method: 'PUT',
        path: `/pcm/products/${id}`,
        pathParameters: { product_id: id },
        headers: bearer(token, JSON_HEADERS),
        body: JSON.stringify({ data: { type: 'product', id, attributes: { description: 'Together' } } }),
      }),
    ]);
    expect(results.map((res) => res.status)).toEqual([...added.map(() => 204), 204, 200]);
    const stored = await productRepository.get(store.store.id, id);
    expect(stored?.files?.map((f) => f.id).sort()).toEqual([...added].sort());
    expect(stored?.main_image).toBe(cover);
    expect(stored?.attributes.description).toBe('Together');
    expect(await Promise.all([...added, cover].map(linkCount))).toEqual([...added, cover].map(() => 1));
  });

  it('never leaves a product naming a deleted file, whatever runs at the same moment', async () => {
    for (let round = 0; round < 6; round += 1) {
      const id = await product();
      const a = await image(`race-${round}`);
      const link =
        round % 2 === 0 ? files('POST', id, { data: [file(a)] }) : mainImage('POST', id, { data: file(a) });
      const [linked, deleted] = await Promise.all([link, removeFile(a)]);
      // One of them wins: linked (and the delete refused) or deleted (and the link refused).
      expect([linked.status, deleted.status].sort()).toEqual(linked.status === 204 ? [204, 409] : [204, 422]);
      const stored = await productRepository.get(store.store.id, id);
      const names = [...(stored?.files ?? []).map((f) => f.id), stored?.main_image].includes(a);
      const exists = (await fileRepository.get(store.store.id, a)) !== undefined;
      expect({ names, exists }).toEqual(
        linked.status === 204 ? { names: true, exists: true } : { names: false, exists: false },
      );
    }
  });
});
