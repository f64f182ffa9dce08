import { createTestStore, SHARED_STORE_RATE_LIMIT, tokenFor } from './fixtures';

/** A JSON answer of the local API: its status and parsed body. */
export interface JsonAnswer {
  status: number;
  body: any;
}

/**
 * A new store and a `call` that sends JSON requests to the local API at `base` with its client_credentials
 * token, answering the status and the parsed body.
 */
export async function newStoreClient(base: string): Promise<{
  storeId: string;
  call: (method: string, path: string, body?: unknown) => Promise<JsonAnswer>;
}> {
  const store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  const headers = { Authorization: `Bearer ${await tokenFor(store)}`, 'Content-Type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown): Promise<JsonAnswer> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  };
  return { storeId: store.store.id, call };
}
