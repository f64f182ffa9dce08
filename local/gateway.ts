import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  corsResponseHeaders,
  type GatewayCors,
  isPreflight,
  preflightHeaders,
  varyOnOrigin,
  withoutCorsHeaders,
} from './gateway-cors';
import { createHttpEvent } from './http-event';

/*
 * API Gateway's side of the local API (HTTP API, payload 2.0): route matching, the event, the
 * gateway's own answers (404; 413 over 10 MB of request; 503 past the 30 s integration timeout; 500 on a
 * function error or a response over Lambda's 6 MB), CORS as `corsPreflight` configures it. It knows nothing of our functions or
 * lib/: the in-process server (local/server.ts) and the template-driven one (local/template/) each
 * give it their routes and a way to invoke a function.
 */

/** API Gateway's own payload limit; function-level limits (64 KiB; 5 MB for a release document) apply inside the handlers. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;
/**
 * The longest an HTTP API waits for its integration (30 s, not adjustable upwards); past it the client gets
 * API Gateway's 503 `{"message":"Service Unavailable"}` while the function may still be running.
 */
export const GATEWAY_INTEGRATION_TIMEOUT_MS = 30_000;
/**
 * A synchronous Lambda invocation returns at most 6 MB: the runtime refuses a larger response ("Exceeded
 * maximum allowed payload size (6291556 bytes)") and the HTTP API answers 500 `{"message":"Internal Server
 * Error"}`, as for any function error. Measured on the response object as the runtime serializes it.
 */
export const LAMBDA_MAX_RESPONSE_BYTES = 6_291_556;
/** JSON text of a string takes at most 6 bytes per UTF-16 unit (`\u00XX`): shorter bodies cannot cross the limit. */
const RESPONSE_SIZE_CHECK_FROM = Math.floor((LAMBDA_MAX_RESPONSE_BYTES - 64 * 1024) / 6);
const TEXT_TYPES = /^(?:text\/|application\/(?:[\w.+-]+\+)?json|application\/x-www-form-urlencoded)/i;

export interface GatewayRoute<T> {
  method: string;
  /** Route path with `{param}` placeholders, as in an API Gateway route key. */
  path: string;
  /** What serves it (a route of the route table, a function of the template, ...). */
  target: T;
}

export interface GatewayMatch<T> {
  target: T;
  /** `METHOD /path/{param}`, as API Gateway names the matched route. */
  routeKey: string;
  pathParameters: Record<string, string>;
}

/**
 * Orders routes as API Gateway matches them: the most specific first, a literal segment before a
 * `{param}` in the same place (`/pcm/catalogs/rules` before `/pcm/catalogs/{catalog_id}`), whatever order
 * they are given in (a template lists them by nested stack); otherwise as given.
 */
function bySpecificity<T>(a: GatewayRoute<T>, b: GatewayRoute<T>): number {
  const left = a.path.split('/');
  const right = b.path.split('/');
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    const leftParam = left[i]?.startsWith('{') ?? false;
    const rightParam = right[i]?.startsWith('{') ?? false;
    if (leftParam !== rightParam) return leftParam ? 1 : -1;
  }
  return 0;
}

/** A route matcher: method and raw path to the route, like API Gateway (path parameters decoded). */
export function compileRoutes<T>(
  routes: readonly GatewayRoute<T>[],
): (method: string, rawPath: string) => GatewayMatch<T> | undefined {
  const compiled = [...routes].sort(bySpecificity).map((route) => {
    const params: string[] = [];
    const source = route.path
      .split('/')
      .map((segment) => {
        const param = /^\{([A-Za-z0-9_]+)\}$/.exec(segment);
        if (param?.[1]) {
          params.push(param[1]);
          return '([^/]+)';
        }
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('/');
    return { route, pattern: new RegExp(`^${source}$`), params };
  });
  return (method, rawPath) => {
    for (const { route, pattern, params } of compiled) {
      if (route.method !== method.toUpperCase()) continue;
      const match = pattern.exec(rawPath);
      if (!match) continue;
      const pathParameters: Record<string, string> = {};
      params.forEach((name, index) => {
        const raw = match[index + 1] ?? '';
        try {
          pathParameters[name] = decodeURIComponent(raw);
        } catch {
          pathParameters[name] = raw;
        }
      });
      return { target: route.target, routeKey: `${route.method} ${route.path}`, pathParameters };
    }
    return undefined;
  };
}

export interface LocalResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

export interface GatewayOptions<T> {
  routes: readonly GatewayRoute<T>[];
  /** Runs the route's function with the event; a rejection is a function error (500, as API Gateway). */
  invoke(
    target: T,
    event: APIGatewayProxyEventV2,
    requestId: string,
  ): Promise<APIGatewayProxyStructuredResultV2>;
  /** Routes of the local server only (e.g. /docs), tried before the API's. */
  localRoutes?(req: IncomingMessage, rawPath: string): Promise<LocalResponse | undefined>;
  /** The server's log line for a failed request: must not show the request's credentials. */
  describeError(error: unknown, req: IncomingMessage): string;
  /** PUBLIC_URL: the origin links are built from (see `localOrigin`). */
  publicUrl?: string | undefined;
  /** The API's CORS configuration (local/gateway-cors.ts); none: no CORS headers, preflights are routed. */
  cors?: GatewayCors | undefined;
  /** The integration timeout (tests shorten it); API Gateway's 30 s by default. */
  integrationTimeoutMs?: number;
}

/** Bytes of a function's response as the Lambda runtime serializes it (the 6 MB limit applies to this). */
export function lambdaResponseBytes(result: APIGatewayProxyStructuredResultV2): number {
  return Buffer.byteLength(JSON.stringify(result));
}

/** True when a function's response could not leave Lambda (over LAMBDA_MAX_RESPONSE_BYTES). */
export function exceedsLambdaResponseLimit(result: APIGatewayProxyStructuredResultV2): boolean {
  if ((result.body?.length ?? 0) < RESPONSE_SIZE_CHECK_FROM) return false;
  return lambdaResponseBytes(result) > LAMBDA_MAX_RESPONSE_BYTES;
}

const TIMED_OUT = Symbol('integration timeout');

/** The function's result, or TIMED_OUT once the integration timeout passed (the invocation runs on). */
async function invokeWithin<R>(invocation: Promise<R>, timeoutMs: number): Promise<R | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
  });
  try {
    return await Promise.race([invocation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function send(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string | Buffer,
): void {
  res.writeHead(status, { 'Content-Length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

const NO_BODY = Buffer.alloc(0);

async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  // A request without Content-Length or Transfer-Encoding has no body (HTTP/1.1): no stream to wait for.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
    req.resume();
    return NO_BODY;
  }
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

/** Host and protocol of each origin `localOrigin` returned (a handful: it only returns loopback origins). */
const originParts = new Map<string, { host: string; protocol: string }>();

function partsOf(origin: string): { host: string; protocol: string } {
  let parts = originParts.get(origin);
  if (parts === undefined) {
    const url = new URL(origin);
    parts = { host: url.host, protocol: url.protocol.slice(0, -1) };
    originParts.set(origin, parts);
  }
  return parts;
}

/** `PUBLIC_URL`, checked once: an http(s) origin with nothing after the host and port. */
export function publicUrlFrom(env: NodeJS.ProcessEnv): string | undefined {
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

/** An HTTP server in front of the functions: each request becomes a payload 2.0 event for its route. */
export function createGatewayServer<T>(options: GatewayOptions<T>): Server {
  const match = compileRoutes(options.routes);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const cors = options.cors;
    const reply = (status: number, headers: Record<string, string>, body: string | Buffer) =>
      send(res, status, cors ? varyOnOrigin(cors, headers) : headers, body);
    if (cors && isPreflight(req.method ?? '', req.headers)) {
      reply(204, { 'apigw-requestid': requestId, ...preflightHeaders(cors, req.headers) }, '');
      return;
    }
    const gatewayHeaders = {
      'apigw-requestid': requestId,
      ...(cors ? corsResponseHeaders(cors, req.headers) : {}),
    };
    const url = req.url ?? '/';
    const rawPath = url.split('?')[0] ?? '/';
    const local = await options.localRoutes?.(req, rawPath);
    if (local) {
      reply(local.status, local.headers, local.body);
      return;
    }
    const route = match(req.method ?? 'GET', rawPath);
    if (!route) {
      reply(404, { 'Content-Type': 'application/json', ...gatewayHeaders }, '{"message":"Not Found"}');
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
    const origin = partsOf(localOrigin(headers.host, req.socket.localPort ?? 0, options.publicUrl));
    headers.host = origin.host;
    headers['x-forwarded-proto'] = origin.protocol;
    // A text body that is not valid UTF-8 is passed base64-encoded, as API Gateway does: its bytes reach
    // the function as sent (whose strict decoder refuses them), never with U+FFFD in place of a byte.
    const isText = body.length === 0 || (TEXT_TYPES.test(headers['content-type'] ?? '') && isUtf8(body));
    const event = createHttpEvent({
      method: req.method ?? 'GET',
      path: url,
      headers,
      body: body.length === 0 ? undefined : isText ? body.toString('utf8') : body.toString('base64'),
      isBase64Encoded: !isText,
      routeKey: route.routeKey,
      pathParameters: route.pathParameters,
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      requestId,
    });
    const invocation = options.invoke(route.target, event, requestId);
    const result = await invokeWithin(
      invocation,
      options.integrationTimeoutMs ?? GATEWAY_INTEGRATION_TIMEOUT_MS,
    );
    if (result === TIMED_OUT) {
      // The late answer (or failure) has nowhere to go, as in AWS.
      invocation.catch(() => undefined);
      process.stderr.write(
        `local server: ${route.routeKey} did not answer within the integration timeout: 503, as API Gateway\n`,
      );
      const body = '{"message":"Service Unavailable"}';
      reply(503, { 'Content-Type': 'application/json', ...gatewayHeaders }, body);
      return;
    }
    if (exceedsLambdaResponseLimit(result)) {
      process.stderr.write(
        `local server: ${route.routeKey} returned ${lambdaResponseBytes(result)} bytes, over Lambda's ${LAMBDA_MAX_RESPONSE_BYTES}-byte response limit: 500, as API Gateway\n`,
      );
      const body = '{"message":"Internal Server Error"}';
      reply(500, { 'Content-Type': 'application/json', ...gatewayHeaders }, body);
      return;
    }
    const functionHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(result.headers ?? {})) functionHeaders[name] = String(value);
    const responseHeaders = {
      ...(cors ? withoutCorsHeaders(functionHeaders) : functionHeaders),
      ...gatewayHeaders,
    };
    const payload =
      result.body === undefined
        ? ''
        : result.isBase64Encoded
          ? Buffer.from(result.body, 'base64')
          : result.body;
    reply(result.statusCode ?? 200, responseHeaders, payload);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      process.stderr.write(`local server: ${options.describeError(error, req)}\n`);
      if (!res.headersSent)
        send(res, 500, { 'Content-Type': 'application/json' }, '{"message":"Internal Server Error"}');
      else res.destroy();
    });
  });
  // Idle connections are kept 65 s, not 5. fetch keeps an idle connection for the server's hint less 1 s,
  // but its timers tick once a second and run late on a busy event loop, so a connection idle for about 5 s
  // could still be handed out as node's 5 s timer closed it: the request was reset (ECONNRESET; seen on the
  // SDK's token grant about 5 s after a test's last request, while it uploaded 6 MB elsewhere). With 65 s
  // that gap is a minute (the race: https://github.com/nodejs/undici/issues/3141). `closeServer` ends
  // every connection, so stopping does not wait for them.
  server.keepAliveTimeout = LOCAL_KEEP_ALIVE_MS;
  server.headersTimeout = LOCAL_KEEP_ALIVE_MS + 1000;
  return server;
}

/** How long the local gateway keeps an idle keep-alive connection. */
export const LOCAL_KEEP_ALIVE_MS = 65_000;

/** Starts a server on a port (0 = any free port) and resolves with the bound port. */
export async function listen(server: Server, port: number, host = '127.0.0.1'): Promise<number> {
  await new Promise<void>((done, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => done());
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}

/** What each server stops once it is closed (`onServerClose`). */
const closeHooks = new WeakMap<Server, (() => Promise<void>)[]>();

/**
 * Has `closeServer` stop `hook` with `server`: what the server started beside it (its in-process queues), whose
 * timers must not outlive it to run in a process (or a test file) that has moved on.
 */
export function onServerClose(server: Server, hook: () => Promise<void>): void {
  closeHooks.set(server, [...(closeHooks.get(server) ?? []), hook]);
}

/**
 * Stops accepting connections, closes the open ones, resolves once the server is closed and what it
 * started beside it (`onServerClose`) has stopped.
 */
export async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((done) => {
    server.closeAllConnections();
    server.close(() => done());
  });
  const hooks = closeHooks.get(server) ?? [];
  closeHooks.delete(server);
  await Promise.all(hooks.map((hook) => hook()));
}
