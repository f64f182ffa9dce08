import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** One request the server answered, as it crossed the wire. */
export interface Exchange {
  req: IncomingMessage;
  requestBody: Buffer;
  status: number;
  /** Response headers, names lower-cased. */
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Calls `onExchange` once per answered request with both bodies, without consuming either: the request
 * body is observed through `emit` (a `data` listener would start the stream before the server reads it)
 * and the response through `writeHead`/`write`/`end`.
 */
export function observeExchanges(server: Server, onExchange: (exchange: Exchange) => void): void {
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const requestChunks: Buffer[] = [];
    const emit = req.emit;
    req.emit = ((event: string | symbol, ...args: unknown[]) => {
      if (event === 'data' && args[0] instanceof Uint8Array) requestChunks.push(Buffer.from(args[0]));
      return (emit as (...all: unknown[]) => boolean).call(req, event, ...args);
    }) as typeof req.emit;
    const responseChunks: Buffer[] = [];
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (typeof chunk === 'string')
        responseChunks.push(
          Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
        );
      else if (chunk instanceof Uint8Array) responseChunks.push(Buffer.from(chunk));
    };
    const headers: Record<string, string> = {};
    const { writeHead, write, end } = res;
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      const given = rest.find((arg) => typeof arg === 'object' && arg !== null && !Array.isArray(arg));
      for (const [name, value] of Object.entries((given ?? {}) as Record<string, unknown>)) {
        headers[name.toLowerCase()] = String(value);
      }
      return (writeHead as (...args: unknown[]) => ServerResponse).call(res, status, ...rest);
    }) as typeof res.writeHead;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return (write as (...args: unknown[]) => boolean).call(res, chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (typeof chunk !== 'function') keep(chunk, rest[0]);
      return (end as (...args: unknown[]) => ServerResponse).call(res, chunk, ...rest);
    }) as typeof res.end;
    res.once('finish', () => {
      for (const name of res.getHeaderNames()) headers[name] ??= String(res.getHeader(name));
      onExchange({
        req,
        requestBody: Buffer.concat(requestChunks),
        status: res.statusCode,
        headers,
        body: Buffer.concat(responseChunks),
      });
    });
  });
}
