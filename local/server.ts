import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { createHttpEvent, createLambdaContext } from '../lib/http/event';
import { redact, requestSecrets } from '../lib/http/log';
import { localDocsResponse } from './docs';
import { loadHandler, matchRoute } from './router';

/** API Gateway's own payload limit; function-level limits (64 KiB) apply inside the handlers. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;
const TEXT_TYPES = /^(?:text\/|application\/(?:[\w.+-]+\+)?json|application\/x-www-form-urlencoded)/i;

function send(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string | Buffer,
): void {
  res.writeHead(status, { 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > GATEWAY_MAX_BODY_BYTES) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Host names that can only mean this machine: a request naming one of them (with our port) is for us. */
const LOOPBACK_HOST = /^(?:localhost|127\.0\.0\.1|\[::1\]):(\d{1,5})$/;

/**
 * The origin the API's `links` and `Location` are built from: `publicUrl` when configured (e.g. behind
 * a tunnel), else `http://` and the request's Host if it names this server (a loopback name with the
 * port it listens on), else `http://127.0.0.1:<port>`. Never other header text: API Gateway sets Host
 * and X-Forwarded-Proto itself in AWS; locally any client could send `javascript://evil.example`.
 */
export function localOrigin(host: string | undefined, port: number, publicUrl?: string): string {
  if (publicUrl !== undefined) return publicUrl;
  const match = host === undefined ? null : LOOPBACK_HOST.exec(host);
  return match && Number(match[1]) === port ? `http://${host}` : `http://127.0.0.1:${port}`;
}

/** `PUBLIC_URL`, checked once: an http(s) origin with nothing after the host and port. */
function publicUrlFrom(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.PUBLIC_URL;
  if (raw === undefined || raw === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.origin !== raw.replace(/\/$/, ''))
    throw new Error(`PUBLIC_URL must be an http(s) origin such as https://demo.example.com, got "${raw}"`);
  return url.origin;
}

/** Turns one HTTP request into an API Gateway HTTP API 2.0 event and runs the route's handler in-process. */
async function handle(req: IncomingMessage, res: ServerResponse, publicUrl?: string): Promise<void> {
  const requestId = randomUUID();
  const gatewayHeaders = { 'apigw-requestid': requestId };
  const url = req.url ?? '/';
  const rawPath = url.split('?')[0] ?? '/';
  // Local only, before the route table: GET /openapi.json, GET /docs and its assets (local/docs.ts).
  const docs = await localDocsResponse(req, rawPath);
  if (docs) {
    send(res, docs.status, docs.headers, docs.body);
    return;
  }
  const match = matchRoute(req.method ?? 'GET', rawPath);
  if (!match) {
    send(res, 404, { 'Content-Type': 'application/json', ...gatewayHeaders }, '{"message":"Not Found"}');
    return;
  }
  const body = await readBody(req);
  if (body === 'too-large') {
    send(
      res,
      413,
      { 'Content-Type': 'application/json', ...gatewayHeaders },
      '{"message":"Request Entity Too Large"}',
    );
    return;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // As API Gateway does: Host and X-Forwarded-Proto are the server's own, not what the client sent.
  const origin = new URL(localOrigin(headers.host, req.socket.localPort ?? 0, publicUrl));
  headers.host = origin.host;
  headers['x-forwarded-proto'] = origin.protocol.slice(0, -1);
  const isText = body.length === 0 || TEXT_TYPES.test(headers['content-type'] ?? '');
  const event = createHttpEvent({
    method: req.method ?? 'GET',
    path: url,
    headers,
    body: body.length === 0 ? undefined : isText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: !isText,
    routeKey: match.routeKey,
    pathParameters: match.pathParameters,
    sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    requestId,
  });
  const handler = await loadHandler(match.route.function);
  const result = (await handler(
    event,
    createLambdaContext(match.route.function, requestId),
  )) as APIGatewayProxyStructuredResultV2;
  const responseHeaders: Record<string, string> = { ...gatewayHeaders };
  for (const [name, value] of Object.entries(result.headers ?? {})) responseHeaders[name] = String(value);
  const payload =
    result.body === undefined
      ? ''
      : result.isBase64Encoded
        ? Buffer.from(result.body, 'base64')
        : result.body;
  send(res, result.statusCode ?? 200, responseHeaders, payload);
}

/** The local API server: API Gateway-style routing over the shared route table, handlers run in-process. */
export function createLocalServer(env: NodeJS.ProcessEnv = process.env): Server {
  const publicUrl = publicUrlFrom(env);
  const server = createServer((req, res) => {
    handle(req, res, publicUrl).catch((error: unknown) => {
      // The stack only, with the request's credentials redacted: never its headers or body.
      const detail = redact((error as Error).stack ?? String(error), requestSecrets(req.headers));
      process.stderr.write(`local server: ${detail}\n`);
      if (!res.headersSent)
        send(res, 500, { 'Content-Type': 'application/json' }, '{"message":"Internal Server Error"}');
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;
  return server;
}

/** Starts the local API on a port (0 = any free port) and resolves with the bound port. */
export async function listen(server: Server, port: number, host = '127.0.0.1'): Promise<number> {
  await new Promise<void>((done, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => done());
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}
