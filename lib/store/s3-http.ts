import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Config } from '../config/index';
import { credentialsFor } from './client';
import { type Http1Transport, poolOf } from './http1';
import { type AwsCredentials, encodePath, encodeQuery, payloadHash, presignUrl, signRequest } from './sigv4';

/*
 * S3's REST API over keep-alive sockets of lib/store/http1.ts (its answers streamed, at their reader's pace),
 * signed by lib/store/sigv4.ts: the requests of the documents bucket
 * (lib/store/object-store.ts, lib/store/object-urls.ts) without `@aws-sdk/client-s3`, which added about
 * 290 KiB to every function that touched the bucket (docs/performance.md). What callers relied on in the
 * SDK's client is kept: S3's XML errors (and the ones S3 sends with a 200) become errors named by their
 * `<Code>` with `$metadata.httpStatusCode`; throttling, 5xx and broken connections are retried, three
 * attempts in all with the SDK's jittered backoff; requests go to the endpoint and with the credentials
 * the SDK used (path-style with s3rver's key pair on a local endpoint). Not `fetch`: a process's first
 * `fetch` loads undici (about 25 ms) and its sockets held the process about 55 ms at exit, measured in
 * the cold-start bench (docs/performance.md).
 */

/**
 * s3rver's (local/object-store-local.ts) only key pair: it refuses any other access key id, so a local
 * endpoint is always signed with it, whatever AWS_ACCESS_KEY_ID says (the harness sets `local` there).
 */
export const LOCAL_S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** An error S3 answered: `name` is its code (`NoSuchKey`, `SlowDown`...), as the AWS SDK names it. */
export class S3Error extends Error {
  readonly $metadata: { httpStatusCode: number; attempts?: number };

  constructor(name: string, message: string, status: number) {
    super(message);
    this.name = name;
    this.$metadata = { httpStatusCode: status };
  }
}

/** One S3 operation on the bucket (no `key`) or on one of its objects. */
export interface S3Request {
  /** The operation's name in S3's API (`PutObject`, `UploadPart`...): error messages and tests name it. */
  operation: string;
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE';
  key?: string;
  /** Query parameters (`uploads`, `partNumber`...); an empty value is sent as `name=`. */
  query?: Record<string, string>;
  /** Lower-case names; all of them signed. */
  headers?: Record<string, string>;
  body?: Uint8Array;
}

/** What S3 answered: its status, its headers (lower-case names) and its body, unread. */
export interface S3Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: Readable;
}

/** One HTTP request as sent: the path with its query, encoded as signed. */
export interface S3HttpRequest {
  method: string;
  url: URL;
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

/** Sends HTTP requests: `SocketTransport` by default; tests hand in their own. */
export interface S3Transport {
  send(request: S3HttpRequest): Promise<S3Answer>;
  destroy?(): void;
}

/**
 * How long a request's connection may stay silent (nothing sent, nothing received) before its answer's
 * headers: then it is given up as a TimeoutError, which is retried. A slow upload is not silent; once the
 * headers are in, the body streams at the reader's pace, without a limit.
 */
const ANSWER_TIMEOUT_MS = 30_000;

/**
 * One pool of keep-alive sockets an origin (lib/store/http1.ts: at most 64 sockets each, idle ones never
 * keeping the process alive), without node's HTTP client: a function's first request to the bucket does not
 * load and compile it (about 6 ms of a cold start, docs/performance.md).
 */
export class SocketTransport implements S3Transport {
  constructor(private readonly silenceMs = ANSWER_TIMEOUT_MS) {}

  private readonly pools = new Map<string, Http1Transport>();

  send(request: S3HttpRequest): Promise<S3Answer> {
    return poolOf(this.pools, request.url).stream({
      method: request.method,
      path: request.path,
      headers: request.headers,
      body: request.body ?? '',
      timeoutMs: this.silenceMs,
      timeoutError: () =>
        Object.assign(new Error(`no answer: the connection was silent for ${this.silenceMs} ms`), {
          name: 'TimeoutError',
        }),
    });
  }

  destroy(): void {
    for (const pool of this.pools.values()) pool.destroy();
    this.pools.clear();
  }
}

export interface S3HttpOptions {
  /** How requests are sent; default: a SocketTransport of its own. */
  transport?: S3Transport;
  /** Where credentials come from; default: the configuration's (s3rver's pair on a local endpoint). */
  credentials?: () => Promise<AwsCredentials>;
  /** Attempts of a request in all (default 3, the SDK's). */
  maxAttempts?: number;
  /** Base of the jittered backoff between attempts (default 100 ms, the SDK's; throttling waits 5 times it). */
  retryBaseMs?: number;
}

/** The SDK's standard retry policy (@smithy/util-retry): 3 attempts, delays up to 20 s. */
const MAX_ATTEMPTS = 3;
const RETRY_BASE_MS = 100;
const THROTTLING_FACTOR = 5;
const MAX_DELAY_MS = 20_000;
/** Codes the SDK retries as throttling (with the longer backoff), and as transient. */
const THROTTLING_CODES = new Set([
  'SlowDown',
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestThrottled',
  'RequestThrottledException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'BandwidthLimitExceeded',
  'PriorRequestNotComplete',
]);
// InternalError also arrives in a 200 (CompleteMultipartUpload, copies): S3 asks for a retry then too.
const TRANSIENT_CODES = new Set(['RequestTimeout', 'RequestTimeoutException', 'InternalError']);
const TRANSIENT_STATUSES = new Set([500, 502, 503, 504]);
/** Connection failures (node's system errors; also found in an error's `cause`). */
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

const isThrottling = (error: unknown): boolean =>
  error instanceof S3Error && (THROTTLING_CODES.has(error.name) || error.$metadata.httpStatusCode === 429);

/** True when the same request may succeed if sent again. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof S3Error) {
    return (
      isThrottling(error) ||
      TRANSIENT_CODES.has(error.name) ||
      TRANSIENT_STATUSES.has(error.$metadata.httpStatusCode)
    );
  }
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
  }
  // node's own for an answer cut short (the server closed the connection mid-body), and a timeout.
  const { name, message } = error as { name?: unknown; message?: unknown };
  return (
    name === 'TimeoutError' || (error instanceof Error && /^(aborted|socket hang up)$/.test(String(message)))
  );
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Text of an XML element as S3 writes it: the five entities and character references decoded. */
function xmlText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, entity: string) =>
    entity.startsWith('#x')
      ? String.fromCodePoint(Number.parseInt(entity.slice(2), 16))
      : entity.startsWith('#')
        ? String.fromCodePoint(Number(entity.slice(1)))
        : (XML_ENTITIES[entity] as string),
  );
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Escapes text for an element of a request body (quotes need no escaping in element text). */
export function xmlEscape(text: string): string {
  return text.replace(/[&<>]/g, (c) => XML_ESCAPES[c] as string);
}

/**
 * The raw content of every `<tag>` element of `xml`, in order. S3's answers are fixed in shape (no
 * attributes on the elements read here, no CDATA, no element inside one of the same name), which is what
 * makes a pattern enough.
 */
export function xmlElements(xml: string, tag: string): string[] {
  return Array.from(
    xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g')),
    (match) => match[1] as string,
  );
}

/** The decoded text of the first `<tag>` element of `xml`, or undefined. */
export function xmlValue(xml: string, tag: string): string | undefined {
  const element = xmlElements(xml, tag)[0];
  return element === undefined ? undefined : xmlText(element);
}

/** An `<Error>` document (the whole answer, as S3 sends it): its code and message. */
const ERROR_DOCUMENT = /^\s*(?:<\?xml[^>]*\?>\s*)?<Error>/;

function errorFrom(status: number, text: string, operation: string): S3Error {
  const code = xmlValue(text, 'Code');
  // A HEAD's answer has no body: its status alone, named as the SDK names a 404.
  const name = code ?? (status === 404 ? 'NotFound' : `HTTP${status}`);
  return new S3Error(name, `${operation}: ${xmlValue(text, 'Message') ?? name} (${status})`, status);
}

/** Where a key of `bucket` (or the bucket itself, without one) is: the local endpoint path-style, else S3's virtual-hosted style (path-style for a bucket with dots, as the SDK does: its name would not match the TLS certificate). */
export function objectAddress(
  config: Config,
  bucket: string,
  key?: string,
): { origin: string; path: string } {
  // A bucket's own path is `/bucket` (s3rver checks the signature of `/bucket/` against `/bucket`).
  const under = key === undefined ? '' : `/${key}`;
  if (config.s3Endpoint !== undefined) {
    return { origin: new URL(config.s3Endpoint).origin, path: `/${bucket}${under}` };
  }
  if (bucket.includes('.')) {
    return { origin: `https://s3.${config.region}.amazonaws.com`, path: `/${bucket}${under}` };
  }
  return { origin: `https://${bucket}.s3.${config.region}.amazonaws.com`, path: under || '/' };
}

/** The container's credentials provider, built once per configuration (the CLIs' provider chain caches). */
let provider: { config: Config; credentials: () => Promise<AwsCredentials> } | undefined;

/** The credentials S3 requests are signed with: s3rver's pair on a local endpoint, else the environment's first. */
export function s3Credentials(config: Config): Promise<AwsCredentials> {
  if (config.s3Endpoint !== undefined) return Promise.resolve(LOCAL_S3_CREDENTIALS);
  if (provider?.config !== config) {
    // As for DynamoDB: the Lambda bundles replace the SDK's provider chain with one that reads the environment
    // only (lib/runtime/lambda-credential-provider.ts).
    provider = { config, credentials: credentialsFor({ ...config, dynamodbEndpoint: undefined }) };
  }
  return provider.credentials();
}

/** A pre-signed URL of one object: see `S3Http.presign`. */
export interface PresignRequest {
  method: 'GET' | 'PUT' | 'DELETE';
  /** The S3 operation, signed in the URL as the SDK signs it (`x-id`). */
  operation: string;
  key: string;
  expiresInSeconds: number;
  /** Headers a request with the URL must send (lower-case names), e.g. `content-type`. */
  headers?: Record<string, string>;
}

/**
 * A URL of one object of `bucket` that lets anyone holding it make `request` until it expires, signed at
 * `signingDate` with `credentials` (what a function that only hands out links bundles of this module).
 */
export function presignObject(
  config: Config,
  credentials: AwsCredentials,
  bucket: string,
  request: PresignRequest,
  signingDate: Date,
): string {
  return presignUrl(
    {
      method: request.method,
      ...objectAddress(config, bucket, request.key),
      query: { 'x-id': request.operation },
      ...(request.headers === undefined ? {} : { headers: request.headers }),
      expiresInSeconds: request.expiresInSeconds,
    },
    credentials,
    config.region,
    's3',
    signingDate,
  );
}

const EMPTY = new Uint8Array(0);

/** The whole of a short body. */
async function readText(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a body to its end, so that its connection goes back to the pool for the next request. */
async function drain(body: Readable): Promise<void> {
  for await (const _ of body);
}

/**
 * The error a request ended with, carrying `$metadata.attempts` as the SDK's errors do: a network error
 * gets a `$metadata` too, which tells the object store's failures from its callers' own (lib/pcm/cli-publish.ts).
 */
function withAttempts(error: unknown, attempts: number): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const failed = error as { $metadata?: Record<string, unknown> };
  failed.$metadata = { ...failed.$metadata, attempts };
  return error;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** S3 requests of one configuration (endpoint, region) with one set of credentials. */
export class S3Http {
  private readonly credentials: () => Promise<AwsCredentials>;
  private readonly transport: S3Transport;
  private readonly maxAttempts: number;
  private readonly retryBaseMs: number;

  constructor(
    readonly config: Config,
    options: S3HttpOptions = {},
  ) {
    this.credentials = options.credentials ?? (() => s3Credentials(config));
    this.transport = options.transport ?? new SocketTransport();
    this.maxAttempts = options.maxAttempts ?? MAX_ATTEMPTS;
    this.retryBaseMs = options.retryBaseMs ?? RETRY_BASE_MS;
  }

  /**
   * Sends `request` until it succeeds or fails for good: the answer (2xx) with its body unread, or the
   * S3Error (or network error) of the last attempt.
   */
  send(bucket: string, request: S3Request): Promise<S3Answer> {
    return this.exchange(bucket, request, async (response) => response);
  }

  /** Sends `request` and reads its short answer whole: its headers. */
  sendForHeaders(bucket: string, request: S3Request): Promise<S3Answer['headers']> {
    return this.exchange(bucket, request, async (response) => {
      await drain(response.body);
      return response.headers;
    });
  }

  /** Sends `request` and reads its XML answer; an `<Error>` answered with a 200 is thrown as any error. */
  sendForXml(bucket: string, request: S3Request): Promise<string> {
    return this.exchange(bucket, request, async (response) => {
      const text = await readText(response.body);
      if (ERROR_DOCUMENT.test(text)) throw errorFrom(response.status, text, request.operation);
      return text;
    });
  }

  /** Closes the connections kept alive for the next requests (idle ones never keep the process alive). */
  destroy(): void {
    this.transport.destroy?.();
  }

  /** A URL that lets anyone holding it make `request` until it expires, signed at `signingDate`. */
  async presign(bucket: string, request: PresignRequest, signingDate: Date): Promise<string> {
    return presignObject(this.config, await this.credentials(), bucket, request, signingDate);
  }

  private async exchange<T>(
    bucket: string,
    request: S3Request,
    read: (response: S3Answer) => Promise<T>,
  ): Promise<T> {
    const body = request.body ?? EMPTY;
    // Signed payload, as the SDK signs a body of known length: S3 checks the bytes it received.
    const hash = payloadHash(body);
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await this.attempt(bucket, request, body, hash);
        if (response.status < 200 || response.status > 299) {
          throw errorFrom(response.status, await readText(response.body), request.operation);
        }
        return await read(response);
      } catch (error) {
        if (attempt >= this.maxAttempts || !isRetryable(error)) throw withAttempts(error, attempt);
        const base = this.retryBaseMs * (isThrottling(error) ? THROTTLING_FACTOR : 1);
        await sleep(Math.random() * Math.min(MAX_DELAY_MS, base * 2 ** (attempt - 1)));
      }
    }
  }

  private async attempt(
    bucket: string,
    request: S3Request,
    body: Uint8Array,
    hash: string,
  ): Promise<S3Answer> {
    const { origin, path } = objectAddress(this.config, bucket, request.key);
    const url = new URL(origin);
    const encodedPath = encodePath(path);
    const query = encodeQuery(request.query ?? {});
    const sendsBody = request.method !== 'GET' && request.method !== 'HEAD';
    const headers = signRequest(
      {
        method: request.method,
        host: url.host,
        path: encodedPath,
        query,
        headers: {
          ...request.headers,
          'x-amz-content-sha256': hash,
          // Signed, as the SDK signs it: S3 refuses a body sent in chunks without its length.
          ...(sendsBody ? { 'content-length': String(body.byteLength) } : {}),
        },
        body,
      },
      await this.credentials(),
      this.config.region,
      's3',
    );
    return this.transport.send({
      method: request.method,
      url,
      path: `${encodedPath}${query === '' ? '' : `?${query}`}`,
      headers,
      ...(sendsBody ? { body } : {}),
    });
  }
}

/** The base64 MD5 of a body: `Content-MD5`, which S3 requires of a DeleteObjects request. */
export function contentMd5(body: Uint8Array): string {
  return createHash('md5').update(body).digest('base64');
}

let shared: S3Http | undefined;

/** The container's S3 requests for `config` (the current configuration's unless given), made once per configuration. */
export function s3HttpFor(config: Config): S3Http {
  if (shared?.config !== config) shared = new S3Http(config);
  return shared;
}

/** Drops the container's S3 requester and credentials (after resetConfig, when the endpoint or bucket changed). */
export function resetS3Http(): void {
  shared = undefined;
  provider = undefined;
}
