import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { issueAccessToken } from '../lib/auth/issue-token';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { type StoreRecord, storeRepository } from '../lib/store/store-repository';
import { createHttpEvent } from '../local/http-event';
import { matchRoute } from '../local/router';

/** A store with credentials and data, and realistic API Gateway events for each function. */
export interface Scenario {
  store: StoreRecord;
  clientId: string;
  /** The id of the key whose credentials issue the tokens. */
  keyId: string;
  clientSecret: string;
  adminToken: string;
  implicitToken: string;
  /** Builds an event for a route as API Gateway would deliver it. */
  event(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): APIGatewayProxyEventV2;
}

/** Creates a store with `keys` application keys (the first one's credentials are used for tokens). */
export async function createScenario(keys = 1): Promise<Scenario> {
  const store = await storeRepository.create({ name: 'Bench store', rate_limit: 100000 });
  const { key, clientSecret } = await applicationKeyRepository.create(store.id, {
    name: 'bench-0',
    reserved_rate_limit: 1,
  });
  for (let i = 1; i < keys; i += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, keys - i) }, (_, j) =>
        applicationKeyRepository.create(store.id, { name: `bench-${i + j}`, reserved_rate_limit: 1 }),
      ),
    );
  }
  const adminToken = (
    await issueAccessToken({
      grant_type: 'client_credentials',
      client_id: key.client_id,
      client_secret: clientSecret,
    })
  ).access_token;
  const implicitToken = (await issueAccessToken({ grant_type: 'implicit', client_id: key.client_id }))
    .access_token;
  const refreshed = (await storeRepository.get(store.id, true)) ?? store;
  return {
    store: refreshed,
    clientId: key.client_id,
    keyId: key.id,
    clientSecret,
    adminToken,
    implicitToken,
    event(method, path, options = {}) {
      const match = matchRoute(method, path.split('?')[0] ?? path);
      if (!match) throw new Error(`no route for ${method} ${path}`);
      const headers: Record<string, string> = {
        host: 'api.bench.local',
        'user-agent': 'bench',
        'x-forwarded-proto': 'https',
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      };
      return createHttpEvent({
        method,
        path,
        headers,
        body:
          options.body === undefined
            ? undefined
            : typeof options.body === 'string'
              ? options.body
              : JSON.stringify(options.body),
        routeKey: match.routeKey,
        pathParameters: match.pathParameters,
      });
    },
  };
}
