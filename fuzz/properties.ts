import fc from 'fast-check';
import { createHttpEvent, createLambdaContext } from '../lib/http/event';
import { type LambdaHandler, loadHandler, matchRoute } from '../local/router';
import { responseProblems } from '../test/support/openapi';
import type { FuzzRequest } from './arbitraries';
import { isValidErrorBody } from './error-body';
import type { FuzzTarget } from './routes';
import { type FuzzWorld, fill } from './world';

export { isValidErrorBody } from './error-body';
export { fuzzTargets } from './routes';
export { seedFuzzWorld } from './world';

/** Why a case failed the property (undefined: it passed). */
export type Failure = 'five_xx' | 'uncaught' | 'invalid_error_body' | 'contract_violation';

export interface CaseResult {
  status: number | undefined;
  headers: Record<string, string>;
  body: string | undefined;
  failure: Failure | undefined;
  error?: unknown;
}

/** Figures of one route's run. */
export interface RouteStats {
  route: string;
  cases: number;
  five_xx: number;
  uncaught: number;
  invalid_error_bodies: number;
  /** Responses that break openapi.json: an undocumented status, a missing required header, a body off its schema. */
  contract_violations: number;
  /** Responses by status code. */
  statuses: Record<string, number>;
  seed: number;
  ms: number;
  /** The minimal failing case (shrunk), secrets redacted; absent when every case passed. */
  counterexample?: string;
}

/** A bug in the fuzz harness itself (not in the API): stops the run instead of being counted. */
export class HarnessError extends Error {
  override name = 'HarnessError';
}

const CASE_TIMEOUT_MS = 30000;

/** Counts uncaught exceptions and unhandled rejections anywhere in the process while installed. */
export interface ProcessWatch {
  count(): number;
  /** The first few errors seen, for the report. */
  errors: unknown[];
  stop(): void;
}

export function watchProcess(): ProcessWatch {
  let count = 0;
  const errors: unknown[] = [];
  const onError = (error: unknown) => {
    count += 1;
    if (errors.length < 5) errors.push(error);
  };
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
  return {
    count: () => count,
    errors,
    stop() {
      process.off('uncaughtException', onError);
      process.off('unhandledRejection', onError);
    },
  };
}

async function realise(target: FuzzTarget, request: FuzzRequest, world: FuzzWorld) {
  const template = target.route.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_whole, name: string) => {
    const value = request.params[name];
    if (value === undefined) throw new HarnessError(`the arbitrary of ${target.key} gives no {${name}}`);
    return value;
  });
  const rawPath = await fill(template, world);
  const match = matchRoute(target.route.method, rawPath);
  if (match?.route !== target.route)
    throw new HarnessError(`${target.route.method} ${rawPath} does not match ${target.key}`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = await fill(value, world);
  const query = await fill(request.query, world);
  const body = request.body && {
    text: request.body.base64 ? request.body.text : await fill(request.body.text, world),
    base64: request.body.base64,
  };
  return createHttpEvent({
    method: target.route.method,
    path: query === '' ? rawPath : `${rawPath}?${query}`,
    body: body?.text,
    isBase64Encoded: body?.base64 ?? false,
    routeKey: match.routeKey,
    pathParameters: match.pathParameters,
    headers: { host: 'api.fuzz.test', ...headers },
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no response within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Sends one request through the route's real handler (as the Lambda runtime would) and checks the
 * property: the handler resolves, the status is below 500, every 4xx carries a valid error body, and
 * the response matches openapi.json (status documented for the route, required headers, body schema).
 */
export async function runCase(
  target: FuzzTarget,
  request: FuzzRequest,
  world: FuzzWorld,
  load: (functionName: string) => Promise<LambdaHandler> = loadHandler,
): Promise<CaseResult> {
  const event = await realise(target, request, world);
  const handler = await load(target.route.function);
  let result: { statusCode?: unknown; headers?: Record<string, unknown>; body?: unknown };
  const shopper = world.shopper();
  try {
    result = (await withTimeout(
      handler(event, createLambdaContext(target.route.function, event.requestContext.requestId)),
      CASE_TIMEOUT_MS,
    )) as typeof result;
  } catch (error) {
    return { status: undefined, headers: {}, body: undefined, failure: 'uncaught', error };
  }
  const shopperStatus = await shopper;
  if (shopperStatus >= 500) {
    return {
      status: shopperStatus,
      headers: {},
      body: `the storefront's token grant beside this case answered ${shopperStatus}`,
      failure: 'five_xx',
    };
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result?.headers ?? {})) headers[name] = String(value);
  const body = typeof result?.body === 'string' ? result.body : undefined;
  const status = typeof result?.statusCode === 'number' ? result.statusCode : undefined;
  let failure: Failure | undefined;
  // A response without a numeric status is a 502 at API Gateway.
  if (status === undefined || status >= 500) failure = 'five_xx';
  else if (status >= 400 && !isValidErrorBody(status, headers, body)) failure = 'invalid_error_body';
  else if (
    responseProblems({
      method: target.route.method,
      path: event.rawPath,
      status,
      headers,
      body: body ?? '',
      function: target.route.function,
    }).length > 0
  )
    failure = 'contract_violation';
  return { status, headers, body, failure };
}

/** A route's own seed, so `--route` replays one route exactly as a full run would. */
export function routeSeed(seed: number, key: string): number {
  let hash = 0x811c9dc5;
  for (const char of key) hash = Math.imul(hash ^ (char.codePointAt(0) ?? 0), 0x01000193);
  return (seed ^ hash) | 0;
}

export interface FuzzOptions {
  cases: number;
  seed: number;
  world: FuzzWorld;
  /** Shrinking stops after this long (ms); the smallest failure found by then is reported. */
  shrinkTimeMs?: number;
}

/**
 * Runs `cases` requests of one route and counts failures. The first pass counts every case; when one
 * failed, a second pass with the same seed lets fast-check shrink the first failure to a minimal one.
 * Uncaught exceptions and unhandled rejections anywhere in the process while the route runs count too.
 */
export async function fuzzRoute(target: FuzzTarget, options: FuzzOptions): Promise<RouteStats> {
  const seed = routeSeed(options.seed, target.key);
  const stats: RouteStats = {
    route: target.key,
    cases: 0,
    five_xx: 0,
    uncaught: 0,
    invalid_error_bodies: 0,
    contract_violations: 0,
    statuses: {},
    seed,
    ms: 0,
  };
  const started = Date.now();
  const watch = watchProcess();
  let first: { request: FuzzRequest; result: CaseResult } | undefined;
  try {
    const details = await fc.check(
      fc.asyncProperty(target.arbitrary, async (request) => {
        const result = await runCase(target, request, options.world);
        stats.cases += 1;
        const status = String(result.status ?? 'none');
        stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
        if (result.failure === 'five_xx') stats.five_xx += 1;
        if (result.failure === 'uncaught') stats.uncaught += 1;
        if (result.failure === 'invalid_error_body') stats.invalid_error_bodies += 1;
        if (result.failure === 'contract_violation') stats.contract_violations += 1;
        if (result.failure && !first) first = { request, result };
        return true;
      }),
      { numRuns: options.cases, seed },
    );
    if (details.failed) throw details.errorInstance ?? new HarnessError(`the ${target.key} fuzz run failed`);
    // Let rejections of work started by the last requests surface before counting them.
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    watch.stop();
  }
  stats.uncaught += watch.count();
  if (first) {
    const shrunk = await fc.check(
      fc.asyncProperty(
        target.arbitrary,
        async (request) => (await runCase(target, request, options.world)).failure === undefined,
      ),
      { numRuns: options.cases, seed, interruptAfterTimeLimit: options.shrinkTimeMs ?? 120000 },
    );
    const request = shrunk.failed && shrunk.counterexample ? shrunk.counterexample[0] : first.request;
    const result = request === first.request ? first.result : await runCase(target, request, options.world);
    stats.counterexample = describeCase(target, request, result, options.world.secrets);
    if (!shrunk.failed)
      stats.counterexample += '\n  (did not fail again on replay: the first failure, unshrunk)';
  } else if (watch.errors.length > 0) {
    stats.counterexample = `uncaught outside any request: ${redact(String(watch.errors[0]), options.world.secrets)}`;
  }
  stats.ms = Date.now() - started;
  return stats;
}

const ACCESS_TOKEN =
  /[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\.[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\.[A-Za-z0-9_-]{43}/g;

/** Hides tokens, client secrets and the given values. */
export function redact(text: string, secrets: string[]): string {
  let out = text
    .replace(ACCESS_TOKEN, '<token>')
    .replace(/("(?:access_token|client_secret)"\s*:\s*)"[^"]*"/g, '$1"<redacted>"');
  for (const secret of secrets) if (secret !== '') out = out.split(secret).join('<secret>');
  return out;
}

function clip(text: string, max = 600): string {
  return text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text;
}

/** A failing case as text: the request as generated (placeholders, Authorization redacted) and the response. */
export function describeCase(
  target: FuzzTarget,
  request: FuzzRequest,
  result: CaseResult,
  secrets: string[],
): string {
  const path = target.route.path.replace(
    /\{([A-Za-z0-9_]+)\}/g,
    (_w, name: string) => request.params[name] ?? '',
  );
  const lines = [
    `  ${target.route.method} ${clip(path)}${request.query === '' ? '' : `?${clip(request.query)}`}`,
  ];
  for (const [name, value] of Object.entries(request.headers)) {
    const shown = name.toLowerCase() === 'authorization' ? `<redacted, ${value.length} characters>` : value;
    lines.push(`  ${name}: ${clip(JSON.stringify(shown))}`);
  }
  if (request.body) {
    lines.push(
      request.body.base64
        ? `  body (base64, isBase64Encoded): ${clip(request.body.text, 200)}`
        : `  body: ${clip(JSON.stringify(request.body.text), 1000)}`,
    );
  }
  lines.push(`  -> ${result.failure}: status ${result.status ?? 'none'}`);
  if (result.body !== undefined) lines.push(`  response body: ${clip(result.body, 1000)}`);
  if (result.error !== undefined) {
    const error = result.error as Error;
    lines.push(`  error: ${clip(error?.stack ?? String(error), 2000)}`);
  }
  return redact(lines.join('\n'), secrets);
}
