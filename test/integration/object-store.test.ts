import { createHash, randomUUID } from 'node:crypto';
import { connect, createServer, type Server } from 'node:net';
import { gzipSync } from 'node:zlib';
import { loadConfig } from '../../lib/config/index';
import {
  createObjectStore,
  createS3Client,
  getS3Client,
  ObjectNotFoundError,
  objectStore,
  PART_BYTES,
  READ_RESUMES,
  resetObjectStoreClient,
} from '../../lib/store/object-store';
import { S3Error, S3Http, type S3Request } from '../../lib/store/s3-http';
import { withAlteredSignature } from '../support/signed-urls';

/**
 * The documents bucket against the run's local object store (s3rver, started by the global setup): what
 * the publishing workflow relies on, bytes for bytes. Every key is under this file's own prefix.
 */
const prefix = `object-store-test/${randomUUID()}/`;

afterAll(async () => {
  await objectStore.deletePrefix(prefix);
  resetObjectStoreClient();
});

async function bytesOf(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * S3 requests that record the operation of every request sent (once, whatever its retries), and fail the
 * ones `fail` picks with the error it returns, before sending them.
 */
class RecordingS3Http extends S3Http {
  readonly operations: string[] = [];

  constructor(private readonly fail: (request: S3Request) => Error | undefined = () => undefined) {
    super(loadConfig());
  }

  private record(request: S3Request): void {
    this.operations.push(request.operation);
    const error = this.fail(request);
    if (error) throw error;
  }

  override async send(bucket: string, request: S3Request) {
    this.record(request);
    return super.send(bucket, request);
  }

  override async sendForHeaders(bucket: string, request: S3Request) {
    this.record(request);
    return super.sendForHeaders(bucket, request);
  }

  override async sendForXml(bucket: string, request: S3Request) {
    this.record(request);
    return super.sendForXml(bucket, request);
  }
}

/** A store on requests of its own that records the operation of every request it sends. */
function recordingStore(
  tuning: Parameters<typeof createObjectStore>[1] = {},
  fail?: (request: S3Request) => Error | undefined,
) {
  const client = new RecordingS3Http(fail);
  return {
    store: createObjectStore({ client: () => client, bucket: () => loadConfig().documentsBucket }, tuning),
    commands: client.operations,
  };
}

const TEXT = 'Ünïcödé ✓ 商品 — 🧦 socks, "quoted" and \\ escaped\n'.repeat(40);

describe('objectStore', () => {
  it('reads back exactly the bytes put, whole and in byte ranges (inclusive ends), non-ASCII included', async () => {
    const key = `${prefix}text.json`;
    const expected = Buffer.from(TEXT, 'utf8');
    await objectStore.put(key, TEXT, { contentType: 'application/json' });

    expect((await bytesOf(objectStore.read(key))).equals(expected)).toBe(true);
    for (const [start, end] of [
      [0, 0],
      [0, 1],
      [1, 3],
      [2, 2],
      [100, 1099],
      [expected.length - 1, expected.length - 1],
    ] as const) {
      const part = await bytesOf(objectStore.read(key, { start, end }));
      expect(part.equals(expected.subarray(start, end + 1))).toBe(true);
    }
    // A range past the end stops at the last byte, as in S3.
    const tail = await bytesOf(
      objectStore.read(key, { start: expected.length - 5, end: expected.length + 100 }),
    );
    expect(tail.equals(expected.subarray(expected.length - 5))).toBe(true);
  });

  it('stores bytes as given, every byte value included', async () => {
    const key = `${prefix}bytes.bin`;
    const bytes = new Uint8Array(1024).map((_, i) => (i * 7) % 256);
    await objectStore.put(key, bytes);
    expect(new Uint8Array(await bytesOf(objectStore.read(key)))).toEqual(bytes);
    expect(new Uint8Array(await bytesOf(objectStore.read(key, { start: 250, end: 260 })))).toEqual(
      bytes.subarray(250, 261),
    );
  });

  it('heads an object (its size in bytes, when it was stored) and answers undefined for a missing key', async () => {
    const key = `${prefix}head.json`;
    // S3 keeps whole seconds.
    const before = Math.floor(Date.now() / 1000) * 1000;
    await objectStore.put(key, 'é');
    const head = await objectStore.head(key);
    expect(head).toEqual({ bytes: 2, last_modified: expect.any(String) });
    expect(Date.parse(head?.last_modified ?? '')).toBeGreaterThanOrEqual(before);
    expect(Date.parse(head?.last_modified ?? '')).toBeLessThanOrEqual(Date.now());
    expect(await objectStore.head(`${prefix}missing.json`)).toBeUndefined();
  });

  it('refuses to read a missing key with ObjectNotFound, and a backwards range before asking', async () => {
    const missing = `${prefix}missing.json`;
    const failure = await bytesOf(objectStore.read(missing)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ObjectNotFoundError);
    expect((failure as Error).name).toBe('ObjectNotFound');
    expect((failure as ObjectNotFoundError).key).toBe(missing);
    await expect(bytesOf(objectStore.read(missing, { start: 0, end: 0 }))).rejects.toMatchObject({
      name: 'ObjectNotFound',
    });
    expect(() => objectStore.read(missing, { start: 5, end: 4 })).toThrow(RangeError);
    expect(() => objectStore.read(missing, { start: -1, end: 4 })).toThrow(RangeError);
  });

  it('reports a missing bucket as such, not as a missing key', async () => {
    const elsewhere = createObjectStore({ client: getS3Client, bucket: () => `missing-${randomUUID()}` });
    await expect(bytesOf(elsewhere.read(`${prefix}text.json`))).rejects.toMatchObject({
      name: 'NoSuchBucket',
    });
  });

  it('stores a stream of unknown length (~20 MB in uneven chunks, several parts) and streams it back equal', async () => {
    const key = `${prefix}streamed.json`;
    const total = 20_000_000;
    const written = createHash('sha256');
    let produced = 0;
    async function* generate() {
      for (let i = 0; produced < total; i++) {
        const size = Math.min(65_536 + (i % 7) * 1_001, total - produced);
        const chunk = Buffer.alloc(size, `chunk ${i} ✓ `);
        written.update(chunk);
        produced += size;
        yield i % 2 === 0 ? chunk : new Uint8Array(chunk);
      }
    }
    const { store, commands } = recordingStore();
    await store.put(key, generate(), { contentType: 'application/json' });
    expect(produced).toBe(total);
    // Three parts of at least 8 MiB but the last, never the whole body in one request.
    expect(commands).toEqual([
      'CreateMultipartUpload',
      'UploadPart',
      'UploadPart',
      'UploadPart',
      'CompleteMultipartUpload',
    ]);
    expect(total).toBeGreaterThan(2 * PART_BYTES);
    expect(await objectStore.head(key)).toMatchObject({ bytes: total });

    const read = createHash('sha256');
    let chunks = 0;
    let largest = 0;
    let bytes = 0;
    for await (const chunk of objectStore.read(key)) {
      read.update(chunk);
      chunks += 1;
      bytes += chunk.length;
      largest = Math.max(largest, chunk.length);
    }
    expect(bytes).toBe(total);
    expect(read.digest('hex')).toBe(written.digest('hex'));
    // Streamed, not handed over whole.
    expect(chunks).toBeGreaterThan(100);
    expect(largest).toBeLessThanOrEqual(1024 * 1024);

    // A range across a part boundary.
    const start = PART_BYTES - 10;
    const ranged = await bytesOf(objectStore.read(key, { start, end: start + 19 }));
    expect(ranged).toHaveLength(20);
    expect(ranged.toString('latin1')).toBe(await rangeOfGenerated(start, 20));
  });

  it('stores a short stream in one request, an empty one as an empty object, and text chunks as UTF-8', async () => {
    async function* from(chunks: (string | Uint8Array)[]) {
      yield* chunks;
    }
    const { store, commands } = recordingStore();
    await store.put(`${prefix}short.txt`, from(['é', Buffer.from('-'), '✓']));
    expect(commands).toEqual(['PutObject']);
    expect((await bytesOf(objectStore.read(`${prefix}short.txt`))).toString('utf8')).toBe('é-✓');
    await objectStore.put(`${prefix}empty.txt`, from([]));
    expect(await objectStore.head(`${prefix}empty.txt`)).toMatchObject({ bytes: 0 });
    expect(await bytesOf(objectStore.read(`${prefix}empty.txt`))).toHaveLength(0);
  });

  it('fails a streamed put whose source fails, storing nothing', async () => {
    const key = `${prefix}broken-source.json`;
    async function* failing() {
      yield Buffer.alloc(PART_BYTES + 1, 'x');
      yield Buffer.alloc(1024, 'y');
      throw new Error('source broke');
    }
    await expect(objectStore.put(key, failing())).rejects.toThrow('source broke');
    expect(await objectStore.head(key)).toBeUndefined();
  });

  it('aborts a streamed upload when S3 refuses one of its parts, and stores nothing', async () => {
    const key = `${prefix}refused-part.json`;
    async function* parts() {
      for (let i = 0; i < 3; i++) yield Buffer.alloc(PART_BYTES, `part ${i}`);
    }
    const { store, commands } = recordingStore({}, (request) =>
      request.operation === 'UploadPart' && request.query?.partNumber === '2'
        ? new S3Error('AccessDenied', 'UploadPart: Access Denied (403)', 403)
        : undefined,
    );
    await expect(store.put(key, parts())).rejects.toMatchObject({ name: 'AccessDenied' });
    expect(commands[0]).toBe('CreateMultipartUpload');
    expect(commands.at(-1)).toBe('AbortMultipartUpload');
    expect(commands).not.toContain('CompleteMultipartUpload');
    expect(await objectStore.head(key)).toBeUndefined();
  });

  it("answers a missing key with S3's errors, named as the SDK named them, and each call as documented", async () => {
    const missing = `${prefix}nowhere/missing.json`;
    const client = getS3Client();
    const bucket = loadConfig().documentsBucket;
    await expect(
      client.send(bucket, { operation: 'GetObject', method: 'GET', key: missing }),
    ).rejects.toMatchObject({
      name: 'NoSuchKey',
      $metadata: { httpStatusCode: 404 },
    });
    await expect(
      client.sendForHeaders(bucket, { operation: 'HeadObject', method: 'HEAD', key: missing }),
    ).rejects.toMatchObject({ name: 'NotFound', $metadata: { httpStatusCode: 404 } });
    expect(await objectStore.head(missing)).toBeUndefined();
    await expect(bytesOf(objectStore.read(missing, { start: 3, end: 9 }))).rejects.toThrow(
      ObjectNotFoundError,
    );
    await expect(objectStore.copy(missing, `${prefix}nowhere/to.json`)).rejects.toThrow(ObjectNotFoundError);
    await expect(objectStore.delete(missing)).resolves.toBeUndefined();
    const listed: unknown[] = [];
    for await (const object of objectStore.list(`${prefix}nowhere/`)) listed.push(object);
    expect(listed).toEqual([]);
    expect(await objectStore.deletePrefix(`${prefix}nowhere/`)).toBe(0);
  });

  it('takes keys with spaces, URL special characters and non-ASCII through every call', async () => {
    const base = `${prefix}odd/`;
    // Not `&<>'`: s3rver escapes them twice in its listings (S3 once; the XML unit tests decode them).
    const keys = [`${base}a b+c"d(e)!*~.json`, `${base}商品 ✓/%41%2F.json`];
    for (const key of keys) await objectStore.put(key, key, { contentType: 'text/plain' });
    const listed: { key: string; bytes: number }[] = [];
    for await (const object of objectStore.list(base)) listed.push(object);
    expect(listed).toEqual(keys.map((key) => ({ key, bytes: Buffer.byteLength(key) })));
    for (const key of keys) {
      expect((await bytesOf(objectStore.read(key))).toString('utf8')).toBe(key);
      expect(await objectStore.head(key)).toMatchObject({ bytes: Buffer.byteLength(key) });
    }
    // (Not keys[0]: s3rver decodes x-amz-copy-source with decodeURI, which leaves its `%2B` a `%2B`.)
    expect(await objectStore.copy(keys[1] as string, `${base}copied (1).json`)).toEqual({
      bytes: Buffer.byteLength(keys[1] as string),
    });
    expect((await bytesOf(objectStore.read(`${base}copied (1).json`))).toString('utf8')).toBe(keys[1]);
    const download = await fetch(
      (await objectStore.presignGet(keys[1] as string, { expiresInSeconds: 60 })).url,
    );
    expect(await download.text()).toBe(keys[1]);
    expect(await objectStore.deletePrefix(base)).toBe(3);
    for (const key of keys) expect(await objectStore.head(key)).toBeUndefined();
  });

  it('lists a prefix at once and deletes under it only once `after` has fulfilled, nothing when it rejects', async () => {
    const base = `${prefix}after/`;
    const keys = ['a', 'b', 'c'].map((name) => `${base}${name}.json`);
    await Promise.all(keys.map((key) => objectStore.put(key, key)));
    const { store, commands } = recordingStore();
    let fulfil = () => {};
    const after = new Promise<void>((resolve) => {
      fulfil = resolve;
    });
    const deleting = store.deletePrefix(base, { after });
    // The listing is sent at once; while `after` is pending nothing goes.
    expect(commands).toEqual(['ListObjectsV2']);
    for (const key of keys) expect(await objectStore.head(key)).toBeDefined();
    expect(commands).toEqual(['ListObjectsV2']);
    fulfil();
    expect(await deleting).toBe(3);
    expect(commands).toEqual(['ListObjectsV2', 'DeleteObjects']);
    for (const key of keys) expect(await objectStore.head(key)).toBeUndefined();

    // A write that failed leaves the objects where they are.
    await Promise.all(keys.map((key) => objectStore.put(key, key)));
    const refused = Promise.reject(new Error('the write was refused'));
    expect(await store.deletePrefix(base, { after: refused })).toBe(0);
    for (const key of keys) expect(await objectStore.head(key)).toBeDefined();
    expect(await objectStore.deletePrefix(base)).toBe(3);
  });

  it('hands out a pre-signed PUT URL that fetch can upload to, with the signed Content-Type only', async () => {
    const key = `${prefix}uploaded.json`;
    const before = Date.now();
    const { url, expires_at } = await objectStore.presignPut(key, {
      expiresInSeconds: 300,
      contentType: 'application/json',
    });
    const expires = Date.parse(expires_at);
    expect(expires).toBeGreaterThan(before + 298_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 300_000);
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('300');

    const wrongType = await fetch(url, {
      method: 'PUT',
      body: '{}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(403);
    expect(await objectStore.head(key)).toBeUndefined();

    const body = JSON.stringify({ name: 'Chaussettes ✓', sku: '商品-1' });
    const uploaded = await fetch(url, {
      method: 'PUT',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(uploaded.status).toBe(200);
    expect((await bytesOf(objectStore.read(key))).toString('utf8')).toBe(body);

    // The URL is for its key only.
    const otherKey = url.replace('/uploaded.json?', '/other.json?');
    const elsewhere = await fetch(otherKey, {
      method: 'PUT',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(elsewhere.status).toBe(403);
    expect(await objectStore.head(`${prefix}other.json`)).toBeUndefined();
  });

  it('refuses an upload to a pre-signed URL once it has expired', async () => {
    const key = `${prefix}late.json`;
    const { url, expires_at } = await objectStore.presignPut(key, {
      expiresInSeconds: 1,
      contentType: 'application/json',
    });
    // Waits for the clock (the server's too: same machine) to pass the expiry: under 1 s.
    while (Date.now() <= Date.parse(expires_at) + 10) await new Promise((r) => setTimeout(r, 50));
    const late = await fetch(url, {
      method: 'PUT',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(late.status).toBe(403);
    expect(await late.text()).toContain('expired');
    expect(await objectStore.head(key)).toBeUndefined();
    await expect(objectStore.presignPut(key, { expiresInSeconds: 0 })).rejects.toThrow(RangeError);
    await expect(objectStore.presignPut(key, { expiresInSeconds: 8 * 24 * 3600 })).rejects.toThrow(
      RangeError,
    );
  });

  it('reads the bytes as stored of an object uploaded with a Content-Encoding, whole and in ranges', async () => {
    const key = `${prefix}encoded.json.gz`;
    const compressed = gzipSync(Buffer.from(TEXT, 'utf8'));
    const { url } = await objectStore.presignPut(key, {
      expiresInSeconds: 60,
      contentType: 'application/json',
    });
    const uploaded = await fetch(url, {
      method: 'PUT',
      body: compressed,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(uploaded.status).toBe(200);
    // Stored with it: a plain download is decompressed by fetch.
    const { url: link } = await objectStore.presignGet(key, { expiresInSeconds: 60 });
    expect(await (await fetch(link)).text()).toBe(TEXT);
    expect((await bytesOf(objectStore.read(key))).equals(compressed)).toBe(true);
    const range = { start: 10, end: 40 };
    expect((await bytesOf(objectStore.read(key, range))).equals(compressed.subarray(10, 41))).toBe(true);
  });

  it('hands out a pre-signed GET URL that plain fetch downloads with, for its key only', async () => {
    const key = `${prefix}linked/file.bin`;
    const bytes = Buffer.from(TEXT, 'utf8');
    await objectStore.put(key, bytes, { contentType: 'application/gzip' });
    const before = Date.now();
    const { url, expires_at } = await objectStore.presignGet(key, { expiresInSeconds: 3600 });
    expect(Date.parse(expires_at)).toBeGreaterThan(before + 3_598_000);
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('3600');
    const download = await fetch(url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/gzip');
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    // Another key with the same signature, or a changed signature, is refused.
    expect((await fetch(url.replace('/file.bin?', '/other.bin?'))).status).toBe(403);
    const refused = await fetch(withAlteredSignature(url));
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it('refuses a download from a pre-signed GET URL once it has expired', async () => {
    const key = `${prefix}linked/late.bin`;
    await objectStore.put(key, 'late');
    const { url, expires_at } = await objectStore.presignGet(key, { expiresInSeconds: 1 });
    while (Date.now() <= Date.parse(expires_at) + 10) await new Promise((r) => setTimeout(r, 50));
    const late = await fetch(url);
    expect(late.status).toBe(403);
    expect(await late.text()).toContain('expired');
  });

  it('deletes one object, and takes a missing one as deleted', async () => {
    const key = `${prefix}deleted/one.json`;
    const kept = `${prefix}deleted/one.json.kept`;
    await objectStore.put(key, '{}');
    await objectStore.put(kept, '{}');
    await objectStore.delete(key);
    expect(await objectStore.head(key)).toBeUndefined();
    expect(await objectStore.head(kept)).toBeDefined();
    await expect(objectStore.delete(key)).resolves.toBeUndefined();
  });

  it('copies an object server-side in one CopyObject, bytes kept, and refuses a missing source', async () => {
    const from = `${prefix}copy/from.json`;
    await objectStore.put(from, TEXT, { contentType: 'application/json' });
    const { store, commands } = recordingStore();
    const copied = await store.copy(from, `${prefix}copy/to.json`);
    expect(copied).toEqual({ bytes: Buffer.byteLength(TEXT) });
    expect(commands).toEqual(['HeadObject', 'CopyObject']);
    expect((await bytesOf(objectStore.read(`${prefix}copy/to.json`))).toString('utf8')).toBe(TEXT);
    await expect(objectStore.copy(`${prefix}copy/missing.json`, `${prefix}copy/x.json`)).rejects.toThrow(
      ObjectNotFoundError,
    );
    expect(await objectStore.head(`${prefix}copy/x.json`)).toBeUndefined();
  });

  it('copies a larger object in parts (UploadPartCopy of byte ranges), every byte in place', async () => {
    const from = `${prefix}copy/large.bin`;
    const expected = Buffer.alloc(12 * 1024 * 1024 + 5);
    for (let i = 0; i + 4 <= expected.length; i += 4) expected.writeUInt32LE(i, i);
    await objectStore.put(from, expected);
    // S3's smallest part (but the last) is 5 MiB: three parts here.
    const { store, commands } = recordingStore({ copyPartBytes: 5 * 1024 * 1024 });
    const to = `${prefix}copy/large-copy.bin`;
    expect(await store.copy(from, to)).toEqual({ bytes: expected.length });
    expect(commands).toEqual([
      'HeadObject',
      'CreateMultipartUpload',
      'UploadPartCopy',
      'UploadPartCopy',
      'UploadPartCopy',
      'CompleteMultipartUpload',
    ]);
    expect((await bytesOf(objectStore.read(to))).equals(expected)).toBe(true);
  });

  it('composes an object of ranges of another and new texts: long ranges copied server-side, the rest uploaded', async () => {
    const MiB = 1024 * 1024;
    const from = `${prefix}compose/base.bin`;
    const base = Buffer.alloc(30 * MiB + 7);
    for (let i = 0; i + 4 <= base.length; i += 4) base.writeUInt32LE(i, i);
    await objectStore.put(from, base);
    // A new head, a change in the middle (a longer text in place of 100 bytes), the rest as it was.
    const head = '{"head":"ünïcödé"}';
    const middle = '"changed ✓"'.repeat(20);
    const cut = 17 * MiB + 3;
    const pieces = [
      { text: head },
      { copy: { start: 10, end: cut - 1 } },
      { text: middle },
      { copy: { start: cut + 100, end: base.length - 1 } },
    ];
    const expected = Buffer.concat([
      Buffer.from(head),
      base.subarray(10, cut),
      Buffer.from(middle),
      base.subarray(cut + 100),
    ]);
    const { store, commands } = recordingStore();
    const to = `${prefix}compose/composed.bin`;
    const written = await store.compose(to, from, pieces, { contentType: 'application/octet-stream' });
    expect((await bytesOf(objectStore.read(to))).equals(expected)).toBe(true);
    expect(written.bytes).toBe(expected.length);
    // The head is padded to 5 MiB from the first range, whose rest is copied; so is the change's.
    expect([...commands.slice(0, 2), commands.at(-1)]).toEqual([
      'HeadObject',
      'CreateMultipartUpload',
      'CompleteMultipartUpload',
    ]);
    expect(commands.slice(2, -1).sort()).toEqual([
      'GetObject',
      'GetObject',
      'UploadPart',
      'UploadPart',
      'UploadPartCopy',
      'UploadPartCopy',
    ]);
    expect(written.copied).toBe(expected.length - 2 * 5 * MiB);

    // Short: one PutObject of the bytes; a missing source is refused, nothing written.
    const small = recordingStore();
    await small.store.compose(`${prefix}compose/small.bin`, from, [
      { text: 'a' },
      { copy: { start: 0, end: 9 } },
    ]);
    expect(small.commands).toEqual(['HeadObject', 'GetObject', 'PutObject']);
    expect(
      (await bytesOf(objectStore.read(`${prefix}compose/small.bin`))).equals(
        Buffer.concat([Buffer.from('a'), base.subarray(0, 10)]),
      ),
    ).toBe(true);
    await expect(
      objectStore.compose(`${prefix}compose/x.bin`, `${prefix}compose/missing.bin`, [{ text: 'a' }]),
    ).rejects.toThrow(ObjectNotFoundError);
    await expect(
      objectStore.compose(`${prefix}compose/x.bin`, from, [{ copy: { start: 0, end: base.length } }]),
    ).rejects.toThrow(RangeError);
    expect(await objectStore.head(`${prefix}compose/x.bin`)).toBeUndefined();
  }, 60_000);

  it('deletes exactly the objects under a prefix, over 1,000 of them (several list pages), and counts them', async () => {
    const base = `${prefix}delete/`;
    const doomed = Array.from({ length: 1_003 }, (_, i) => `${base}a/${String(i).padStart(4, '0')}.json`);
    const kept = [`${base}a`, `${base}ab/1.json`, `${base}b/1.json`];
    const keys = [...doomed, ...kept];
    for (let i = 0; i < keys.length; i += 25) {
      await Promise.all(keys.slice(i, i + 25).map((key) => objectStore.put(key, key)));
    }

    // ListObjectsV2 answers 1,000 keys at most: the rest comes with its continuation token.
    const { store, commands } = recordingStore();
    const listed: string[] = [];
    for await (const object of store.list(`${base}a/`)) listed.push(object.key);
    expect(listed).toEqual(doomed);
    expect(commands).toEqual(['ListObjectsV2', 'ListObjectsV2']);

    expect(await objectStore.deletePrefix(`${base}a/`)).toBe(1_003);
    const left: { key: string; bytes: number }[] = [];
    for await (const object of objectStore.list(base)) left.push(object);
    expect(left).toEqual(kept.map((key) => ({ key, bytes: Buffer.byteLength(key) })));
    expect(await objectStore.deletePrefix(`${base}a/`)).toBe(0);
    await expect(objectStore.deletePrefix('')).rejects.toThrow(RangeError);
  }, 60_000);
});

describe('the local object store refuses requests S3 would refuse', () => {
  const endpoint = () => process.env.S3_ENDPOINT as string;
  const bucket = () => loadConfig().documentsBucket;
  const guarded = `${prefix}guarded/document.json`;
  const original = '{"products":[]}';

  beforeAll(async () => {
    await objectStore.put(guarded, original, { contentType: 'application/json' });
  });

  /** Status and error code of a request sent with no signature at all (no Authorization, no X-Amz-*). */
  async function anonymous(method: string, path: string, body?: string) {
    const response = await fetch(`${endpoint()}${path}`, {
      method,
      ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
    });
    const text = await response.text();
    return { status: response.status, code: /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? null };
  }

  it('answers 403 AccessDenied to every unsigned request, and changes nothing', async () => {
    const object = `/${bucket()}/${guarded}`;
    const answers = {
      put: await anonymous('PUT', object, '{"defaced":true}'),
      putNew: await anonymous('PUT', `/${bucket()}/${prefix}guarded/new.json`, '{}'),
      get: await anonymous('GET', object),
      list: await anonymous('GET', `/${bucket()}?list-type=2&prefix=${encodeURIComponent(prefix)}`),
      listV1: await anonymous('GET', `/${bucket()}`),
      buckets: await anonymous('GET', '/'),
      delete: await anonymous('DELETE', object),
      createBucket: await anonymous('PUT', `/anonymous-${randomUUID()}`),
    };
    const refused = { status: 403, code: 'AccessDenied' };
    expect(answers).toEqual({
      put: refused,
      putNew: refused,
      get: refused,
      list: refused,
      listV1: refused,
      buckets: refused,
      delete: refused,
      createBucket: refused,
    });
    // A HEAD answers no body in S3 either: its status alone.
    expect((await fetch(`${endpoint()}${object}`, { method: 'HEAD' })).status).toBe(403);
    expect((await bytesOf(objectStore.read(guarded))).toString('utf8')).toBe(original);
    expect(await objectStore.head(`${prefix}guarded/new.json`)).toBeUndefined();
  });

  it.each([
    {
      name: 'the local key id and another secret',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'not-the-secret' },
      code: 'SignatureDoesNotMatch',
    },
    {
      name: 'an unknown key id',
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'S3RVER' },
      code: 'InvalidAccessKeyId',
    },
  ])('refuses requests signed with $name (403 $code)', async ({ credentials, code }) => {
    const client = createS3Client(loadConfig(), { credentials: async () => credentials });
    const store = createObjectStore({ client: () => client, bucket: () => loadConfig().documentsBucket });
    await expect(store.put(guarded, '{"defaced":true}')).rejects.toMatchObject({
      name: code,
      $metadata: { httpStatusCode: 403 },
    });
    await expect(bytesOf(store.read(guarded))).rejects.toMatchObject({ name: code });
    // A pre-signed URL made with these credentials does not work either.
    const { url } = await store.presignPut(guarded, {
      expiresInSeconds: 60,
      contentType: 'application/json',
    });
    const upload = await fetch(url, {
      method: 'PUT',
      body: '{"defaced":true}',
      headers: { 'content-type': 'application/json' },
    });
    expect(upload.status).toBe(403);
    expect(await upload.text()).toContain(`<Code>${code}</Code>`);
    expect((await bytesOf(objectStore.read(guarded))).toString('utf8')).toBe(original);
  });

  it('refuses a pre-signed URL whose signature was changed, and takes the one the service signed', async () => {
    const key = `${prefix}guarded/upload.json`;
    const { url } = await objectStore.presignPut(key, {
      expiresInSeconds: 60,
      contentType: 'application/json',
    });
    const forged = withAlteredSignature(url);
    const put = (target: string) =>
      fetch(target, {
        method: 'PUT',
        body: '{"uploaded":true}',
        headers: { 'content-type': 'application/json' },
      });
    const refused = await put(forged.toString());
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(await objectStore.head(key)).toBeUndefined();
    expect((await put(url)).status).toBe(200);
    expect((await bytesOf(objectStore.read(key))).toString('utf8')).toBe('{"uploaded":true}');
  });
});

/** The latin1 text of `length` bytes at `start` of the streamed test's document, regenerated. */
async function rangeOfGenerated(start: number, length: number): Promise<string> {
  let offset = 0;
  const parts: Buffer[] = [];
  for (let i = 0; offset < start + length; i++) {
    const chunk = Buffer.alloc(65_536 + (i % 7) * 1_001, `chunk ${i} ✓ `);
    if (offset + chunk.length > start) parts.push(chunk);
    offset += chunk.length;
  }
  const joined = Buffer.concat(parts);
  const skip = start - (offset - joined.length);
  return joined.subarray(skip, skip + length).toString('latin1');
}

/**
 * A TCP proxy to the object store that breaks the connection of each of its next `cuts` requests after
 * `after` bytes of its response: a connection reset in the middle of a download.
 */
async function cuttingProxy(target: string) {
  const { hostname, port } = new URL(target);
  const state = { cuts: 0, after: 1024 * 1024, requests: 0 };
  const server: Server = createServer((downstream) => {
    const upstream = connect(Number(port), hostname);
    let sent = 0;
    let cutAt = Number.POSITIVE_INFINITY;
    downstream.on('data', (chunk: Buffer) => {
      // Requests on a kept-alive connection: each starts with its method.
      if (/^[A-Z]+ \//.test(chunk.toString('latin1', 0, 16))) {
        state.requests += 1;
        cutAt = state.cuts > 0 ? sent + state.after : Number.POSITIVE_INFINITY;
        if (state.cuts > 0) state.cuts -= 1;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (sent + chunk.length >= cutAt) {
        downstream.end(chunk.subarray(0, cutAt - sent));
        downstream.destroy();
        upstream.destroy();
        return;
      }
      sent += chunk.length;
      downstream.write(chunk);
    });
    upstream.on('end', () => downstream.end());
    upstream.on('error', () => downstream.destroy());
    downstream.on('error', () => upstream.destroy());
    downstream.on('close', () => upstream.destroy());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    state,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

describe('objectStore reads through a broken connection', () => {
  const key = `${prefix}resumed.bin`;
  const expected = Buffer.alloc(3 * 1024 * 1024 + 17);
  for (let i = 0; i + 4 <= expected.length; i += 4) expected.writeUInt32LE(i, i);
  let proxy: Awaited<ReturnType<typeof cuttingProxy>>;
  let client: ReturnType<typeof createS3Client>;
  let store: ReturnType<typeof createObjectStore>;

  beforeAll(async () => {
    await objectStore.put(key, expected);
    proxy = await cuttingProxy(process.env.S3_ENDPOINT as string);
    client = createS3Client(loadConfig({ ...process.env, S3_ENDPOINT: proxy.endpoint }));
    store = createObjectStore({ client: () => client, bucket: () => loadConfig().documentsBucket });
  });
  afterAll(async () => {
    // Its kept-alive connections first: the proxy closes once its last connection has.
    client.destroy();
    await proxy.close();
  });
  beforeEach(() => {
    proxy.state.requests = 0;
  });

  it('resumes a whole read from the next byte and a ranged one within its range, every byte once', async () => {
    proxy.state.cuts = 1;
    expect((await bytesOf(store.read(key))).equals(expected)).toBe(true);
    expect(proxy.state.requests).toBe(2);

    proxy.state.cuts = 1;
    proxy.state.requests = 0;
    const range = { start: 12_345, end: 2_500_000 };
    const part = await bytesOf(store.read(key, range));
    expect(part.equals(expected.subarray(range.start, range.end + 1))).toBe(true);
    expect(proxy.state.requests).toBe(2);
  });

  it(`gives up after ${READ_RESUMES} resumes with the connection's error`, async () => {
    // Four responses of 256 KiB cannot make 3 MiB.
    Object.assign(proxy.state, { cuts: 100, after: 256 * 1024 });
    await expect(bytesOf(store.read(key))).rejects.toThrow();
    expect(proxy.state.requests).toBe(1 + READ_RESUMES);
    Object.assign(proxy.state, { cuts: 0, after: 1024 * 1024 });
  });
});
