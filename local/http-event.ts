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
