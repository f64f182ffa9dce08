import { Logger, LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { type LogLevel, logLevelFrom } from '../config/index';

/**
 * Structured JSON logs (Powertools): one JSON object per line, info and debug on stdout, warn and error
 * on stderr. Callers pass only safe fields: never headers, bodies, query strings, secrets or tokens.
 * Fields, levels and what is never logged: docs/logs.md.
 */

/** `service` on every line (POWERTOOLS_SERVICE_NAME overrides it). */
export const SERVICE_NAME = 'commerce-api';

/** At init, once per container; a bad value logs at `info` here and fails the init in `getConfig()`. */
function initialLevel(): LogLevel {
  try {
    return logLevelFrom();
  } catch {
    return 'info';
  }
}

/** Powertools' logger, told which invocation is a function's first (see `requestLogging`). */
class FunctionLogger extends Logger {
  /** Whether the next invocation's lines say `cold_start: true` (when the container started on demand). */
  setColdStart(value: boolean): void {
    this.coldStart = value;
  }
}

/** The container's logger (module scope: one per container, like every client). */
export const logger = new FunctionLogger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || SERVICE_NAME,
  logLevel: initialLevel(),
});

export type Level = Exclude<LogLevel, 'silent'>;

/**
 * Whether debug lines are written now. Powertools builds a suppressed line's trace context before it
 * compares levels, so every debug call on the request path asks this first: at `info` (the deployed
 * default) a debug line then costs one level lookup, not a line's worth of work per request.
 */
export function debugEnabled(): boolean {
  return logger.level <= LogLevelThreshold.DEBUG;
}

/** One line at `level`; inside a request it also carries the request id, route and function name. */
export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (level === 'debug' && !debugEnabled()) return;
  logger[level](message, fields);
}

/** Values shorter than this are never treated as secrets (they would match ordinary text). */
const MIN_SECRET_LENGTH = 8;

/** Replaces every occurrence of each secret in `text` with `[REDACTED]`. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret !== undefined && secret.length >= MIN_SECRET_LENGTH)
      out = out.split(secret).join('[REDACTED]');
  }
  return out;
}

/** An error's name, message and stack for a log line, with the given secrets redacted from both. */
export function errorFields(
  error: unknown,
  secrets: readonly (string | undefined)[] = [],
): { name: string; message: string; stack?: string } {
  if (!(error instanceof Error)) return { name: typeof error, message: redact(String(error), secrets) };
  return {
    name: error.name,
    message: redact(error.message, secrets),
    ...(error.stack === undefined ? {} : { stack: redact(error.stack, secrets) }),
  };
}

/**
 * The credentials a request carries, to keep them out of an error line even when an error message
 * quotes them: the Authorization value (whole, and after its scheme) and a body's `client_secret`.
 */
export function requestSecrets(
  headers: Record<string, string | string[] | undefined> | undefined,
  body?: unknown,
): string[] {
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'authorization' || value === undefined) continue;
    for (const each of Array.isArray(value) ? value : [value]) {
      secrets.push(each);
      const credential = each.trim().split(/\s+/)[1];
      if (credential !== undefined) secrets.push(credential);
    }
  }
  const clientSecret = (body as { client_secret?: unknown } | undefined)?.client_secret;
  if (typeof clientSecret === 'string') secrets.push(clientSecret);
  return secrets;
}

/** Errors whose requests are logged as counts elsewhere (the rate limit's refusals): no access line each. */
const countedElsewhere = new WeakSet<object>();

/**
 * Marks an error as logged as a count by its own log (the refusal log sums 429s per key and second), so
 * its request writes no access line: a flood of refusals must not be a flood of lines.
 */
export function loggedAsCount<E extends object>(error: E): E {
  countedElsewhere.add(error);
  return error;
}

type LoggedEvent = APIGatewayProxyEventV2 & { parsedBody?: unknown };
type LoggedResult = { statusCode?: number } | undefined;

/**
 * The keys of one request, passed explicitly on the access and error lines so those two are exact even
 * when invocations overlap in one process (the local server); the other lines get them from the logger.
 */
function requestKeys(operation: string, event: LoggedEvent, context: Context) {
  return { route: event.routeKey, operation, function_request_id: context.awsRequestId };
}

/**
 * The logging middlewares of one function, registered before every other middleware: Powertools'
 * context injection (function name, request id, cold start; keys reset after each invocation; the event
 * is never logged, whatever POWERTOOLS_LOGGER_LOG_EVENT says) with the route and operation appended,
 * then one info access line per request (none for a refusal the refusal log counts: `loggedAsCount`) and
 * an error line for every 5xx response.
 */
export function requestLogging(operation: string): MiddlewareObj<LoggedEvent, LoggedResult>[] {
  const started = new WeakMap<object, number>();
  // One process may serve several functions (the local server): each one's first invocation is its
  // cold start. In Lambda (one function per container) this is what Powertools tracks itself; the
  // logger still reports false when the container was not started on demand (provisioned concurrency).
  let firstInvocation = true;
  const coldStart: MiddlewareObj<LoggedEvent, LoggedResult> = {
    before: () => {
      logger.setColdStart(firstInvocation);
      firstInvocation = false;
    },
  };
  const accessLine = (request: Request<LoggedEvent, LoggedResult>) => {
    // Powertools builds a line's trace context before it compares levels: below info, build nothing.
    if (logger.level > LogLevelThreshold.INFO) return;
    const { event } = request;
    const start = started.get(request);
    logger.info('request completed', {
      ...requestKeys(operation, event, request.context),
      method: event.requestContext?.http?.method,
      status: request.response?.statusCode ?? 500,
      duration_ms: start === undefined ? undefined : Math.round((performance.now() - start) * 10) / 10,
      apigw_request_id: event.requestContext?.requestId,
    });
  };
  const requestLog: MiddlewareObj<LoggedEvent, LoggedResult> = {
    before: (request) => {
      started.set(request, performance.now());
      logger.appendKeys({ route: request.event.routeKey, operation });
      if (debugEnabled())
        logger.debug('request started', { method: request.event.requestContext?.http?.method });
    },
    after: accessLine,
    // Runs after the error middleware (registered later) has turned the error into the response.
    onError: (request) => {
      const status = request.response?.statusCode ?? 500;
      if (status >= 500) {
        const { event } = request;
        logger.error('request failed', {
          ...requestKeys(operation, event, request.context),
          status,
          error: errorFields(request.error, requestSecrets(event.headers, event.parsedBody)),
        });
      }
      if (!(typeof request.error === 'object' && request.error && countedElsewhere.has(request.error)))
        accessLine(request);
    },
  };
  return [
    coldStart,
    injectLambdaContext(logger, { resetKeys: true, logEvent: false }) as MiddlewareObj<
      LoggedEvent,
      LoggedResult
    >,
    requestLog,
  ];
}
