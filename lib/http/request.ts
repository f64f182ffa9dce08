import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { BadRequestError } from './errors';

/** A path parameter the route template guarantees; 400 if the event lacks it. */
export function pathParameter(event: APIGatewayProxyEventV2, name: string): string {
  const value = event.pathParameters?.[name];
  if (value === undefined || value === '')
    throw new BadRequestError(`path parameter ${name} is required`, name);
  return value;
}

/** A query parameter by name (already decoded; `page[limit]` matches raw and percent-encoded brackets). */
export function queryParameter(event: APIGatewayProxyEventV2, name: string): string | undefined {
  return event.queryStringParameters?.[name];
}

/** Absolute base URL of the request, from its scheme and host (`x-forwarded-proto` behind API Gateway). */
export function requestOrigin(event: APIGatewayProxyEventV2): string {
  const host = event.headers.host ?? event.requestContext.domainName;
  const proto =
    event.headers['x-forwarded-proto']?.split(',')[0]?.trim() ||
    (host.startsWith('127.0.0.1') || host.startsWith('localhost') ? 'http' : 'https');
  return `${proto}://${host}`;
}
