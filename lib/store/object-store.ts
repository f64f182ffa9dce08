import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
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
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type Config, getConfig } from '../config/index';
import { credentialsFor } from './client';

/*
 * The documents bucket (DESIGN.md section 17): catalog release documents of up to a gigabyte and the
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
  /** The object's size, or undefined when there is no such key. */
  head(key: string): Promise<{ bytes: number } | undefined>;
  /** A pre-signed URL that lets anyone holding it PUT this key (with this Content-Type) until `expires_at`. */
  presignPut(
    key: string,
    options: { expiresInSeconds: number; contentType?: string },
  ): Promise<{ url: string; expires_at: string }>;
  /** The objects under `prefix`, in key order. */
  list(prefix: string): AsyncIterable<{ key: string; bytes: number }>;
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
/** A read that fails mid-body resumes with a ranged GET from the next byte this many times at most. */
export const READ_RESUMES = 3;
/** S3 refuses pre-signed URLs valid for longer than 7 days. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/**
 * s3rver's (local/object-store-local.ts) only key pair: it refuses any other access key id, so a local
 * endpoint is always signed with it, whatever AWS_ACCESS_KEY_ID says (the harness sets `local` there).
 */
export const LOCAL_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

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

/**
 * An object store over `client()` and `bucket()`, read at each call so that a reset client or
 * configuration is picked up. `objectStore` is the service's; tests build others (a proxy, a bucket).
 */
export function createObjectStore(source: { client(): S3Client; bucket(): string }): ObjectStore {
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
      await client.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (error) {
      if (uploadId !== undefined) {
        // Parts of an upload never completed are billed until aborted.
        await Promise.all(inFlight);
        await client
          .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
          .catch(() => undefined);
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
      try {
        const answer = await source
          .client()
          .send(new HeadObjectCommand({ Bucket: source.bucket(), Key: key }));
        return { bytes: answer.ContentLength ?? 0 };
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },

    async presignPut(key, { expiresInSeconds, contentType }) {
      if (
        !Number.isInteger(expiresInSeconds) ||
        expiresInSeconds < 1 ||
        expiresInSeconds > MAX_PRESIGN_SECONDS
      ) {
        throw new RangeError(
          `expiresInSeconds must be an integer from 1 to ${MAX_PRESIGN_SECONDS}, got ${expiresInSeconds}`,
        );
      }
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
