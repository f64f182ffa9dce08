import { createHash, createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { SignatureV4 } from '@smithy/signature-v4';
import { loadConfig } from '../../lib/config/index';
import {
  isRetryable,
  S3Error,
  S3Http,
  type S3Request,
  type S3Transport,
  SocketTransport,
  xmlEscape,
  xmlValue,
} from '../../lib/store/s3-http';
import { encodePath, payloadHash } from '../../lib/store/sigv4';

const SIGNED_AT = new Date('2026-01-02T03:04:05Z');
const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session/token+with=odd chars',
};
const KEY = 'deltas/a b/c+d~é!(x)&.json';

/** node:crypto as the SDK signer's hash (the SDK's own, @smithy/hash-node, is not installed here). */
type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytesOf = (data: SourceData): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);
class NodeSha256 {
  private readonly hash;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {}
}

/** What a stub transport answers: S3's status, headers and body, or a thrown network error. */
type Answer = () => { status: number; headers?: Record<string, string>; body?: string } | Promise<never>;

/** The requests `S3Http` hands to its transport, answered by `answers` in turn (the last one repeated). */
function stubTransport(...answers: Answer[]) {
  const sent: {
    url: string;
    method: string;
    headers: Record<string, string>;
    body: Uint8Array | undefined;
  }[] = [];
  const transport: S3Transport = {
    async send(request) {
      sent.push({
        url: `${request.url.origin}${request.path}`,
        method: request.method,
        headers: { ...request.headers },
        body: request.body,
      });
      const answer = await (answers[Math.min(sent.length, answers.length) - 1] as Answer)();
      const body = Readable.from(answer.body === undefined ? [] : [Buffer.from(answer.body)]);
      return { status: answer.status, headers: answer.headers ?? {}, body };
    },
  };
  return { sent, transport };
}

const xml = (status: number, body: string) => () => ({
  status,
  headers: { 'content-type': 'application/xml' },
  body,
});
const error = (code: string, status: number) =>
  xml(status, `<Error><Code>${code}</Code><Message>no</Message></Error>`);
const ok = () => ({ status: 200, headers: { etag: '"e"' } });

describe('S3Http signs requests as the AWS SDK does', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: SIGNED_AT.getTime(), doNotFake: ['nextTick', 'setImmediate'] });
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it.each<{ name: string; bucket: string; request: S3Request }>([
    {
      name: 'a PutObject of bytes with a content type (virtual-hosted)',
      bucket: 'commerce-documents',
      request: {
        operation: 'PutObject',
        method: 'PUT',
        key: KEY,
        headers: { 'content-type': 'application/json' },
        body: Buffer.from('{"é":1}'),
      },
    },
    {
      name: 'an UploadPart (query parameters)',
      bucket: 'commerce-documents',
      request: {
        operation: 'UploadPart',
        method: 'PUT',
        key: KEY,
        query: { partNumber: '2', uploadId: 'VXBsb2FkIElE+/=' },
        body: new Uint8Array(1000).fill(7),
      },
    },
    {
      name: 'a ListObjectsV2 of a bucket with dots (path-style, empty and odd values)',
      bucket: 'my.documents',
      request: {
        operation: 'ListObjectsV2',
        method: 'GET',
        query: { 'list-type': '2', prefix: "a b/(c)!*'", 'continuation-token': 'x=y+z/' },
      },
    },
    {
      name: 'a CreateMultipartUpload (a parameter without a value)',
      bucket: 'commerce-documents',
      request: { operation: 'CreateMultipartUpload', method: 'POST', key: KEY, query: { uploads: '' } },
    },
  ])('$name', async ({ bucket, request }) => {
    const { sent, transport } = stubTransport(ok);
    await new S3Http(loadConfig({ AWS_REGION: 'eu-west-1' }), {
      credentials: async () => CREDENTIALS,
      transport,
    }).sendForHeaders(bucket, request);
    const [{ url, method, headers, body }] = sent as [(typeof sent)[0]];
    const target = new URL(url);
    const query = Object.fromEntries(target.searchParams);
    const signer = new SignatureV4({
      service: 's3',
      region: 'eu-west-1',
      credentials: CREDENTIALS,
      sha256: NodeSha256,
      // S3's setting: the path is signed as sent, encoded once.
      uriEscapePath: false,
    });
    const { authorization: _ours, ...unsigned } = headers;
    const signed = await signer.sign(
      {
        method,
        protocol: target.protocol,
        hostname: target.hostname,
        path: target.pathname,
        query,
        headers: unsigned,
        body,
      },
      { signingDate: SIGNED_AT },
    );
    expect(headers.authorization).toBe(signed.headers.authorization);
    expect(headers['x-amz-content-sha256']).toBe(payloadHash(request.body ?? ''));
    expect(target.pathname).toBe(
      bucket.includes('.')
        ? `/${bucket}${request.key ? `/${encodePath(request.key)}` : ''}`
        : encodePath(`/${request.key ?? ''}`),
    );
  });
});

describe('S3Http answers and retries as the AWS SDK did', () => {
  const config = loadConfig({ S3_ENDPOINT: 'http://127.0.0.1:9320' });
  /** A client of the local endpoint whose transport answers `answers` in turn. */
  const answering = (...answers: Answer[]) => {
    const { sent, transport } = stubTransport(...answers);
    return { sent, client: new S3Http(config, { retryBaseMs: 1, transport }) };
  };
  const head: S3Request = { operation: 'HeadObject', method: 'HEAD', key: 'a.json' };
  const complete: S3Request = {
    operation: 'CompleteMultipartUpload',
    method: 'POST',
    key: 'a.json',
    query: { uploadId: 'u' },
    body: Buffer.from('<CompleteMultipartUpload/>'),
  };

  it('sends to the local endpoint path-style, signed with its key pair, the body with its length', async () => {
    const { sent, client } = answering(ok);
    await client.sendForHeaders('docs', head);
    expect(sent[0]?.url).toBe('http://127.0.0.1:9320/docs/a.json');
    expect(sent[0]?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=S3RVER\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, /,
    );
    expect(sent[0]?.headers.host).toBe('127.0.0.1:9320');
    expect(sent[0]?.body).toBeUndefined();
    await client.sendForHeaders('docs', { operation: 'HeadBucket', method: 'HEAD' });
    expect(sent[1]?.url).toBe('http://127.0.0.1:9320/docs');
    await client.sendForXml('docs', complete);
    expect(sent[2]?.url).toBe('http://127.0.0.1:9320/docs/a.json?uploadId=u');
    expect(sent[2]?.headers['content-length']).toBe('26');
    expect(sent[2]?.headers.authorization).toContain('SignedHeaders=content-length;host;');
  });

  it("names an error by S3's code, with its status, and a bodiless one by its status", async () => {
    await expect(
      answering(error('NoSuchKey', 404)).client.send('docs', { ...head, method: 'GET' }),
    ).rejects.toMatchObject({ name: 'NoSuchKey', $metadata: { httpStatusCode: 404, attempts: 1 } });
    await expect(
      answering(() => ({ status: 404 })).client.sendForHeaders('docs', head),
    ).rejects.toMatchObject({
      name: 'NotFound',
    });
    const refused = await answering(() => ({ status: 403 }))
      .client.sendForHeaders('docs', head)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(S3Error);
    expect(refused).toMatchObject({ name: 'HTTP403', $metadata: { httpStatusCode: 403 } });
  });

  it('retries throttling and 5xx answers, three attempts in all, and not the others', async () => {
    const throttled = answering(error('SlowDown', 503), error('InternalError', 500), ok);
    expect((await throttled.client.sendForHeaders('docs', head)).etag).toBe('"e"');
    expect(throttled.sent).toHaveLength(3);

    const down = answering(error('ServiceUnavailable', 503));
    await expect(down.client.sendForHeaders('docs', head)).rejects.toMatchObject({
      name: 'ServiceUnavailable',
      $metadata: { httpStatusCode: 503, attempts: 3 },
    });
    expect(down.sent).toHaveLength(3);

    const denied = answering(error('AccessDenied', 403));
    await expect(denied.client.sendForHeaders('docs', head)).rejects.toMatchObject({ name: 'AccessDenied' });
    expect(denied.sent).toHaveLength(1);
  });

  it('retries a request that got no answer (a refused or reset connection), with the same body', async () => {
    const reset = () => Promise.reject(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    const once = answering(reset, xml(200, '<CompleteMultipartUploadResult/>'));
    await once.client.sendForXml('docs', complete);
    expect(once.sent).toHaveLength(2);
    expect(Buffer.from(once.sent[1]?.body ?? []).toString()).toBe('<CompleteMultipartUpload/>');

    // The system error, as the SDK threw it; `$metadata` tells the store's failures from a caller's.
    await expect(answering(reset).client.sendForXml('docs', complete)).rejects.toMatchObject({
      message: 'read ECONNRESET',
      code: 'ECONNRESET',
      $metadata: { attempts: 3 },
    });
  });

  it('throws an <Error> answered with a 200 (CompleteMultipartUpload, copies), retrying an InternalError', async () => {
    const inside = xml(
      200,
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code></Error>',
    );
    const { sent, client } = answering(
      inside,
      xml(200, '<CompleteMultipartUploadResult><ETag>&quot;x&quot;</ETag></CompleteMultipartUploadResult>'),
    );
    expect(xmlValue(await client.sendForXml('docs', complete), 'ETag')).toBe('"x"');
    expect(sent).toHaveLength(2);

    const gone = answering(xml(200, '<Error><Code>NoSuchUpload</Code><Message>gone</Message></Error>'));
    await expect(gone.client.sendForXml('docs', complete)).rejects.toMatchObject({
      name: 'NoSuchUpload',
      message: 'CompleteMultipartUpload: gone (200)',
    });
  });

  it('gives up a request whose connection stays silent, retried, but not a slow body once answered', async () => {
    let requests = 0;
    const server = createServer((incoming, answer) => {
      requests += 1;
      incoming.resume();
      if (incoming.url?.startsWith('/docs/silent')) return; // never answers
      answer.writeHead(200, { etag: '"slow"' });
      answer.write('a');
      setTimeout(() => answer.end('b'), 300);
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const { port } = server.address() as AddressInfo;
    const transport = new SocketTransport(100);
    const client = new S3Http(loadConfig({ S3_ENDPOINT: `http://127.0.0.1:${port}` }), {
      retryBaseMs: 1,
      transport,
    });
    try {
      await expect(client.sendForHeaders('docs', { ...head, key: 'silent' })).rejects.toMatchObject({
        name: 'TimeoutError',
        $metadata: { attempts: 3 },
      });
      expect(requests).toBe(3);
      const slow = await client.send('docs', { ...head, method: 'GET', key: 'slow' });
      const chunks: Buffer[] = [];
      for await (const chunk of slow.body) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe('ab');
      expect(slow.headers.etag).toBe('"slow"');
    } finally {
      transport.destroy();
      server.closeAllConnections();
      await new Promise((closed) => server.close(closed));
    }
  });

  it('tells retryable errors apart', () => {
    expect(isRetryable(new S3Error('SlowDown', '', 503))).toBe(true);
    expect(isRetryable(new S3Error('HTTP429', '', 429))).toBe(true);
    expect(isRetryable(new S3Error('RequestTimeout', '', 400))).toBe(true);
    expect(isRetryable(new S3Error('NoSuchKey', '', 404))).toBe(false);
    expect(isRetryable(new S3Error('PreconditionFailed', '', 412))).toBe(false);
    expect(isRetryable(new Error('aborted'))).toBe(true);
    expect(isRetryable(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isRetryable(Object.assign(new Error('timed out'), { name: 'TimeoutError' }))).toBe(true);
    expect(isRetryable(Object.assign(new Error('x'), { code: 'ETIMEDOUT' }))).toBe(true);
    expect(isRetryable(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isRetryable(new RangeError('x'))).toBe(false);
  });
});

describe('S3 XML', () => {
  it('decodes the five entities and character references, and escapes element text', () => {
    expect(
      xmlValue('<Key>a &amp; b &lt;c&gt; &quot;d&quot; &apos;e&apos; &#233;&#x1F9E6;&#13;</Key>', 'Key'),
    ).toBe('a & b <c> "d" \'e\' é🧦\r');
    expect(xmlValue('<Contents><Key>x</Key></Contents>', 'Size')).toBeUndefined();
    expect(xmlEscape('a & <b> "c"')).toBe('a &amp; &lt;b&gt; "c"');
  });
});
