import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { timeProcess } from '../../bench/cold-start';
import { startTlsFront } from '../../bench/tls-front';
import {
  AnswerReader,
  HTTP1_TRACE_CHANNEL,
  type Http1Request,
  http1Transport,
  MAX_HEAD_BYTES,
} from '../../lib/store/http1';

/**
 * A raw TCP server: each connection's bytes are handed to `answer` with the connection, which writes what
 * it likes. Requests seen are recorded (as text) with the connection's number.
 */
interface RawServer {
  url: URL;
  seen: { connection: number; text: string }[];
  connections: number;
  answer: (socket: Socket, request: string) => void;
  close(): Promise<void>;
}

async function rawServer(): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const raw: RawServer = {
    url: new URL('http://127.0.0.1'),
    seen: [],
    connections: 0,
    answer: (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'),
    close: async () => undefined,
  };
  const server: Server = createServer((socket) => {
    const connection = ++raw.connections;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end === -1) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const text = buffered.slice(0, end + 4 + length);
        buffered = buffered.slice(end + 4 + length);
        raw.seen.push({ connection, text });
        raw.answer(socket, text);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  raw.url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  raw.close = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return raw;
}

const request = (overrides: Partial<Http1Request> = {}): Http1Request => ({
  method: 'POST',
  path: '/',
  headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.GetItem' },
  body: '{"TableName":"t"}',
  timeoutMs: 2000,
  timeoutError: () => Object.assign(new Error('Test request timed out'), { code: 'ETIMEDOUT' }),
  ...overrides,
});

let server: RawServer;
beforeEach(async () => {
  server = await rawServer();
});
afterEach(() => server.close());

describe('an HTTP/1.1 transport', () => {
  it('sends the method, path, headers, the origin as Host and the body with its length', async () => {
    const transport = http1Transport(server.url);
    const answer = await transport.send(request({ body: '{"k":"é"}' }));
    expect([answer.status, answer.body.toString()]).toEqual([200, 'ok']);
    const text = server.seen[0]?.text ?? '';
    expect(text.startsWith('POST / HTTP/1.1\r\n')).toBe(true);
    expect(text).toContain(`host: ${server.url.host}\r\n`);
    expect(text).toContain('x-amz-target: DynamoDB_20120810.GetItem\r\n');
    // The length in bytes, not characters.
    expect(text).toContain('content-length: 10\r\n');
    expect(Buffer.from(text, 'latin1').toString('utf8').endsWith('\r\n\r\n{"k":"é"}')).toBe(true);
    transport.destroy();
  });

  it("keeps a signed request's own Host, sends one Host and one Content-Length", async () => {
    const transport = http1Transport(server.url);
    await transport.send(request({ headers: { host: 'dynamodb.example', 'content-length': '99' } }));
    const text = server.seen[0]?.text ?? '';
    expect(text.match(/^host:/gim)).toHaveLength(1);
    expect(text).toContain('host: dynamodb.example\r\n');
    expect(text.match(/^content-length:/gim)).toEqual(['content-length:']);
    expect(text).toContain(`content-length: ${request().body.length}\r\n`);
    transport.destroy();
  });

  it('refuses a header holding a line break before sending anything', async () => {
    const transport = http1Transport(server.url);
    await expect(transport.send(request({ headers: { 'x-a': 'b\r\nx-injected: 1' } }))).rejects.toThrow(
      /line break/,
    );
    expect([server.seen, server.connections]).toEqual([[], 0]);
    transport.destroy();
  });

  it('sends requests one after another over one kept connection', async () => {
    const transport = http1Transport(server.url);
    for (let i = 0; i < 3; i += 1) await transport.send(request());
    expect(server.seen.map((seen) => seen.connection)).toEqual([1, 1, 1]);
    transport.destroy();
  });

  it('opens a connection for each request sent at once, up to maxSockets; the rest wait their turn', async () => {
    const held: Socket[] = [];
    server.answer = (socket) => held.push(socket);
    const transport = http1Transport(server.url, 2);
    const sent = Promise.all([1, 2, 3].map(() => transport.send(request())));
    await waitFor(() => server.seen.length === 2);
    expect(server.connections).toBe(2);
    for (const socket of held.splice(0)) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    server.answer = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    await waitFor(() => server.seen.length === 3);
    // The third went out on a connection the first two freed, not a new one.
    expect(server.connections).toBe(2);
    for (const socket of held.splice(0)) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect((await sent).map((answer) => answer.status)).toEqual([200, 200, 200]);
    transport.destroy();
  });

  it('reads a chunked body, skips an interim 100 answer and joins repeated headers', async () => {
    server.answer = (socket) => {
      socket.write('HTTP/1.1 100 Continue\r\n\r\n');
      socket.write('HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\nx-a: 2\r\n\r\n');
      socket.write('5;ext=1\r\nhello\r\n');
      socket.write('6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n');
    };
    const transport = http1Transport(server.url);
    const answer = await transport.send(request());
    expect([answer.status, answer.body.toString(), answer.headers['x-a']]).toEqual([
      400,
      'hello world',
      '1, 2',
    ]);
    // The chunked answer ended where its framing said: the connection carries the next request.
    await transport.send(request());
    expect(server.connections).toBe(1);
    transport.destroy();
  });

  it('reads a body without a length to the end of the connection, and opens another for the next', async () => {
    server.answer = (socket) => socket.end('HTTP/1.1 200 OK\r\n\r\nall of it');
    const transport = http1Transport(server.url);
    expect((await transport.send(request())).body.toString()).toBe('all of it');
    server.answer = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect((await transport.send(request())).body.toString()).toBe('ok');
    expect(server.connections).toBe(2);
    transport.destroy();
  });

  it('closes a connection the answer says is closing, and one that sent more than its answer', async () => {
    server.answer = (socket) =>
      socket.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    const transport = http1Transport(server.url);
    await transport.send(request());
    server.answer = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA');
    expect((await transport.send(request())).body.toString()).toBe('ok');
    server.answer = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    await transport.send(request());
    expect(server.connections).toBe(3);
    transport.destroy();
  });

  it('opens a new connection when the server closed the idle one', async () => {
    server.answer = (socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
      setTimeout(() => socket.end(), 5);
    };
    const transport = http1Transport(server.url);
    await transport.send(request());
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await transport.send(request())).status).toBe(200);
    expect(server.connections).toBe(2);
    transport.destroy();
  });

  it('fails with ECONNRESET when the connection ends before the answer does', async () => {
    server.answer = (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort');
    const transport = http1Transport(server.url);
    await expect(transport.send(request())).rejects.toMatchObject({ code: 'ECONNRESET' });
    server.answer = (socket) => socket.destroy();
    await expect(transport.send(request())).rejects.toMatchObject({ code: 'ECONNRESET' });
    transport.destroy();
  });

  it("fails with the caller's timeout error when the server says nothing, and drops the connection", async () => {
    server.answer = () => undefined;
    const transport = http1Transport(server.url);
    await expect(transport.send(request({ timeoutMs: 50 }))).rejects.toMatchObject({
      message: 'Test request timed out',
      code: 'ETIMEDOUT',
    });
    server.answer = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect((await transport.send(request())).status).toBe(200);
    expect(server.connections).toBe(2);
    transport.destroy();
  });

  it('fails with the socket error code when nothing listens', async () => {
    const url = server.url;
    await server.close();
    const transport = http1Transport(url);
    await expect(transport.send(request())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    server = await rawServer();
    transport.destroy();
  });

  it('fails on an answer that is not HTTP, and on a malformed length', async () => {
    server.answer = (socket) => socket.write('SSH-2.0-OpenSSH\r\n\r\n');
    const transport = http1Transport(server.url);
    await expect(transport.send(request())).rejects.toThrow(/not an HTTP\/1.1 answer/);
    server.answer = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n');
    await expect(transport.send(request())).rejects.toThrow(/Content-Length/);
    transport.destroy();
  });

  it('speaks TLS to an https origin, verifying its certificate against what the process trusts', async () => {
    const front = await startTlsFront(server.url.origin);
    try {
      const module = pathToFileURL(join(__dirname, '../../lib/store/http1.ts')).href;
      const script = `import { http1Transport } from ${JSON.stringify(module)};
const transport = http1Transport(new URL(process.argv[1]));
const send = () => transport.send({ method: 'POST', path: '/', headers: {}, body: '{}', timeoutMs: 5000, timeoutError: () => new Error('timed out') });
try { const answer = await send(); await send(); console.log(answer.status, answer.body.toString()); }
catch (error) { console.log(error.code ?? error.message); }
transport.destroy();`;
      const run = (env: NodeJS.ProcessEnv) =>
        timeProcess(['--import', 'tsx', '--input-type=module', '-e', script, front.endpoint], env).then(
          (done) => done.stdout.trim(),
        );
      // The front's certificate is for 127.0.0.1, trusted through the variable the front hands on.
      expect(await run({ ...process.env, ...front.env })).toBe('200 ok');
      expect(server.connections).toBe(1);
      const { NODE_EXTRA_CA_CERTS: _trusted, ...untrusting } = process.env;
      expect(await run(untrusting)).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    } finally {
      await front.close();
    }
  }, 30_000);

  it('publishes each request on its trace channel when someone listens', async () => {
    const messages: unknown[] = [];
    const listener = (message: unknown) => messages.push(message);
    subscribe(HTTP1_TRACE_CHANNEL, listener);
    try {
      const transport = http1Transport(server.url);
      await transport.send(request());
      transport.destroy();
    } finally {
      unsubscribe(HTTP1_TRACE_CHANNEL, listener);
    }
    const sent = { method: 'POST', path: '/', target: 'DynamoDB_20120810.GetItem' };
    expect(messages).toEqual([
      { phase: 'start', request: sent },
      { phase: 'end', request: sent },
    ]);
    // One object for both phases: a listener pairs them by it.
    const [start, end] = messages as { request: unknown }[];
    expect(start?.request).toBe(end?.request);
  });
});

/** The whole of a stream's bytes. */
async function readAll(body: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe("an HTTP/1.1 transport's streamed answers", () => {
  it('answers at the head and holds the socket back while the reader does not read', async () => {
    const size = 8 * 1024 * 1024;
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i += 1) bytes[i] = (i * 31) % 251;
    server.answer = (socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${size}\r\nETag: "e"\r\n\r\n`);
      socket.write(bytes);
    };
    const transport = http1Transport(server.url);
    const answer = await transport.stream(request({ method: 'GET', body: '' }));
    expect([answer.status, answer.headers.etag]).toEqual([200, '"e"']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Paused at the stream's buffer, not 8 MiB read into memory: the rest waits in the connection.
    expect(answer.body.readableLength).toBeLessThan(256 * 1024);
    expect((await readAll(answer.body)).equals(bytes)).toBe(true);
    // Read to its end: the socket carries the next request.
    server.answer = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect((await transport.send(request())).body.toString()).toBe('ok');
    expect(server.connections).toBe(1);
    transport.destroy();
  });

  it('hands on a chunked body as it arrives, before its end', async () => {
    let rest: (() => void) | undefined;
    server.answer = (socket) => {
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfir');
      rest = () => socket.write('st\r\n4\r\nlast\r\n0\r\n\r\n');
    };
    const transport = http1Transport(server.url);
    const answer = await transport.stream(request());
    const chunks = answer.body[Symbol.asyncIterator]();
    expect(String((await chunks.next()).value)).toBe('fir');
    rest?.();
    let after = '';
    for (let step = await chunks.next(); !step.done; step = await chunks.next()) after += String(step.value);
    expect(after).toBe('stlast');
    server.answer = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect((await transport.send(request())).status).toBe(200);
    expect(server.connections).toBe(1);
    transport.destroy();
  });

  it('closes the connection of a body its reader stops early, and fails one the connection cuts short', async () => {
    let first: Socket | undefined;
    server.answer = (socket) => {
      first = socket;
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nfirst');
    };
    const transport = http1Transport(server.url);
    const stopped = await transport.stream(request());
    for await (const chunk of stopped.body) {
      expect(String(chunk)).toBe('first');
      break; // destroys the stream
    }
    // The rest of that answer is never read: its connection is closed, not kept.
    await new Promise((closed) => first?.once('close', closed));
    server.answer = (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort');
    const cut = await transport.stream(request());
    await expect(readAll(cut.body)).rejects.toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
    expect(server.connections).toBe(2);
    server.answer = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect((await readAll((await transport.stream(request())).body)).toString()).toBe('ok');
    expect(server.connections).toBe(3);
    transport.destroy();
  });

  it("fails with the caller's timeout error only while it waits for the head", async () => {
    server.answer = () => undefined;
    const transport = http1Transport(server.url);
    await expect(transport.stream(request({ timeoutMs: 50 }))).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    server.answer = (socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\na');
      setTimeout(() => socket.write('b'), 150);
    };
    const slow = await transport.stream(request({ timeoutMs: 50 }));
    expect((await readAll(slow.body)).toString()).toBe('ab');
    transport.destroy();
  });

  it('sends a binary body with its length, a GET without one, and reads no body of a HEAD', async () => {
    const transport = http1Transport(server.url);
    const binary = new Uint8Array([0, 255, 13, 10, 1]);
    await readAll((await transport.stream(request({ method: 'PUT', body: binary }))).body);
    const put = server.seen[0]?.text ?? '';
    expect(put).toContain('content-length: 5\r\n');
    expect(Buffer.from(put.slice(put.indexOf('\r\n\r\n') + 4), 'latin1').equals(Buffer.from(binary))).toBe(
      true,
    );
    server.answer = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n');
    const head = await transport.stream(request({ method: 'HEAD', body: '' }));
    expect([head.headers['content-length'], (await readAll(head.body)).length]).toEqual(['7', 0]);
    expect(server.seen[1]?.text).not.toMatch(/content-length/i);
    server.answer = (socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    await readAll((await transport.stream(request({ method: 'GET', body: '' }))).body);
    expect(server.seen[2]?.text).toMatch(/^GET \/ HTTP\/1.1\r\n/);
    expect(server.seen[2]?.text).not.toMatch(/content-length/i);
    expect(server.connections).toBe(1);
    transport.destroy();
  });
});

describe('AnswerReader', () => {
  it('reads an answer split at every byte', () => {
    const bytes = Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n');
    const reader = new AnswerReader();
    let done = false;
    for (const byte of bytes) done = reader.push(Buffer.from([byte]));
    expect(done).toBe(true);
    expect(reader.answer()?.body.toString()).toBe('abc');
    expect([reader.framed, reader.overrun]).toEqual([true, false]);
  });

  it('reads no body for a HEAD request, a 204 and a 304', () => {
    const head = new AnswerReader(true);
    expect(head.push(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n'))).toBe(true);
    for (const status of ['204 No Content', '304 Not Modified']) {
      const reader = new AnswerReader();
      expect(reader.push(Buffer.from(`HTTP/1.1 ${status}\r\n\r\n`))).toBe(true);
      expect(reader.answer()?.body.length).toBe(0);
    }
  });

  it('refuses a head larger than it reads', () => {
    const reader = new AnswerReader();
    expect(() => reader.push(Buffer.alloc(MAX_HEAD_BYTES + 1, 'a'))).toThrow(/too large/);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error('timed out waiting');
}
