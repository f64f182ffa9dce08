import { channel } from 'node:diagnostics_channel';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { Readable } from 'node:stream';

/**
 * HTTP/1.1 requests to one origin (an AWS endpoint, DynamoDB Local, S3 or the local object store) over
 * keep-alive sockets of node's `net` or `tls`, without node's HTTP client. The clients of lib/store that
 * speak the AWS JSON protocol (DynamoDB, Step Functions, SQS) send through it, each request a small body out
 * and one answer in, read whole (`send`); the object store's client too, its answers streamed (`stream`).
 * Node's `http` module and its first request cost a fresh process about 6 ms here (loading `_http_*` and
 * compiling the functions of its request path: docs/performance.md), which every function's cold start paid
 * at its first DynamoDB request, and every function that reads or writes the object store at its first
 * request there.
 *
 * What it does: one request at a time a socket, `Host` and `Content-Length` set from the request (no
 * `Content-Length` on a GET or HEAD without a body); an
 * answer's body framed by `Content-Length`, by chunked transfer coding, or (without either) by the end of
 * the connection; 1xx answers skipped; sockets kept for the next request unless the answer said
 * `Connection: close`, ran to the connection's end or was followed by more bytes; at most `maxSockets` at
 * once (more requests wait their turn); idle ones not keeping the process alive and dropped when the server
 * closes them. A request fails with the socket's error
 * (`ECONNRESET`, `ECONNREFUSED`, `EPIPE`: its `code` kept for the callers' retries), with `timeoutError()`
 * when the socket is idle for `timeoutMs`, or with an `ECONNRESET` when the connection ends before the
 * answer does.
 */
export interface Http1Request {
  method: string;
  path: string;
  /** The request's headers, names in lower case; `Host` defaults to the origin's, `Content-Length` is the body's. */
  headers: Record<string, string>;
  body: string | Uint8Array;
  /**
   * How long the connection may stay silent before the answer's end (`send`), or before its head (`stream`:
   * a streamed body is read at its reader's pace, without a limit).
   */
  timeoutMs: number;
  timeoutError: () => Error;
}

export interface Http1Answer {
  status: number;
  /** Header names in lower case; a repeated header's values joined by `, `. */
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * An answer whose body is read as it arrives: the socket is paused while the reader holds back (the
 * stream's buffer is full), goes back to the pool once the body's last byte is read off it, and is closed
 * when the reader stops early (`destroy`). A connection that ends before the body does fails the stream
 * with an `ECONNRESET` ("socket hang up"), as any socket error fails it.
 */
export interface Http1StreamedAnswer {
  status: number;
  headers: Record<string, string>;
  body: Readable;
}

export interface Http1Transport {
  /** Sends `request` and reads its answer whole. */
  send(request: Http1Request): Promise<Http1Answer>;
  /** Sends `request` and answers once the answer's head is read, its body streamed. */
  stream(request: Http1Request): Promise<Http1StreamedAnswer>;
  /** Closes every socket, idle or not; later requests open new ones. */
  destroy(): void;
}

/** The most bytes an answer's status line and headers may take. */
export const MAX_HEAD_BYTES = 64 * 1024;

/**
 * Where each request is published when someone listens (`diagnostics_channel`): `{ phase: 'start' | 'end',
 * request: { method, path, target } }` (`target`: the request's `x-amz-target`), the same `request` object
 * for both phases of one request. The bench's request trace subscribes; nothing else does, and an unheard
 * channel costs one check a request.
 */
export const HTTP1_TRACE_CHANNEL = 'commerce-api.http1';
const trace = channel(HTTP1_TRACE_CHANNEL);

type Connect = (url: URL) => Socket;

let tlsConnect: Promise<Connect> | undefined;

/** The host to connect to: an IPv6 address without the brackets a URL writes it in. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * How to open a socket to `url`'s origin: `node:net` (which every request needs, loaded with the module) or
 * `node:tls` for https, loaded once, when first needed.
 */
function connector(url: URL): Promise<Connect> {
  if (url.protocol === 'https:') {
    tlsConnect ??= import('node:tls').then(
      ({ connect }) =>
        (target: URL) =>
          connect({
            host: hostOf(target),
            port: Number(target.port || 443),
            // No server name for an address: SNI carries names only.
            ...(isIP(hostOf(target)) === 0 ? { servername: target.hostname } : {}),
            ALPNProtocols: ['http/1.1'],
          }),
    );
    return tlsConnect;
  }
  if (url.protocol !== 'http:') return Promise.reject(new Error(`unsupported protocol ${url.protocol}`));
  return Promise.resolve((target: URL) =>
    netConnect({ host: hostOf(target), port: Number(target.port || 80) }),
  );
}

/** A pool of keep-alive sockets to `url`'s origin (its path is not used). */
export function http1Transport(url: URL, maxSockets = 64): Http1Transport {
  return new Pool(new URL(url.origin), maxSockets);
}

/** The pool of `url`'s origin in `pools` (a client's pools by endpoint), made when first asked for. */
export function poolOf(pools: Map<string, Http1Transport>, url: URL): Http1Transport {
  let pool = pools.get(url.origin);
  if (pool === undefined) {
    pool = http1Transport(url);
    pools.set(url.origin, pool);
  }
  return pool;
}

/** Starts loading what a first request to `url` needs (`node:tls` for https), so it does not wait for it. */
export function preloadHttp1(url: URL): void {
  connector(url).catch(() => undefined);
}

class Pool implements Http1Transport {
  private readonly idle: Socket[] = [];
  private readonly busy = new Set<Socket>();
  private readonly waiting: (() => void)[] = [];
  /** What removes each idle socket's listeners (node's own stay). */
  private readonly forgetIdle = new WeakMap<Socket, () => void>();
  private readonly host: string;

  constructor(
    private readonly origin: URL,
    private readonly maxSockets: number,
  ) {
    this.host = origin.host;
  }

  async send(request: Http1Request): Promise<Http1Answer> {
    const { head, message, socket } = await this.open(request);
    try {
      const { answer, reusable } = await exchange(socket, head, request);
      if (reusable) this.release(socket);
      else this.discard(socket);
      if (message) trace.publish({ phase: 'end', request: message });
      return answer;
    } catch (error) {
      this.discard(socket);
      throw error;
    }
  }

  async stream(request: Http1Request): Promise<Http1StreamedAnswer> {
    const { head, message, socket } = await this.open(request);
    return new Promise((resolve, reject) => {
      /** `head`: waiting for the answer's head; `body`: streaming its body; `done`: the socket is let go. */
      let state: 'head' | 'body' | 'done' = 'head';
      const body = new Readable({
        read: () => {
          if (state === 'body') socket.resume();
        },
        destroy: (error, callback) => {
          // The reader stopped before the body's end: the rest of it is never read off this socket.
          if (state !== 'done') letGo(false);
          callback(error);
        },
      });
      const reader = new AnswerReader(request.method === 'HEAD', (chunk) => {
        if (!body.push(chunk)) socket.pause();
      });
      const letGo = (keep: boolean) => {
        state = 'done';
        forget();
        socket.setTimeout(0);
        if (keep) {
          socket.resume();
          this.release(socket);
        } else this.discard(socket);
        if (message) trace.publish({ phase: 'end', request: message });
      };
      const fail = (error: Error) => {
        if (state === 'done') return;
        const answered = state === 'body';
        letGo(false);
        if (answered) body.destroy(error);
        else reject(error);
      };
      const complete = () => {
        if (state === 'done') return;
        const closing = (reader.head?.headers.connection ?? '').toLowerCase().includes('close');
        letGo(!closing && reader.framed && !reader.overrun);
        body.push(null);
      };
      const ended = () => (reader.end() ? complete() : fail(hangUp()));
      const forget = listen(socket, {
        data: (chunk: Buffer) => {
          let whole: boolean;
          try {
            whole = reader.push(chunk);
          } catch (error) {
            fail(error as Error);
            return;
          }
          const answered = reader.head;
          if (state === 'head' && answered !== undefined) {
            state = 'body';
            socket.setTimeout(0);
            resolve({ ...answered, body });
          }
          if (whole) complete();
        },
        error: (error: Error) => fail(error),
        end: ended,
        close: ended,
        timeout: () => fail(request.timeoutError()),
      });
      socket.setTimeout(request.timeoutMs);
      write(socket, head, request.body);
    });
  }

  /**
   * A request's start: its head written out (a header holding a line break refused before a socket is
   * taken), its trace's start published when someone listens, and a socket of the pool.
   */
  private async open(request: Http1Request) {
    const head = requestHead(this.host, request);
    const message = trace.hasSubscribers
      ? { method: request.method, path: request.path, target: request.headers['x-amz-target'] }
      : undefined;
    if (message) trace.publish({ phase: 'start', request: message });
    return { head, message, socket: await this.acquire() };
  }

  destroy(): void {
    for (const socket of [...this.idle, ...this.busy]) socket.destroy();
    this.idle.length = 0;
    this.busy.clear();
    for (const next of this.waiting.splice(0)) next();
  }

  /** An idle socket still open, else a new one, else a turn once one is free. */
  private async acquire(): Promise<Socket> {
    // Loaded before the count is read: between the count and the new socket's place in it nothing waits.
    const connect = await connector(this.origin);
    for (;;) {
      const reused = this.idle.pop();
      if (reused) {
        this.forgetIdle.get(reused)?.();
        this.forgetIdle.delete(reused);
        if (reused.destroyed || reused.readyState !== 'open') continue;
        reused.ref();
        this.busy.add(reused);
        return reused;
      }
      if (this.busy.size < this.maxSockets) {
        const socket = connect(this.origin);
        socket.setNoDelay(true);
        socket.setKeepAlive(true, 1000);
        this.busy.add(socket);
        return socket;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** Back to the idle sockets: kept open for the next request, without keeping the process alive. */
  private release(socket: Socket): void {
    this.busy.delete(socket);
    const drop = () => {
      forget();
      socket.destroy();
      const index = this.idle.indexOf(socket);
      if (index !== -1) this.idle.splice(index, 1);
    };
    // The server closing an idle connection (or sending what nobody asked for) ends it here.
    const forget = listen(socket, { error: drop, end: drop, close: drop, data: drop });
    this.forgetIdle.set(socket, forget);
    socket.unref();
    this.idle.push(socket);
    this.waiting.shift()?.();
  }

  private discard(socket: Socket): void {
    this.busy.delete(socket);
    socket.on('error', () => undefined);
    socket.destroy();
    this.waiting.shift()?.();
  }
}

/** Adds `handlers` to `socket`'s events; answers the function that removes exactly them. */
function listen(socket: Socket, handlers: Record<string, (...args: never[]) => void>): () => void {
  const entries = Object.entries(handlers) as [string, () => void][];
  for (const [event, handler] of entries) socket.on(event, handler);
  return () => {
    for (const [event, handler] of entries) socket.off(event, handler);
  };
}

/** The connection's end before the answer's, as node's HTTP client reports it. */
function hangUp(): Error {
  return Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
}

/**
 * The request line and headers: the request's own Host (a signed request names it) or the origin's, the
 * body's length (none for a GET or HEAD without a body, as node's client sends them).
 */
function requestHead(host: string, request: Http1Request): string {
  let head = `${request.method} ${request.path} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries({ host, ...request.headers })) {
    if (/[\r\n]/.test(name + value)) throw new Error(`header ${name} holds a line break`);
    if (name.toLowerCase() !== 'content-length') head += `${name}: ${value}\r\n`;
  }
  const length = Buffer.byteLength(request.body);
  if (length === 0 && (request.method === 'GET' || request.method === 'HEAD')) return `${head}\r\n`;
  return `${head}content-length: ${length}\r\n\r\n`;
}

/** Writes a request's head and body on `socket`, in one write when the body is text. */
function write(socket: Socket, head: string, body: string | Uint8Array): void {
  if (typeof body === 'string') {
    socket.write(head + body);
    return;
  }
  socket.cork();
  socket.write(head);
  if (body.byteLength > 0) socket.write(body);
  socket.uncork();
}

/** Writes a request on `socket` and reads its answer whole; `reusable` when the socket may carry another. */
function exchange(
  socket: Socket,
  head: string,
  request: Http1Request,
): Promise<{ answer: Http1Answer; reusable: boolean }> {
  return new Promise((resolve, reject) => {
    const reader = new AnswerReader(request.method === 'HEAD');
    let settled = false;
    const settle = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      forget();
      socket.setTimeout(0);
      const answer = reader.answer();
      if (error !== undefined || answer === undefined) {
        reject(error ?? hangUp());
        return;
      }
      const closing = (answer.headers.connection ?? '').toLowerCase().includes('close');
      resolve({ answer, reusable: !closing && reader.framed && !reader.overrun });
    };
    // An answer read to the connection's end is whole then; any other is cut short.
    const ended = () => settle(reader.end() ? undefined : hangUp());
    const forget = listen(socket, {
      data: (chunk: Buffer) => {
        try {
          if (reader.push(chunk)) settle(undefined);
        } catch (error) {
          settle(error as Error);
          socket.destroy();
        }
      },
      error: (error: Error) => settle(error),
      end: ended,
      close: ended,
      timeout: () => {
        settle(request.timeoutError());
        socket.destroy();
      },
    });
    socket.setTimeout(request.timeoutMs);
    write(socket, head, request.body);
  });
}

const EMPTY = Buffer.alloc(0);

/**
 * Reads one answer from the bytes of a connection: the head (status line and headers), then the body as
 * its headers frame it, each piece of it handed to `sink` as it arrives (without one, kept for `answer()`).
 * `push` answers true once the answer is whole.
 */
export class AnswerReader {
  private buffered: Buffer = EMPTY;
  private status = 0;
  private headers: Record<string, string> | undefined;
  /** The body's bytes still to come, when a Content-Length frames it. */
  private remaining: number | undefined;
  private chunked = false;
  /** In a chunked body: -1 before a chunk's size line, the chunk's bytes still to come, 0 before its CRLF. */
  private chunkLeft = -1;
  private readonly chunks: Buffer[] = [];
  private done = false;
  /** True once the answer's end is known from its own framing (not from the connection's end). */
  framed = false;
  /** True when bytes came after the answer's end: the connection cannot carry another answer. */
  overrun = false;

  constructor(
    private readonly noBody = false,
    private readonly sink?: (chunk: Buffer) => void,
  ) {}

  /** The answer's status and headers, once read. */
  get head(): { status: number; headers: Record<string, string> } | undefined {
    return this.headers === undefined ? undefined : { status: this.status, headers: this.headers };
  }

  push(chunk: Buffer): boolean {
    if (this.done) {
      this.overrun = this.overrun || chunk.length > 0;
      return true;
    }
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (this.headers === undefined) {
      const end = this.buffered.indexOf('\r\n\r\n');
      if (end === -1) {
        if (this.buffered.length > MAX_HEAD_BYTES) throw new Error('the answer\u2019s head is too large');
        return false;
      }
      if (end > MAX_HEAD_BYTES) throw new Error('the answer\u2019s head is too large');
      const head = this.buffered.subarray(0, end).toString('latin1');
      this.buffered = this.buffered.subarray(end + 4);
      this.readHead(head); // an interim (1xx) answer leaves the head unread: the real one follows
    }
    if (this.chunked) return this.readChunks() && this.finish();
    if (this.remaining !== undefined) {
      const take = Math.min(this.remaining, this.buffered.length);
      if (take > 0) this.take(take);
      this.remaining -= take;
      return this.remaining === 0 && this.finish();
    }
    // Neither a length nor chunks: the body runs to the connection's end.
    if (this.buffered.length > 0) this.take(this.buffered.length);
    return false;
  }

  /** The connection ended: true when the answer is whole (it was, or it ran to the end). */
  end(): boolean {
    if (this.done) return true;
    if (this.headers !== undefined && this.remaining === undefined && !this.chunked) {
      this.done = true;
      return true;
    }
    return false;
  }

  answer(): Http1Answer | undefined {
    if (!this.done || this.headers === undefined) return undefined;
    return { status: this.status, headers: this.headers, body: Buffer.concat(this.chunks) };
  }

  /** Hands the buffer's first `count` bytes on as the body's. */
  private take(count: number): void {
    const piece = this.buffered.subarray(0, count);
    this.buffered = this.buffered.subarray(count);
    if (this.sink) this.sink(piece);
    else this.chunks.push(piece);
  }

  /** The answer is whole: bytes left after it mean the connection cannot carry another. */
  private finish(): true {
    this.done = true;
    this.framed = true;
    this.overrun = this.buffered.length > 0;
    this.buffered = EMPTY;
    return true;
  }

  /** Reads a head; an interim (1xx) answer's is skipped. */
  private readHead(head: string): void {
    const lines = head.split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0] ?? '');
    if (!match) throw new Error(`not an HTTP/1.1 answer: ${(lines[0] ?? '').slice(0, 80)}`);
    const status = Number(match[1]);
    if (status >= 100 && status < 200) return;
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Error('a malformed header in the answer');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    if (this.noBody || status === 204 || status === 304) {
      this.remaining = 0;
    } else if ((headers['transfer-encoding'] ?? '').toLowerCase().includes('chunked')) {
      this.chunked = true;
    } else if (headers['content-length'] !== undefined) {
      const length = headers['content-length'];
      if (!/^\d+$/.test(length)) throw new Error('a malformed Content-Length in the answer');
      this.remaining = Number(length);
    }
    this.status = status;
    this.headers = headers;
  }

  /** Reads the chunks' bytes off the buffer as they come; true once the last (empty) chunk and the trailers are read. */
  private readChunks(): boolean {
    for (;;) {
      if (this.chunkLeft > 0) {
        const take = Math.min(this.chunkLeft, this.buffered.length);
        if (take === 0) return false;
        this.take(take);
        this.chunkLeft -= take;
        if (this.chunkLeft > 0) return false;
      }
      if (this.chunkLeft === 0) {
        if (this.buffered.length < 2) return false;
        if (this.buffered[0] !== 13 || this.buffered[1] !== 10)
          throw new Error('a malformed chunk in the answer');
        this.buffered = this.buffered.subarray(2);
        this.chunkLeft = -1;
      }
      const lineEnd = this.buffered.indexOf('\r\n');
      if (lineEnd === -1) {
        if (this.buffered.length > MAX_HEAD_BYTES) throw new Error('a malformed chunk in the answer');
        return false;
      }
      const sizeText = this.buffered.subarray(0, lineEnd).toString('latin1').split(';')[0]?.trim() ?? '';
      if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) throw new Error('a malformed chunk in the answer');
      const size = Number.parseInt(sizeText, 16);
      if (size === 0) {
        // The trailers (usually none) end with an empty line.
        const trailersEnd = this.buffered.indexOf('\r\n\r\n', lineEnd);
        if (trailersEnd === -1) {
          if (this.buffered.subarray(lineEnd).length > MAX_HEAD_BYTES)
            throw new Error('the answer\u2019s trailers are too large');
          return false;
        }
        this.buffered = this.buffered.subarray(trailersEnd + 4);
        return true;
      }
      this.buffered = this.buffered.subarray(lineEnd + 2);
      this.chunkLeft = size;
    }
  }
}
