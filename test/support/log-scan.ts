import type { Server } from 'node:http';
import { format } from 'node:util';
import { SERVICE_NAME } from '../../lib/http/log';
import { matchRoute } from '../../local/router';
import { observeExchanges } from './http-tap';

/**
 * The e2e log scan (test/support/e2e-setup.ts): every secret that crosses HTTP during a test file is
 * registered automatically (the local API server and `fetch` are tapped), everything the file writes to
 * stdout, stderr and the console is captured, and the capture must contain none of those secrets.
 */

export type SecretKind = 'authorization' | 'client_secret' | 'access_token' | 'refresh_token';

/** Shorter values are not registered: they would match ordinary text (and are no real credential). */
export const MIN_SECRET_LENGTH = 8;

const SECRET_FIELDS = new Set<string>(['client_secret', 'access_token', 'refresh_token']);

/** The secrets seen so far, each with the kind it was first seen as. */
export class SecretRegistry {
  readonly secrets = new Map<string, SecretKind>();

  add(value: unknown, kind: SecretKind): void {
    if (typeof value !== 'string') return;
    const secret = value.trim();
    if (secret.length >= MIN_SECRET_LENGTH && !this.secrets.has(secret)) this.secrets.set(secret, kind);
  }

  /** An Authorization header value: the whole value and the credential after its scheme. */
  addAuthorization(value: unknown): void {
    if (typeof value !== 'string') return;
    this.add(value, 'authorization');
    this.add(value.trim().split(/\s+/)[1], 'authorization');
  }

  /** Every `client_secret`, `access_token` and `refresh_token` string of a JSON or form body, at any depth. */
  addFromBody(text: string, contentType = ''): void {
    if (text === '') return;
    if (
      /x-www-form-urlencoded/i.test(contentType) ||
      (!/json/i.test(contentType) && !/^\s*[[{]/.test(text))
    ) {
      for (const [name, value] of new URLSearchParams(text)) {
        if (SECRET_FIELDS.has(name)) this.add(value, name as SecretKind);
      }
      return;
    }
    try {
      this.addFromJson(JSON.parse(text));
    } catch {
      // not JSON: nothing to register
    }
  }

  private addFromJson(value: unknown): void {
    if (Array.isArray(value)) for (const item of value) this.addFromJson(item);
    else if (typeof value === 'object' && value !== null) {
      for (const [name, field] of Object.entries(value)) {
        if (SECRET_FIELDS.has(name) && typeof field === 'string') this.add(field, name as SecretKind);
        else this.addFromJson(field);
      }
    }
  }
}

export interface Leak {
  kind: SecretKind;
  /** The offending line with every registered secret replaced by `[kind]`, cut to 300 characters. */
  excerpt: string;
}

/** How a secret can appear in text: as is, JSON-escaped, URL-encoded. */
function spellings(secret: string): string[] {
  return [...new Set([secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)])];
}

/** Every line of `output` that contains a registered secret (excerpts never show the secret itself). */
export function findLeaks(output: string, registry: SecretRegistry): Leak[] {
  const masks = [...registry.secrets].flatMap(([secret, kind]) =>
    spellings(secret).map((spelling): [string, SecretKind] => [spelling, kind]),
  );
  const mask = (line: string) => masks.reduce((text, [s, kind]) => text.split(s).join(`[${kind}]`), line);
  const leaks: Leak[] = [];
  for (const [secret, kind] of registry.secrets) {
    for (const spelling of spellings(secret)) {
      if (!output.includes(spelling)) continue;
      for (const line of output.split('\n')) {
        if (line.includes(spelling)) leaks.push({ kind, excerpt: mask(line).slice(0, 300) });
      }
    }
  }
  return leaks;
}

/** One request the local API server answered, from a function of the route table. */
export interface ServedRequest {
  requestId: string;
  routeKey: string;
  status: number;
  /**
   * A 429 of the store's rate limit (it carries `X-RateLimit-Limit`): logged as a count per key and second
   * by the refusal log, with no access line of its own (docs/logs.md).
   */
  rateLimited?: boolean;
}

/** What one test file saw: the secrets, and the requests the in-process local API answered. */
export interface Scan {
  registry: SecretRegistry;
  served: ServedRequest[];
}

/** The current test file's scan (each test file has its own module registry, so its own scan). */
export const scan: Scan = { registry: new SecretRegistry(), served: [] };

/** Our service's log lines in a text: every line that parses as a JSON object from SERVICE_NAME. */
export function serviceLogLines(text: string): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (parsed.service === SERVICE_NAME) lines.push(parsed);
    } catch {
      // not a log line
    }
  }
  return lines;
}

/**
 * The scan's verdict on a test file's captured output, as problems (empty when it passes): no registered
 * secret anywhere; and, so that it cannot pass on an empty capture, one access line (request id, route,
 * status) for every request a function answered, and the route on every line of those requests.
 */
export function checkCapture(output: string, { registry, served }: Scan): string[] {
  const problems = findLeaks(output, registry).map(
    (leak) => `a ${leak.kind} value appears in the output: ${leak.excerpt}`,
  );
  const lines = serviceLogLines(output);
  if (served.length > 0 && lines.length === 0) {
    problems.push(`the local API answered ${served.length} requests but no log line was captured`);
  }
  for (const request of served) {
    const own = lines.filter((line) => line.function_request_id === request.requestId);
    const access = own.find((line) => line.message === 'request completed');
    if (request.rateLimited) {
      if (access) {
        problems.push(
          `an access line for rate-limited request ${request.requestId}: refusals are logged as counts`,
        );
      }
    } else if (!access || access.route !== request.routeKey || access.status !== request.status) {
      problems.push(
        `no access line {route: ${request.routeKey}, status: ${request.status}} for request ${request.requestId}`,
      );
    }
    if (own.some((line) => line.route !== request.routeKey)) {
      problems.push(
        `a log line of request ${request.requestId} does not carry its route ${request.routeKey}`,
      );
    }
  }
  return problems;
}

/** Registers a request's Authorization value and body secrets, then its response's body secrets. */
export function tapServer(server: Server, target: Scan = scan): void {
  observeExchanges(server, ({ req, requestBody, status, headers, body }) => {
    target.registry.addAuthorization(req.headers.authorization);
    target.registry.addFromBody(requestBody.toString('utf8'), req.headers['content-type']);
    const text = body.toString('utf8');
    target.registry.addFromBody(text, headers['content-type'] ?? '');
    const match = matchRoute(req.method ?? 'GET', (req.url ?? '/').split('?')[0] ?? '/');
    const requestId = headers['apigw-requestid'] ?? '';
    // A function answered unless the gateway did (unmatched route: 404, body over 10 MiB: 413).
    const gatewayAnswer = /^\{"message":/.test(text);
    if (match && requestId !== '' && !gatewayAnswer) {
      const rateLimited = status === 429 && headers['x-ratelimit-limit'] !== undefined;
      target.served.push({
        requestId,
        routeKey: match.routeKey,
        status,
        ...(rateLimited ? { rateLimited } : {}),
      });
    }
  });
}

type Fetch = typeof globalThis.fetch;

/**
 * Wraps `fetch` so every request's Authorization value and body secrets and every response's are
 * registered. The request is forwarded as the `Request` built from the arguments (so a body is read
 * once); undici-only options such as `dispatcher` do not survive that.
 */
export function tapFetch(original: Fetch, target: Scan = scan): Fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    target.registry.addAuthorization(request.headers.get('authorization') ?? undefined);
    if (request.body !== null) {
      target.registry.addFromBody(await request.clone().text(), request.headers.get('content-type') ?? '');
    }
    const response = await original(request);
    target.registry.addFromBody(await response.clone().text(), response.headers.get('content-type') ?? '');
    return response;
  };
}

export interface Capture {
  /** Everything written so far. */
  text(): string;
  /** Puts the original writers back (only those still ours). */
  stop(): void;
}

type Write = typeof process.stdout.write;
const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

/**
 * Captures every write to process.stdout and process.stderr and every console call; each is also
 * written through when `passThrough(text)` says so.
 */
export function captureOutput(passThrough: (chunk: string) => boolean): Capture {
  const parts: string[] = [];
  const restore: (() => void)[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write;
    const patched = function (this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
      const text =
        typeof chunk === 'string'
          ? chunk
          : chunk instanceof Uint8Array
            ? Buffer.from(chunk).toString('utf8')
            : String(chunk);
      parts.push(text);
      if (passThrough(text))
        return (original as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
      const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    } as Write;
    stream.write = patched;
    restore.push(() => {
      if (stream.write === patched) stream.write = original;
    });
  }
  for (const method of CONSOLE_METHODS) {
    const original = console[method];
    const patched = (...args: unknown[]) => {
      const text = `${format(...args)}\n`;
      parts.push(text);
      if (passThrough(text)) original.apply(console, args);
    };
    console[method] = patched;
    restore.push(() => {
      if (console[method] === patched) console[method] = original;
    });
  }
  return {
    text: () => parts.join(''),
    stop: () => {
      for (const undo of restore.reverse()) undo();
    },
  };
}

/** True when every line of a chunk is one of our service's JSON log lines. */
export function isServiceLog(chunk: string): boolean {
  const lines = chunk.split('\n').filter((line) => line !== '');
  return lines.length > 0 && serviceLogLines(chunk).length === lines.length;
}
