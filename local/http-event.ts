import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

export interface HttpEventInput {
  method: string;
  /** Path with an optional query string, e.g. `/v2/application-keys?page[limit]=5`. */
  path: string;
  headers?: Record<string, string | undefined>;
  body?: string | undefined;
  isBase64Encoded?: boolean;
  /** `METHOD /template/{param}` as API Gateway names the matched route; `$default` when none. */
  routeKey?: string;
  pathParameters?: Record<string, string>;
  sourceIp?: string;
  requestId?: string;
  stage?: string;
}

/** Decodes a raw query string the way API Gateway fills `queryStringParameters` (repeats joined by commas). */
export function parseQueryString(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const params: Record<string, string> = {};
  for (const part of rawQueryString.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawKey = eq === -1 ? part : part.slice(0, eq);
    const rawValue = eq === -1 ? '' : part.slice(eq + 1);
    const key = safeDecode(rawKey);
    const value = safeDecode(rawValue);
    // Own keys only: `?constructor=a` is a parameter, not Object.prototype.constructor.
    params[key] = Object.hasOwn(params, key) ? `${params[key]},${value}` : value;
  }
  return params;
}

function safeDecode(value: string): string {
  const spaced = value.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** Builds an API Gateway HTTP API payload 2.0 event: used by tests, `npm run event` and the local server. */
export function createHttpEvent(input: HttpEventInput): APIGatewayProxyEventV2 {
  const queryIndex = input.path.indexOf('?');
  const rawPath = queryIndex === -1 ? input.path : input.path.slice(0, queryIndex);
  const rawQueryString = queryIndex === -1 ? '' : input.path.slice(queryIndex + 1);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  const cookies = headers.cookie?.split(/;\s*/);
  delete headers.cookie;
  const now = new Date();
  const method = input.method.toUpperCase();
  const queryStringParameters = parseQueryString(rawQueryString);
  return {
    version: '2.0',
    routeKey: input.routeKey ?? '$default',
    rawPath,
    rawQueryString,
    ...(cookies ? { cookies } : {}),
    headers,
    ...(queryStringParameters ? { queryStringParameters } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: input.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: input.requestId ?? randomUUID(),
      routeKey: input.routeKey ?? '$default',
      stage: input.stage ?? '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(input.pathParameters ? { pathParameters: input.pathParameters } : {}),
    ...(input.body !== undefined ? { body: input.body } : {}),
    isBase64Encoded: input.isBase64Encoded ?? false,
  };
}

/** A Lambda context for in-process invocations (local server, invoke, tests, benchmarks). */
export function createLambdaContext(functionName = 'local', requestId: string = randomUUID()): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:123456789012:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => 30000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const typeOf = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;

function stringMap(value: unknown, name: string): string | undefined {
  if (!isObject(value)) return `${name} must be an object of strings`;
  for (const [key, item] of Object.entries(value))
    if (typeof item !== 'string') return `${name}.${key} must be a string, got ${typeOf(item)}`;
  return undefined;
}

/**
 * What makes `value` something API Gateway (HTTP API, payload 2.0) would never send, or undefined when it
 * has the fields every function reads: a function given less fails inside (a 500) instead of saying so.
 */
export function httpEventProblem(value: unknown): string | undefined {
  if (!isObject(value)) return `it must be a JSON object, got ${typeOf(value)}`;
  if (value.version !== '2.0') return `version must be "2.0", got ${JSON.stringify(value.version)}`;
  for (const name of ['routeKey', 'rawPath', 'rawQueryString'] as const)
    if (typeof value[name] !== 'string') return `${name} must be a string, got ${typeOf(value[name])}`;
  const headers = stringMap(value.headers, 'headers');
  if (headers) return headers;
  for (const name of ['queryStringParameters', 'pathParameters'] as const) {
    const problem = value[name] === undefined ? undefined : stringMap(value[name], name);
    if (problem) return problem;
  }
  if (value.body !== undefined && typeof value.body !== 'string')
    return `body must be a string, got ${typeOf(value.body)}`;
  if (typeof value.isBase64Encoded !== 'boolean')
    return `isBase64Encoded must be true or false, got ${typeOf(value.isBase64Encoded)}`;
  const context = value.requestContext;
  if (!isObject(context)) return 'requestContext must be an object';
  if (typeof context.requestId !== 'string')
    return `requestContext.requestId must be a string, got ${typeOf(context.requestId)}`;
  if (!isObject(context.http)) return 'requestContext.http must be an object';
  for (const name of ['method', 'path', 'sourceIp'] as const)
    if (typeof context.http[name] !== 'string')
      return `requestContext.http.${name} must be a string, got ${typeOf(context.http[name])}`;
  return undefined;
}
