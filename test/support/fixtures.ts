import type { Context } from 'aws-lambda';
import { FUNCTIONS, type FunctionName } from '../../functions/routes';
import { issueAccessToken } from '../../lib/auth/issue-token';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { type NewStore, type StoreRecord, storeRepository } from '../../lib/store/store-repository';
import { createHttpEvent, createLambdaContext, type HttpEventInput } from '../../local/http-event';
import { assertMatchesDocument } from './openapi';

export interface TestStore {
  store: StoreRecord;
  keyId: string;
  clientId: string;
  clientSecret: string;
}

/** A new store with one application key (reserved rate limit 0). */
/**
 * The rate limit of a store that a whole test file reads through, for files that are not about rate limits:
 * one source address may take half of a store's shopper pool per second, and a fast machine sends more
 * than 50 requests a second from one file, so the default 100/s store would answer 429s by speed alone.
 */
export const SHARED_STORE_RATE_LIMIT = 100_000;

export async function createTestStore(input: Partial<NewStore> = {}): Promise<TestStore> {
  const store = await storeRepository.create({ name: 'Test store', ...input });
  const { key, clientSecret } = await applicationKeyRepository.create(store.id, {
    name: 'First key',
    reserved_rate_limit: 0,
  });
  return { store: { ...store, key_count: 1 }, keyId: key.id, clientId: key.client_id, clientSecret };
}

/** An access token of the given kind for a test store's key. */
export async function tokenFor(
  store: TestStore,
  kind: 'client_credentials' | 'implicit' = 'client_credentials',
) {
  const response = await issueAccessToken(
    kind === 'client_credentials'
      ? { grant_type: kind, client_id: store.clientId, client_secret: store.clientSecret }
      : { grant_type: kind, client_id: store.clientId },
  );
  return response.access_token;
}

export interface InvokeResult {
  status: number;
  headers: Record<string, string>;
  body: any;
  raw: string;
}

type AnyHandler = (event: any, context: Context) => Promise<any>;

let handlerNames: Promise<Map<unknown, FunctionName>> | undefined;

/** Which function of the route table a handler is (the same module instances the test imported). */
function functionOf(handler: AnyHandler): Promise<FunctionName | undefined> {
  handlerNames ??= Promise.all(
    (Object.keys(FUNCTIONS) as FunctionName[]).map(
      async (name) => [(await import(`../../functions/${name}/handler`)).handler as unknown, name] as const,
    ),
  ).then((entries) => new Map(entries));
  return handlerNames.then((names) => names.get(handler));
}

/**
 * Invokes a handler in-process with an API Gateway HTTP API 2.0 event built by the shared factory.
 * Every response of a route-table function is checked against openapi.json (status, headers, body).
 */
export async function invoke(handler: AnyHandler, input: HttpEventInput): Promise<InvokeResult> {
  const result = await handler(createHttpEvent(input), createLambdaContext());
  const raw: string = result.body ?? '';
  const headers: Record<string, string> = result.headers ?? {};
  const functionName = await functionOf(handler);
  if (functionName !== undefined) {
    assertMatchesDocument({
      method: input.method,
      path: input.path,
      status: result.statusCode,
      headers,
      body: raw,
      function: functionName,
    });
  }
  return { status: result.statusCode, headers, body: raw ? JSON.parse(raw) : undefined, raw };
}

/** Headers with a bearer token. */
export function bearer(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${token}`, ...extra };
}
