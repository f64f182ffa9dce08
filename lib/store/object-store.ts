import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type Config, getConfig } from '../config/index';
import { credentialsFor } from './client';
import { checkPresignSeconds, deleteObject, LOCAL_S3_CREDENTIALS, presignGet } from './object-urls';

/*
 * The documents bucket (docs/publishing.md): catalog release documents of up to a gigabyte and the
 * publishing workflow's files. The only module that knows S3; in AWS the bucket of the stack, locally the
 * S3-compatible server of local/object-store-local.ts (S3_ENDPOINT). Objects are streamed both ways and
 * never held whole.
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
  /** A pre-signed URL that lets anyone holding it PUT this key (with this Content-Type) until `expires_at`. */
  presignPut(
    key: string,
    options: { expiresInSeconds: number; contentType?: string },
  ): Promise<{ url: string; expires_at: string }>;
  /**
   * A pre-signed URL that lets anyone holding it GET this key until `expires_at`, signed with the service's
   * credentials (lib/store/object-urls.ts, which functions that only hand out links import alone).
   */
  presignGet(
    key: string,
    options: { expiresInSeconds: number },
  ): Promise<{ url: string; expires_at: string }>;
  /** The objects under `prefix`, in key order. */
  list(prefix: string): AsyncIterable<{ key: string; bytes: number }>;
  /**
   * Deletes the object at `key`; a missing key is not an error (S3's DeleteObject is idempotent). Signed with
   * the service's credentials (lib/store/object-urls.ts, which functions that delete one object import alone).
   */
  delete(key: string): Promise<void>;
  /** Deletes every object under `prefix` (not empty), 1,000 a request; returns how many there were. */
  deletePrefix(prefix: string): Promise<number>;
  /** Creates the bucket when missing (the local harness; the stack owns the bucket in AWS). */
  ensureBucket(): Promise<void>;
}

/**
 * The size of a streamed upload's parts. S3 wants at least 5 MiB (but the last) and at most 10,000 parts:
 * 8 MiB parts hold an object up to 78 GiB, and a 1 GB document is 120 requests.
 */
export const PART_BYTES = 8 * 1024 * 1024;
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

/** Builds an S3 client for the given configuration: path-style requests and s3rver's keys on a local endpoint. */
export function createS3Client(config: Config, overrides: Partial<S3ClientConfig> = {}): S3Client {
  const client = new S3Client({
    region: config.region,
    ...(config.s3Endpoint === undefined
      ? // The environment's credentials first, as for DynamoDB: the Lambda bundles replace the SDK's
        // provider chain with one that has none (lib/runtime/lambda-credential-provider.ts).
        { credentials: credentialsFor({ ...config, dynamodbEndpoint: undefined }) }
      : { endpoint: config.s3Endpoint, forcePathStyle: true, credentials: LOCAL_S3_CREDENTIALS }),
    // The SDK's default (WHEN_SUPPORTED) adds CRC32 checksums: streamed bodies then go out aws-chunked with
    // a trailer, which s3rver refuses, and pre-signed PUT URLs carry the checksum of an empty body, which
    // S3 refuses for any real upload. Checksums stay on where S3 requires them (DeleteObjects).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...overrides,
  });
  if (config.s3Endpoint !== undefined) {
    // Path-style bucket requests (ListObjectsV2, DeleteObjects, HeadBucket...) go to `/bucket/`, and s3rver
    // checks their signature against `/bucket`: it refuses them all. `/bucket` is the same request to S3.
    client.middlewareStack.add(
      (next) => (args) => {
        const request = args.request as { path?: string };
        if (typeof request.path === 'string' && /^\/[^/]+\/$/.test(request.path)) {
          request.path = request.path.slice(0, -1);
        }
        return next(args);
      },
      { step: 'build', name: 'localBucketPath' },
    );
  }
  return client;
}

let s3Client: S3Client | undefined;

/** The container's single S3 client, created on first use. */
export function getS3Client(): S3Client {
  s3Client ??= createS3Client(getConfig());
  return s3Client;
}

/** Drops the container's S3 client (after resetConfig, when the endpoint or bucket changed). */
export function resetObjectStoreClient(): void {
  s3Client?.destroy();
  s3Client = undefined;
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

/** A multipart upload of the bucket. */
type UploadOf = { Bucket: string; Key: string; UploadId: string };

async function completeUpload(client: S3Client, upload: UploadOf, parts: CompletedPart[]): Promise<void> {
  await client.send(new CompleteMultipartUploadCommand({ ...upload, MultipartUpload: { Parts: parts } }));
}

/** Gives up an upload: its parts are billed until it is aborted. Best effort (the bucket's lifecycle aborts it later). */
async function abortUpload(client: S3Client, upload: UploadOf): Promise<void> {
  await client.send(new AbortMultipartUploadCommand(upload)).catch(() => undefined);
}

/** A key as `x-amz-copy-source` names it: the bucket, then the key URL-encoded but for its slashes. */
function copySource(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * An object store over `client()` and `bucket()`, read at each call so that a reset client or
 * configuration is picked up. `objectStore` is the service's; tests build others (a proxy, a bucket, a
 * smaller `copyPartBytes` to copy in parts without a 64 MiB object).
 */
export function createObjectStore(
  source: { client(): S3Client; bucket(): string },
  tuning: { copyPartBytes?: number } = {},
): ObjectStore {
  async function headObject(key: string) {
    try {
      return await source.client().send(new HeadObjectCommand({ Bucket: source.bucket(), Key: key }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** A multipart copy of `bytes` bytes in parts of `partBytes`, at most COPY_PARTS_IN_FLIGHT at once. */
  async function copyInParts(
    from: string,
    to: string,
    found: { bytes: number; etag: string | undefined; contentType: string | undefined },
    partBytes: number,
  ): Promise<void> {
    const client = source.client();
    const bucket = source.bucket();
    const uploadId = (
      await client.send(
        new CreateMultipartUploadCommand({ Bucket: bucket, Key: to, ContentType: found.contentType }),
      )
    ).UploadId as string;
    const count = Math.ceil(found.bytes / partBytes);
    const parts: CompletedPart[] = [];
    let next = 0;
    const copyParts = async () => {
      while (next < count) {
        const n = next++;
        const start = n * partBytes;
        const end = Math.min(found.bytes, start + partBytes) - 1;
        const answer = await client.send(
          new UploadPartCopyCommand({
            Bucket: bucket,
            Key: to,
            UploadId: uploadId,
            PartNumber: n + 1,
            CopySource: copySource(bucket, from),
            CopySourceRange: `bytes=${start}-${end}`,
            CopySourceIfMatch: found.etag,
          }),
        );
        parts[n] = { PartNumber: n + 1, ETag: answer.CopyPartResult?.ETag };
      }
    };
    try {
      const copiers = Array.from({ length: Math.min(COPY_PARTS_IN_FLIGHT, count) }, copyParts);
      const failed = (await Promise.allSettled(copiers)).find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      await completeUpload(client, { Bucket: bucket, Key: to, UploadId: uploadId }, parts);
    } catch (error) {
      await abortUpload(client, { Bucket: bucket, Key: to, UploadId: uploadId });
      throw error;
    }
  }

  async function putStream(
    key: string,
    body: AsyncIterable<Uint8Array | string>,
    contentType: string | undefined,
  ): Promise<void> {
    const client = source.client();
    const bucket = source.bucket();
    let uploadId: string | undefined;
    const parts: CompletedPart[] = [];
    const inFlight = new Set<Promise<void>>();
    let failure: { error: unknown } | undefined;
    const send = (part: Buffer, upload: string) => {
      const PartNumber = parts.length + 1;
      const completed: CompletedPart = { PartNumber };
      parts.push(completed);
      const sending: Promise<void> = client
        .send(
          new UploadPartCommand({
            Bucket: bucket,
            Key: key,
            UploadId: upload,
            PartNumber,
            Body: part,
            ContentLength: part.length,
          }),
        )
        .then(
          (answer) => {
            completed.ETag = answer.ETag;
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
        uploadId ??= (
          await client.send(
            new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }),
          )
        ).UploadId as string;
        send(take(), uploadId);
        while (inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(inFlight);
        if (failure) throw failure.error;
      }
      if (uploadId === undefined) {
        // Shorter than one part: one PutObject.
        const whole = take();
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: whole,
            ContentLength: whole.length,
            ContentType: contentType,
          }),
        );
        return;
      }
      if (pendingBytes > 0) send(take(), uploadId);
      await Promise.all(inFlight);
      if (failure) throw failure.error;
      await completeUpload(client, { Bucket: bucket, Key: key, UploadId: uploadId }, parts);
    } catch (error) {
      if (uploadId !== undefined) {
        await Promise.all(inFlight);
        await abortUpload(client, { Bucket: bucket, Key: key, UploadId: uploadId });
      }
      throw error;
    }
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
      let response: GetObjectCommandOutput;
      try {
        response = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: key,
            // A resumed read must see the same object: S3 answers 412 if it was replaced meanwhile.
            IfMatch: etag,
            Range: range || offset > 0 ? `bytes=${offset}-${range ? offset + remaining - 1 : ''}` : undefined,
          }),
        );
      } catch (error) {
        if (isNotFound(error)) throw new ObjectNotFoundError(key);
        throw error;
      }
      etag ??= response.ETag;
      const stream = (response.Body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      let ended = false;
      try {
        for (;;) {
          let step: IteratorResult<Uint8Array>;
          try {
            step = await stream.next();
          } catch (error) {
            // The connection broke mid-body (a reset, a timeout): ask again from the next byte.
            if (++resumes > READ_RESUMES) throw error;
            break;
          }
          if (step.done) {
            ended = true;
            break;
          }
          let chunk = step.value;
          if (chunk.length > remaining) chunk = chunk.subarray(0, remaining);
          remaining -= chunk.length;
          offset += chunk.length;
          if (chunk.length > 0) yield chunk;
          if (remaining <= 0) break;
        }
      } finally {
        // Stops the download when the reader stops early or the end was reached before the body's.
        await stream.return?.();
      }
      if (ended) return;
    }
  }

  return {
    async put(key, body, options = {}) {
      if (typeof body === 'string' || body instanceof Uint8Array) {
        const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
        await source.client().send(
          new PutObjectCommand({
            Bucket: source.bucket(),
            Key: key,
            Body: bytes,
            ContentLength: bytes.length,
            ContentType: options.contentType,
          }),
        );
        return;
      }
      await putStream(key, body, options.contentType);
    },

    read(key, range) {
      checkRange(range);
      return readObject(key, range);
    },

    async head(key) {
      const answer = await headObject(key);
      if (answer === undefined) return undefined;
      return {
        bytes: answer.ContentLength ?? 0,
        last_modified: (answer.LastModified ?? new Date(0)).toISOString(),
      };
    },

    async copy(from, to) {
      const answer = await headObject(from);
      if (answer === undefined) throw new ObjectNotFoundError(from);
      const bytes = answer.ContentLength ?? 0;
      const partBytes = Math.max(tuning.copyPartBytes ?? COPY_PART_BYTES, Math.ceil(bytes / MAX_PARTS));
      try {
        if (bytes <= partBytes) {
          await source.client().send(
            new CopyObjectCommand({
              Bucket: source.bucket(),
              Key: to,
              CopySource: copySource(source.bucket(), from),
              CopySourceIfMatch: answer.ETag,
            }),
          );
        } else {
          const found = { bytes, etag: answer.ETag, contentType: answer.ContentType };
          await copyInParts(from, to, found, partBytes);
        }
      } catch (error) {
        if (isNotFound(error)) throw new ObjectNotFoundError(from);
        throw error;
      }
      return { bytes };
    },

    async presignPut(key, { expiresInSeconds, contentType }) {
      checkPresignSeconds(expiresInSeconds);
      // SigV4 dates have whole seconds: sign at a whole second so that expires_at is exactly the URL's.
      // (Signed with temporary credentials, as in Lambda, the URL also stops working when they expire.)
      const signingDate = new Date(Math.floor(Date.now() / 1000) * 1000);
      const url = await getSignedUrl(
        source.client(),
        new PutObjectCommand({ Bucket: source.bucket(), Key: key, ContentType: contentType }),
        // Content-Type is signed: an upload must send the type it was granted.
        { expiresIn: expiresInSeconds, signingDate, signableHeaders: new Set(['content-type']) },
      );
      return { url, expires_at: new Date(signingDate.getTime() + expiresInSeconds * 1000).toISOString() };
    },

    presignGet(key, options) {
      return presignGet(source.bucket(), key, options);
    },

    async *list(prefix) {
      let token: string | undefined;
      do {
        const page = await source
          .client()
          .send(
            new ListObjectsV2Command({ Bucket: source.bucket(), Prefix: prefix, ContinuationToken: token }),
          );
        for (const object of page.Contents ?? []) {
          yield { key: object.Key as string, bytes: object.Size ?? 0 };
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },

    delete(key) {
      return deleteObject(source.bucket(), key);
    },

    async deletePrefix(prefix) {
      if (prefix === '') throw new RangeError('deletePrefix needs a prefix: it never empties the bucket');
      const client = source.client();
      const bucket = source.bucket();
      let deleted = 0;
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({
            Bucket: bucket,
            Prefix: prefix,
            MaxKeys: 1000,
            ContinuationToken: token,
          }),
        );
        const objects = (page.Contents ?? []).map((object) => ({ Key: object.Key as string }));
        if (objects.length > 0) {
          const answer = await client.send(
            new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }),
          );
          const failed = answer.Errors?.[0];
          if (failed) {
            throw new Error(`could not delete ${failed.Key}: ${failed.Code} ${failed.Message ?? ''}`.trim());
          }
          deleted += objects.length;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return deleted;
    },

    async ensureBucket() {
      const client = source.client();
      const bucket = source.bucket();
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
      } catch (error) {
        if (!isNotFound(error)) throw error;
        await client.send(new CreateBucketCommand({ Bucket: bucket }));
      }
    },
  };
}

/** The documents bucket (DOCUMENTS_BUCKET) through the container's S3 client. */
export const objectStore: ObjectStore = createObjectStore({
  client: getS3Client,
  bucket: () => getConfig().documentsBucket,
});
