import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { type LogLevel, logLevelFrom } from '../config/index';
import { monotonicMs } from '../runtime/clock';
import { writeOut } from '../runtime/stdio';

/**
 * Structured JSON logs: one JSON object per line, info and debug on stdout, warn and error on stderr, in
 * the line format of the Powertools for AWS Lambda logger (its fields and their order), written by the
 * few lines below rather than by Powertools itself, whose logger took 17 KiB of every bundle and about 2 ms of
 * its cold start (docs/performance.md). Callers pass only safe fields:
 * never headers, bodies, query strings, secrets or tokens. Fields, levels and what is never logged:
 * docs/logs.md.
 */

/** `service` on every line (POWERTOOLS_SERVICE_NAME overrides it). */
export const SERVICE_NAME = 'commerce-api';

/** Each level's threshold, as Powertools numbers them: a line is written when its level's is at least the logger's. */
export const LogLevelThreshold = { DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, SILENT: 28 } as const;

const THRESHOLDS: Record<LogLevel, number> = {
  debug: LogLevelThreshold.DEBUG,
  info: LogLevelThreshold.INFO,
  warn: LogLevelThreshold.WARN,
  error: LogLevelThreshold.ERROR,
  silent: LogLevelThreshold.SILENT,
};

/** Lambda's application log levels (Advanced Logging Controls), as thresholds. */
const LAMBDA_THRESHOLDS: Record<string, number> = {
  TRACE: LogLevelThreshold.DEBUG,
  DEBUG: LogLevelThreshold.DEBUG,
  INFO: LogLevelThreshold.INFO,
  WARN: LogLevelThreshold.WARN,
  ERROR: LogLevelThreshold.ERROR,
  FATAL: LogLevelThreshold.ERROR,
};

/** At init, once per container; a bad value logs at `info` here and fails the init in `getConfig()`. */
function initialLevel(): LogLevel {
  try {
    return logLevelFrom();
  } catch {
    return 'info';
  }
}

/** The level's threshold, never below the function's Lambda log level (AWS_LAMBDA_LOG_LEVEL) when set. */
function threshold(level: LogLevel, env: NodeJS.ProcessEnv = process.env): number {
  const floor = LAMBDA_THRESHOLDS[env.AWS_LAMBDA_LOG_LEVEL?.trim().toUpperCase() ?? ''] ?? 0;
  return Math.max(THRESHOLDS[level], floor);
}

/** What a Lambda context puts on each line of its invocation. */
interface InvocationKeys {
  cold_start: boolean;
  function_arn: string;
  function_memory_size: string | number;
  function_name: string;
  function_request_id: string;
}

/**
 * A value as JSON: an Error as its name, message and stack; a bigint as its digits; a value met again
 * inside itself as `[Circular]` (a log line never throws).
 */
function lineJson(line: Record<string, unknown>): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(line, (_key, value: unknown) => {
    if (typeof value === 'bigint') return value.toString();
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return '[Circular]';
    seen.add(value);
    if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
    return value;
  });
}

/** The container's JSON logger, told which invocation is a function's first (see `requestLogging`). */
class FunctionLogger {
  /** The threshold below which lines are dropped (LogLevelThreshold). */
  level: number;
  private readonly service: string;
  /**
   * Whether this container was started on demand: only then is a first invocation a cold start (as
   * Powertools reads AWS_LAMBDA_INITIALIZATION_TYPE; provisioned concurrency or an unknown type: never).
   */
  private readonly onDemand: boolean;
  private coldStart = true;
  private invocation: InvocationKeys | undefined;
  private keys: Record<string, unknown> = {};

  constructor(options: { serviceName: string; logLevel: LogLevel }, env: NodeJS.ProcessEnv = process.env) {
    this.service = options.serviceName;
    this.level = threshold(options.logLevel, env);
    this.onDemand = env.AWS_LAMBDA_INITIALIZATION_TYPE?.trim() === 'on-demand';
  }

  /** Whether the next invocation's lines say `cold_start: true` (when the container started on demand). */
  setColdStart(value: boolean): void {
    this.coldStart = value;
  }

  /** The invocation's keys, from its Lambda context, on every line until `clearInvocation`. */
  addContext(context: Context): void {
    this.invocation = {
      cold_start: this.onDemand && this.coldStart,
      function_arn: context.invokedFunctionArn,
      function_memory_size: context.memoryLimitInMB,
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
    };
  }

  /** Keys on every line from now until `clearInvocation` (later ones win). */
  appendKeys(keys: Record<string, unknown>): void {
    Object.assign(this.keys, keys);
  }

  /** Forgets the invocation's keys and the appended ones: lines outside a request carry neither. */
  clearInvocation(): void {
    this.invocation = undefined;
    this.keys = {};
  }

  debug(message: string, fields: Record<string, unknown> = {}): void {
    this.write('DEBUG', LogLevelThreshold.DEBUG, message, fields);
  }

  info(message: string, fields: Record<string, unknown> = {}): void {
    this.write('INFO', LogLevelThreshold.INFO, message, fields);
  }

  warn(message: string, fields: Record<string, unknown> = {}): void {
    this.write('WARN', LogLevelThreshold.WARN, message, fields);
  }

  error(message: string, fields: Record<string, unknown> = {}): void {
    this.write('ERROR', LogLevelThreshold.ERROR, message, fields);
  }

  private write(name: string, at: number, message: string, fields: Record<string, unknown>): void {
    if (at < this.level) return;
    const traceId = process.env._X_AMZN_TRACE_ID?.match(/Root=([^;]+)/)?.[1];
    const line = lineJson({
      level: name,
      message,
      timestamp: new Date().toISOString(),
      service: this.service,
      ...this.invocation,
      ...(traceId === undefined ? {} : { xray_trace_id: traceId }),
      ...this.keys,
      ...fields,
    });
    writeOut(at >= LogLevelThreshold.WARN ? 'stderr' : 'stdout', `${line}\n`);
  }
}

/** The container's logger (module scope: one per container, like every client). */
export const logger = new FunctionLogger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || SERVICE_NAME,
  logLevel: initialLevel(),
});

export type Level = Exclude<LogLevel, 'silent'>;

/**
 * Whether debug lines are written now: every debug call on the request path asks this first, so at `info`
 * (the deployed default) a debug line costs one level lookup, not its fields' object per request.
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
 * The logging middlewares of one function, registered before every other middleware: the invocation's
 * context on every line (function name, request id, cold start; dropped after each invocation with the
 * keys appended in it; the event is never logged) with the route and operation appended, then one info
 * access line per request (none for a refusal the refusal log counts: `loggedAsCount`) and an error line
 * for every 5xx response.
 */
export function requestLogging(operation: string): MiddlewareObj<LoggedEvent, LoggedResult>[] {
  const started = new WeakMap<object, number>();
  // One process may serve several functions (the local server): each one's first invocation is its
  // cold start. The logger still reports false when the container was not started on demand
  // (provisioned concurrency).
  let firstInvocation = true;
  const invocation: MiddlewareObj<LoggedEvent, LoggedResult> = {
    before: (request) => {
      logger.setColdStart(firstInvocation);
      firstInvocation = false;
      logger.addContext(request.context);
    },
    after: () => logger.clearInvocation(),
    onError: () => logger.clearInvocation(),
  };
  const accessLine = (request: Request<LoggedEvent, LoggedResult>) => {
    // Above info, not even the line's fields are built.
    if (logger.level > LogLevelThreshold.INFO) return;
    const { event } = request;
    const start = started.get(request);
    logger.info('request completed', {
      ...requestKeys(operation, event, request.context),
      method: event.requestContext?.http?.method,
      status: request.response?.statusCode ?? 500,
      duration_ms: start === undefined ? undefined : Math.round((monotonicMs() - start) * 10) / 10,
      apigw_request_id: event.requestContext?.requestId,
    });
  };
  const requestLog: MiddlewareObj<LoggedEvent, LoggedResult> = {
    before: (request) => {
      started.set(request, monotonicMs());
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
  return [invocation, requestLog];
}
