import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { createTestStore, type TestStore, tokenFor } from '../support/fixtures';
import { type LocalApi, startLocalApi } from '../support/local-api';

/*
 * Rate limits over HTTP against the local API: one key floods its store and gets 429s with
 * Retry-After; meanwhile a reserved key of the same store and another store's key, each within its
 * allowance, are served every time.
 */

let api: LocalApi;
let flooded: TestStore;
let other: TestStore;
let floodToken: string;
let reservedToken: string;
let otherToken: string;

const RATE_LIMIT = 10;
const RESERVED = 4;

beforeAll(async () => {
  api = await startLocalApi();
  flooded = await createTestStore({ rate_limit: RATE_LIMIT });
  other = await createTestStore({ rate_limit: RATE_LIMIT });
  const { key, clientSecret } = await applicationKeyRepository.create(flooded.store.id, {
    name: 'reserved',
    reserved_rate_limit: RESERVED,
  });
  floodToken = await tokenFor(flooded);
  reservedToken = await tokenFor({ ...flooded, keyId: key.id, clientId: key.client_id, clientSecret });
  otherToken = await tokenFor(other);
}, 30_000);
afterAll(() => api.close());

const listKeys = (token: string) =>
  fetch(`${api.baseUrl}/v2/application-keys?page[limit]=1`, {
    headers: { authorization: `Bearer ${token}` },
  });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('floods one key into 429s while a reserved key of its store and another store are served', async () => {
  const startWindow = Math.floor(Date.now() / 1000);
  const floodResponses: Response[] = [];
  const quiet: { who: string; response: Response }[] = [];
  // One request at a time (overlapping requests would share the local server's logger, which the log
  // scan of this suite cannot tell apart): 15 of the flooding key per round, about 40 a second against its
  // 6/s, and one each of the reserved key and the other store, 3 a second each: within their allowances.
  for (let round = 0; round < 8; round += 1) {
    for (let i = 0; i < 15; i += 1) floodResponses.push(await listKeys(floodToken));
    quiet.push({ who: 'reserved', response: await listKeys(reservedToken) });
    quiet.push({ who: 'other store', response: await listKeys(otherToken) });
    await sleep(300);
  }

  const windows = Math.floor(Date.now() / 1000) - startWindow + 1;
  const refused = floodResponses.filter((r) => r.status === 429);
  // The flooding key may have the pool (10 - 4 reserved) each second, no more.
  expect(refused.length).toBeGreaterThan(0);
  expect(floodResponses.length - refused.length).toBeLessThanOrEqual((RATE_LIMIT - RESERVED) * windows);
  expect(floodResponses.filter((r) => r.status !== 200 && r.status !== 429)).toEqual([]);
  for (const response of refused.slice(0, 5)) {
    expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(response.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMIT - RESERVED));
    expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
    const body = (await response.json()) as { errors: unknown };
    expect(body.errors).toEqual([
      {
        status: '429',
        title: 'Too Many Requests',
        detail: expect.stringContaining('Rate limit'),
        request_id: expect.any(String),
      },
    ]);
  }
  expect(quiet.map(({ who, response }) => [who, response.status])).toEqual(
    quiet.map(({ who }) => [who, 200]),
  );
  const reserved = quiet.find((q) => q.who === 'reserved')?.response;
  expect(reserved?.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMIT));
  const untouched = quiet.find((q) => q.who === 'other store')?.response;
  expect(untouched?.headers.get('x-ratelimit-limit')).toBe(String(RATE_LIMIT));
}, 60_000);
