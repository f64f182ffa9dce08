import { type Config, getConfig } from '../config/index';
import { type ComposePart, type ComposePiece, composeParts } from './compose-parts';
import { presignedFor } from './object-urls';
import {
  contentMd5,
  resetS3Http,
  type S3Answer,
  S3Http,
  type S3HttpOptions,
  s3HttpFor,
  xmlElements,
  xmlEscape,
  xmlValue,
} from './s3-http';

/*
 * The documents bucket (docs/publishing.md): catalog release documents of up to a gigabyte and the
 * publishing workflow's files. The only module that knows S3's operations (sent by lib/store/s3-http.ts,
 * no S3 client); in AWS the bucket of the stack, locally the S3-compatible server of
 * local/object-store-local.ts (S3_ENDPOINT). Objects are streamed both ways and never held whole.
 */

/** Thrown by `read` for a key that does not exist. */
export class ObjectNotFoundError extends Error {
  override name = 'ObjectNotFound';
  constructor(readonly key: string) {
    super(`no object ${key} in the documents bucket`);
  }
}

/** A byte range of an object, both ends inclusive (HTTP's `Range: bytes=start-end`). */
export interface ByteRange {
  start: number;
  end: number;
}

/** What `put` stores: text (stored as UTF-8), bytes, or a stream of them of any length. */
export type ObjectBody = string | Uint8Array | AsyncIterable<Uint8Array | string>;

export interface ObjectStore {
  /** Stores an object: text and bytes in one PutObject, a stream as a multipart upload of 8 MiB parts. */
  put(key: string, body: ObjectBody, options?: { contentType?: string }): Promise<void>;
  /**
   * The object's bytes (or those of `range`) as they arrive. Nothing is requested until the first
   * `next()`, which throws ObjectNotFoundError for a missing key.
   */
  read(key: string, range?: ByteRange): AsyncIterable<Uint8Array>;
  /** The object's size and when it was stored (whole seconds, as S3 keeps it), or undefined when there is no such key. */
  head(key: string): Promise<{ bytes: number; last_modified: string } | undefined>;
  /**
   * Copies an object inside the bucket, server-side (no byte passes through this process): one CopyObject up
   * to COPY_PART_BYTES, past it a multipart copy (UploadPartCopy, COPY_PARTS_IN_FLIGHT parts at once), which
   * is faster and also takes objects over CopyObject's 5 GB. The source must not change meanwhile (the copy
   * fails rather than mix two versions); ObjectNotFoundError for a missing source. Answers the size copied.
   */
  copy(from: string, to: string): Promise<{ bytes: number }>;
  /**
   * Writes `to` as `pieces` in order: byte ranges of the object `from` and new texts (compose-parts.ts). A
   * range long enough to be a part of its own is copied server-side; only texts and the short ranges beside
   * them pass through this process, so an object of gigabytes with a few changes costs megabytes here.
   * The source must not change meanwhile (its copies are conditioned on its ETag); ObjectNotFoundError for a
   * missing source. Answers the bytes written and how many of them were copied server-side.
   */
  compose(
    to: string,
    from: string,
    pieces: readonly ComposePiece[],
    options?: { contentType?: string },
  ): Promise<{ bytes: number; copied: number }>;
  /** A pre-signed URL that lets anyone holding it PUT this key (with this Content-Type) until `expires_at`. */
  presignPut(
    key: string,
    options: { expiresInSeconds: number; contentType?: string },
  ): Promise<{ url: string; expires_at: string }>;
  /**
   * A pre-signed URL that lets anyone holding it GET this key until `expires_at` (lib/store/object-urls.ts
   * makes the same for functions that only hand out links).
   */
  presignGet(
    key: string,
    options: { expiresInSeconds: number },
  ): Promise<{ url: string; expires_at: string }>;
  /** The objects under `prefix`, in key order. */
  list(prefix: string): AsyncIterable<{ key: string; bytes: number }>;
  /**
   * Deletes the object at `key`; a missing key is not an error (S3's DeleteObject is idempotent;
   * lib/store/object-urls.ts does the same for functions that delete one object).
   */
  delete(key: string): Promise<void>;
  /**
   * Deletes every object under `prefix` (not empty), 1,000 a request; returns how many there were. With
   * `after`, the listing starts at once and the deleting waits for `after` to fulfil (a write that makes
   * the objects unneeded): the list's round trip overlaps it. When `after` rejects nothing is deleted and 0
   * is answered (its failure is its own caller's). Objects stored under the prefix after its first 1,000
   * were listed are not deleted: for prefixes nothing writes to once `after` is under way.
   */
  deletePrefix(prefix: string, options?: { after?: Promise<unknown> }): Promise<number>;
  /** Creates the bucket when missing (the local harness; the stack owns the bucket in AWS). */
  ensureBucket(): Promise<void>;
}

/**
 * The size of a streamed upload's parts. S3 wants at least 5 MiB (but the last) and at most 10,000 parts:
 * 8 MiB parts hold an object up to 78 GiB, and a 1 GB document is 120 requests.
 */
export const PART_BYTES = 8 * 1024 * 1024;
/** S3's smallest part of a multipart upload but the last (EntityTooSmall below it). */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
/**
 * Parts uploaded at once: one connection streams 50-90 MB/s from Lambda, a few in parallel fill it
 * better. A streamed `put` holds at most (PARTS_IN_FLIGHT + 1) parts: 40 MiB.
 */
const PARTS_IN_FLIGHT = 4;
/**
 * Objects up to this size are copied with one CopyObject, larger ones in parts of this size (more when 10,000
 * parts would not hold the object): a CopyObject of a gigabyte takes S3 tens of seconds, past an API
 * function's 10 s, while its parts copied side by side take a few.
 */
export const COPY_PART_BYTES = 64 * 1024 * 1024;
/** Parts of a multipart copy in flight at once: each is S3's own work, nothing passes through the function. */
const COPY_PARTS_IN_FLIGHT = 10;
/** S3's most parts in one multipart upload. */
const MAX_PARTS = 10_000;
/** A read that fails mid-body resumes with a ranged GET from the next byte this many times at most. */
export const READ_RESUMES = 3;

/** Builds the S3 requests of a configuration (tests: other credentials, an endpoint through a proxy). */
export function createS3Client(config: Config, options: S3HttpOptions = {}): S3Http {
  return new S3Http(config, options);
}

/** The container's S3 requests, for the current configuration. */
export function getS3Client(): S3Http {
  return s3HttpFor(getConfig());
}

/** Drops the container's S3 requests and credentials (after resetConfig, when the endpoint or bucket changed). */
export function resetObjectStoreClient(): void {
  resetS3Http();
}

/** A 404 for the key (HEAD answers have no body, hence no code); a missing bucket is a configuration error. */
function isNotFound(error: unknown): boolean {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name !== 'NoSuchBucket' && (name === 'NoSuchKey' || $metadata?.httpStatusCode === 404);
}

function checkRange(range: ByteRange | undefined): void {
  if (range === undefined) return;
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`a byte range needs integers 0 <= start <= end, got ${start}-${end}`);
  }
}

/** The `content-type` header of a request, when there is one. */
const typed = (contentType: string | undefined): Record<string, string> =>
  contentType === undefined ? {} : { 'content-type': contentType };

/** S3's XML namespace, on the root of the documents a request sends. */
const XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';

/** A part of a multipart upload, as CompleteMultipartUpload lists it. */
interface CompletedPart {
  number: number;
  etag: string | undefined;
}

/** A multipart upload of the bucket. */
interface Upload {
  client: S3Http;
  bucket: string;
  key: string;
  uploadId: string;
}

async function createUpload(
  client: S3Http,
  bucket: string,
  key: string,
  contentType: string | undefined,
): Promise<Upload> {
  const answer = await client.sendForXml(bucket, {
    operation: 'CreateMultipartUpload',
    method: 'POST',
    key,
    query: { uploads: '' },
    headers: typed(contentType),
  });
  const uploadId = xmlValue(answer, 'UploadId');
  if (!uploadId) throw new Error(`CreateMultipartUpload of ${key} answered no UploadId`);
  return { client, bucket, key, uploadId };
}

async function completeUpload(upload: Upload, parts: CompletedPart[]): Promise<void> {
  const listed = parts.map(
    ({ number, etag }) =>
      `<Part><PartNumber>${number}</PartNumber><ETag>${xmlEscape(etag ?? '')}</ETag></Part>`,
  );
  await upload.client.sendForXml(upload.bucket, {
    operation: 'CompleteMultipartUpload',
    method: 'POST',
    key: upload.key,
    query: { uploadId: upload.uploadId },
    headers: { 'content-type': 'application/xml' },
    body: Buffer.from(
      `<CompleteMultipartUpload xmlns="${XMLNS}">${listed.join('')}</CompleteMultipartUpload>`,
    ),
  });
}

/** Gives up an upload: its parts are billed until it is aborted. Best effort (the bucket's lifecycle aborts it later). */
async function abortUpload(upload: Upload): Promise<void> {
  await upload.client
    .sendForHeaders(upload.bucket, {
      operation: 'AbortMultipartUpload',
      method: 'DELETE',
      key: upload.key,
      query: { uploadId: upload.uploadId },
    })
    .catch(() => undefined);
}

/** A key as `x-amz-copy-source` names it: the bucket, then the key URL-encoded but for its slashes. */
function copySource(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

/** What a HEAD of an object tells. */
interface ObjectHead {
  bytes: number;
  lastModified: Date;
  etag: string | undefined;
  contentType: string | undefined;
}

/**
 * Part `number` of `upload`: bytes `start` to `end` (inclusive) of `from`, copied server-side
 * (UploadPartCopy), only while `from` is still the object `found` described (its ETag).
 */
async function copyPart(
  upload: Upload,
  from: string,
  found: ObjectHead,
  number: number,
  range: { start: number; end: number },
): Promise<CompletedPart> {
  const answer = await upload.client.sendForXml(upload.bucket, {
    operation: 'UploadPartCopy',
    method: 'PUT',
    key: upload.key,
    query: { partNumber: String(number), uploadId: upload.uploadId },
    headers: {
      'x-amz-copy-source': copySource(upload.bucket, from),
      'x-amz-copy-source-range': `bytes=${range.start}-${range.end}`,
      ...(found.etag === undefined ? {} : { 'x-amz-copy-source-if-match': found.etag }),
    },
  });
  return { number, etag: xmlValue(answer, 'ETag') };
}

/**
 * An object store over `client()` and `bucket()`, read at each call so that a reset client or
 * configuration is picked up. `objectStore` is the service's; tests build others (a proxy, a bucket, a
 * smaller `copyPartBytes` to copy in parts without a 64 MiB object).
 */
export function createObjectStore(
  source: { client(): S3Http; bucket(): string },
  tuning: { copyPartBytes?: number } = {},
): ObjectStore {
  async function headObject(key: string): Promise<ObjectHead | undefined> {
    let headers: S3Answer['headers'];
    try {
      headers = await source
        .client()
        .sendForHeaders(source.bucket(), { operation: 'HeadObject', method: 'HEAD', key });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    return {
      bytes: Number(headers['content-length'] ?? 0),
      lastModified: new Date(headers['last-modified'] ?? 0),
      etag: headers.etag,
      contentType: headers['content-type'],
    };
  }

  /** A multipart copy of `found.bytes` bytes in parts of `partBytes`, at most COPY_PARTS_IN_FLIGHT at once. */
  async function copyInParts(from: string, to: string, found: ObjectHead, partBytes: number): Promise<void> {
    const bucket = source.bucket();
    const upload = await createUpload(source.client(), bucket, to, found.contentType);
    const count = Math.ceil(found.bytes / partBytes);
    const parts: CompletedPart[] = [];
    let next = 0;
    const copyParts = async () => {
      while (next < count) {
        const n = next++;
        const start = n * partBytes;
        const end = Math.min(found.bytes, start + partBytes) - 1;
        parts[n] = await copyPart(upload, from, found, n + 1, { start, end });
      }
    };
    try {
      const copiers = Array.from({ length: Math.min(COPY_PARTS_IN_FLIGHT, count) }, copyParts);
      const failed = (await Promise.allSettled(copiers)).find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      await completeUpload(upload, parts);
    } catch (error) {
      await abortUpload(upload);
      throw error;
    }
  }

  /** The bytes of an uploaded part of a composition: its texts, and its ranges of `from` read. */
  async function partBytes(from: string, pieces: readonly ComposePiece[]): Promise<Buffer> {
    const buffers: Buffer[] = [];
    for (const piece of pieces) {
      if ('text' in piece) buffers.push(Buffer.from(piece.text, 'utf8'));
      else for await (const chunk of readObject(from, piece.copy)) buffers.push(Buffer.from(chunk));
    }
    return Buffer.concat(buffers);
  }

  async function compose(
    to: string,
    from: string,
    pieces: readonly ComposePiece[],
    contentType: string | undefined,
  ): Promise<{ bytes: number; copied: number }> {
    const found = await headObject(from);
    if (found === undefined) throw new ObjectNotFoundError(from);
    for (const piece of pieces) {
      if ('copy' in piece && piece.copy.end >= piece.copy.start) {
        checkRange(piece.copy);
        if (piece.copy.end >= found.bytes)
          throw new RangeError(`${from} has ${found.bytes} bytes, a piece asks for byte ${piece.copy.end}`);
      }
    }
    const parts = composeParts(pieces, MIN_PART_BYTES, tuning.copyPartBytes ?? COPY_PART_BYTES);
    if (parts.length > MAX_PARTS)
      throw new RangeError(`${parts.length} parts are more than S3 takes in one upload`);
    const copied = parts.reduce(
      (sum, part) => sum + ('copy' in part ? part.copy.end - part.copy.start + 1 : 0),
      0,
    );
    const only = parts[0];
    if (parts.length <= 1 && (only === undefined || 'upload' in only)) {
      // Nothing to copy server-side: one PutObject.
      const bytes = only === undefined ? Buffer.alloc(0) : await partBytes(from, only.upload);
      await putWhole(source.client(), to, bytes, contentType);
      return { bytes: bytes.length, copied: 0 };
    }
    const bucket = source.bucket();
    const upload = await createUpload(source.client(), bucket, to, contentType);
    const completed: CompletedPart[] = [];
    let bytes = 0;
    let next = 0;
    const sendParts = async () => {
      while (next < parts.length) {
        const n = next++;
        const part = parts[n] as ComposePart;
        const number = n + 1;
        if ('copy' in part) {
          completed[n] = await copyPart(upload, from, found, number, part.copy);
          bytes += part.copy.end - part.copy.start + 1;
        } else {
          const body = await partBytes(from, part.upload);
          const headers = await upload.client.sendForHeaders(bucket, {
            operation: 'UploadPart',
            method: 'PUT',
            key: to,
            query: { partNumber: String(number), uploadId: upload.uploadId },
            body,
          });
          completed[n] = { number, etag: headers.etag };
          bytes += body.length;
        }
      }
    };
    try {
      const senders = Array.from({ length: Math.min(PARTS_IN_FLIGHT, parts.length) }, () =>
        sendParts().catch((error: unknown) => {
          next = parts.length;
          throw error;
        }),
      );
      const failed = (await Promise.allSettled(senders)).find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      await completeUpload(upload, completed);
    } catch (error) {
      await abortUpload(upload);
      if (isNotFound(error)) throw new ObjectNotFoundError(from);
      throw error;
    }
    return { bytes, copied };
  }

  async function putStream(
    key: string,
    body: AsyncIterable<Uint8Array | string>,
    contentType: string | undefined,
  ): Promise<void> {
    const client = source.client();
    const bucket = source.bucket();
    let upload: Upload | undefined;
    const parts: CompletedPart[] = [];
    const inFlight = new Set<Promise<void>>();
    let failure: { error: unknown } | undefined;
    const send = (part: Buffer, to: Upload) => {
      const completed: CompletedPart = { number: parts.length + 1, etag: undefined };
      parts.push(completed);
      const sending: Promise<void> = client
        .sendForHeaders(bucket, {
          operation: 'UploadPart',
          method: 'PUT',
          key,
          query: { partNumber: String(completed.number), uploadId: to.uploadId },
          body: part,
        })
        .then(
          (headers) => {
            completed.etag = headers.etag;
          },
          (error: unknown) => {
            failure ??= { error };
          },
        )
        .finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    };
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    const take = () => {
      const part = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      return part;
    };
    try {
      for await (const chunk of body) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
        pending.push(bytes);
        pendingBytes += bytes.length;
        if (pendingBytes < PART_BYTES) continue;
        upload ??= await createUpload(client, bucket, key, contentType);
        send(take(), upload);
        while (inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(inFlight);
        if (failure) throw failure.error;
      }
      if (upload === undefined) {
        // Shorter than one part: one PutObject.
        await putWhole(client, key, take(), contentType);
        return;
      }
      if (pendingBytes > 0) send(take(), upload);
      await Promise.all(inFlight);
      if (failure) throw failure.error;
      await completeUpload(upload, parts);
    } catch (error) {
      if (upload !== undefined) {
        await Promise.all(inFlight);
        await abortUpload(upload);
      }
      throw error;
    }
  }

  async function putWhole(client: S3Http, key: string, bytes: Uint8Array, contentType: string | undefined) {
    await client.sendForHeaders(source.bucket(), {
      operation: 'PutObject',
      method: 'PUT',
      key,
      headers: typed(contentType),
      body: bytes,
    });
  }

  async function* readObject(key: string, range: ByteRange | undefined): AsyncGenerator<Uint8Array> {
    const client = source.client();
    const bucket = source.bucket();
    const start = range?.start ?? 0;
    // Bytes still owed; s3rver answers `bytes=0-0` with the whole object, so the end is enforced here.
    let remaining = range ? range.end - range.start + 1 : Number.POSITIVE_INFINITY;
    let etag: string | undefined;
    let resumes = 0;
    let offset = start;
    while (remaining > 0) {
      let response: S3Answer;
      try {
        response = await client.send(bucket, {
          operation: 'GetObject',
          method: 'GET',
          key,
          // The bytes as stored, even of an object stored with a Content-Encoding (one an uploader sent
          // with a pre-signed PUT): its ranges are the object's.
          query: { 'response-content-encoding': 'identity' },
          headers: {
            // A resumed read must see the same object: S3 answers 412 if it was replaced meanwhile.
            ...(etag === undefined ? {} : { 'if-match': etag }),
            ...(range || offset > 0
              ? { range: `bytes=${offset}-${range ? offset + remaining - 1 : ''}` }
              : {}),
          },
        });
      } catch (error) {
        if (isNotFound(error)) throw new ObjectNotFoundError(key);
        throw error;
      }
      etag ??= response.headers.etag;
      const chunks = response.body[Symbol.asyncIterator]();
      let ended = false;
      try {
        for (;;) {
          let step: IteratorResult<Buffer>;
          try {
            step = await chunks.next();
          } catch (error) {
            // The connection broke mid-body (a reset, a timeout): ask again from the next byte.
            if (++resumes > READ_RESUMES) throw error;
            break;
          }
          if (step.done) {
            ended = true;
            break;
          }
          let chunk: Uint8Array = step.value;
          if (chunk.length > remaining) chunk = chunk.subarray(0, remaining);
          remaining -= chunk.length;
          offset += chunk.length;
          if (chunk.length > 0) yield chunk;
          if (remaining <= 0) break;
        }
      } finally {
        // Stops the download when the reader stops early or the end was reached before the body's.
        if (!ended) response.body.destroy();
      }
      if (ended) return;
    }
  }

  return {
    async put(key, body, options = {}) {
      if (typeof body === 'string' || body instanceof Uint8Array) {
        const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
        await putWhole(source.client(), key, bytes, options.contentType);
        return;
      }
      await putStream(key, body, options.contentType);
    },

    read(key, range) {
      checkRange(range);
      return readObject(key, range);
    },

    async head(key) {
      const found = await headObject(key);
      if (found === undefined) return undefined;
      return { bytes: found.bytes, last_modified: found.lastModified.toISOString() };
    },

    async copy(from, to) {
      const found = await headObject(from);
      if (found === undefined) throw new ObjectNotFoundError(from);
      const { bytes } = found;
      const partBytes = Math.max(tuning.copyPartBytes ?? COPY_PART_BYTES, Math.ceil(bytes / MAX_PARTS));
      try {
        if (bytes <= partBytes) {
          const bucket = source.bucket();
          await source.client().sendForXml(bucket, {
            operation: 'CopyObject',
            method: 'PUT',
            key: to,
            headers: {
              'x-amz-copy-source': copySource(bucket, from),
              ...(found.etag === undefined ? {} : { 'x-amz-copy-source-if-match': found.etag }),
            },
          });
        } else {
          await copyInParts(from, to, found, partBytes);
        }
      } catch (error) {
        if (isNotFound(error)) throw new ObjectNotFoundError(from);
        throw error;
      }
      return { bytes };
    },

    compose(to, from, pieces, options = {}) {
      return compose(to, from, pieces, options.contentType);
    },

    presignPut(key, { expiresInSeconds, contentType }) {
      // Content-Type is signed: an upload must send the type it was granted.
      const headers = contentType === undefined ? undefined : typed(contentType);
      return presignedFor(expiresInSeconds, (signingDate) =>
        source
          .client()
          .presign(
            source.bucket(),
            { method: 'PUT', operation: 'PutObject', key, expiresInSeconds, ...(headers && { headers }) },
            signingDate,
          ),
      );
    },

    presignGet(key, { expiresInSeconds }) {
      return presignedFor(expiresInSeconds, (signingDate) =>
        source
          .client()
          .presign(
            source.bucket(),
            { method: 'GET', operation: 'GetObject', key, expiresInSeconds },
            signingDate,
          ),
      );
    },

    async *list(prefix) {
      for await (const page of listPages(prefix)) yield* page;
    },

    async delete(key) {
      await source
        .client()
        .sendForHeaders(source.bucket(), { operation: 'DeleteObject', method: 'DELETE', key });
    },

    async deletePrefix(prefix, options = {}) {
      if (prefix === '') throw new RangeError('deletePrefix needs a prefix: it never empties the bucket');
      const client = source.client();
      const bucket = source.bucket();
      // Whether to delete at all: `after` fulfilled (settled once, awaited before each page's deletion).
      const proceed = options.after?.then(
        () => true,
        () => false,
      );
      let deleted = 0;
      for await (const page of listPages(prefix)) {
        if (page.length === 0) continue;
        if (proceed !== undefined && !(await proceed)) return 0;
        const objects = page.map(({ key }) => `<Object><Key>${xmlEscape(key)}</Key></Object>`);
        const body = Buffer.from(`<Delete xmlns="${XMLNS}">${objects.join('')}<Quiet>true</Quiet></Delete>`);
        const answer = await client.sendForXml(bucket, {
          operation: 'DeleteObjects',
          method: 'POST',
          query: { delete: '' },
          // S3 requires a checksum of a DeleteObjects body.
          headers: { 'content-type': 'application/xml', 'content-md5': contentMd5(body) },
          body,
        });
        const failed = xmlElements(answer, 'Error')[0];
        if (failed !== undefined) {
          const [key, code, message] = ['Key', 'Code', 'Message'].map((tag) => xmlValue(failed, tag));
          throw new Error(`could not delete ${key}: ${code} ${message ?? ''}`.trim());
        }
        deleted += page.length;
      }
      return deleted;
    },

    async ensureBucket() {
      const client = source.client();
      const bucket = source.bucket();
      try {
        await client.sendForHeaders(bucket, { operation: 'HeadBucket', method: 'HEAD' });
      } catch (error) {
        if (!isNotFound(error)) throw error;
        await client.sendForHeaders(bucket, { operation: 'CreateBucket', method: 'PUT' });
      }
    },
  };

  /** The objects under `prefix` in key order, a page (at most 1,000) at a time: ListObjectsV2 with its continuation. */
  async function* listPages(prefix: string): AsyncGenerator<{ key: string; bytes: number }[]> {
    let token: string | undefined;
    do {
      const answer = await source.client().sendForXml(source.bucket(), {
        operation: 'ListObjectsV2',
        method: 'GET',
        query: {
          'list-type': '2',
          prefix,
          'max-keys': '1000',
          ...(token === undefined ? {} : { 'continuation-token': token }),
        },
      });
      yield xmlElements(answer, 'Contents').map((object) => ({
        key: xmlValue(object, 'Key') as string,
        bytes: Number(xmlValue(object, 'Size') ?? 0),
      }));
      token =
        xmlValue(answer, 'IsTruncated') === 'true' ? xmlValue(answer, 'NextContinuationToken') : undefined;
    } while (token);
  }
}

/** The documents bucket (DOCUMENTS_BUCKET), through the container's S3 requests. */
export const objectStore: ObjectStore = createObjectStore({
  client: getS3Client,
  bucket: () => getConfig().documentsBucket,
});
