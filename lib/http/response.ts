import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { ErrorObject } from './errors';

export type HttpResponse = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string>;
};

const JSON_HEADERS = { 'Content-Type': 'application/json' } as const;

/** A JSON response with the given status and body. */
export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** A response whose body is JSON text already (e.g. assembled from cached fragments). */
export function jsonText(
  statusCode: number,
  body: string,
  headers: Record<string, string> = {},
): HttpResponse {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body };
}

/** 200 with a JSON body. */
export function ok(body: unknown): HttpResponse {
  return json(200, body);
}

/** 201 with a JSON body. */
export function created(body: unknown): HttpResponse {
  return json(201, body);
}

/** 204 with no body. */
export function noContent(): HttpResponse {
  return { statusCode: 204, headers: {}, body: '' };
}

/** The JSON error body (docs/errors.md). */
export function errorResponse(
  statusCode: number,
  errors: ErrorObject[],
  headers: Record<string, string> = {},
) {
  return json(statusCode, { errors }, headers);
}
