import { shopperFlood } from '../../bench/shopper-flood';
import { handler as listKeys } from '../../functions/list-application-keys/handler';
import { getConfig, resetConfig } from '../../lib/config/index';
import { rateLimiter, resetRateLimits } from '../../lib/rate-limit/index';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { getDocumentClient } from '../../lib/store/client';
import { tableName } from '../../lib/store/schema';
import { bearer, createTestStore, invoke, tokenFor } from '../support/fixtures';

/*
 * What the limits must never do, on DynamoDB Local: a token whose key is gone is refused (never
 * unlimited), and a stalled limits table costs a request at most the limiter's deadline, once.
 */

const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const list = (token: string) =>
  invoke(listKeys, { method: 'GET', path: '/v2/application-keys', headers: bearer(token, HEADERS) });

beforeEach(() => resetRateLimits());

it('refuses a cached token once its key is gone, instead of admitting it without a limit', async () => {
  const test = await createTestStore({ rate_limit: 5 });
  const { key, clientSecret } = await applicationKeyRepository.create(test.store.id, {
    name: 'doomed',
    reserved_rate_limit: 0,
  });
  const doomed = { ...test, keyId: key.id, clientId: key.client_id, clientSecret };
  const token = await tokenFor(doomed);
  expect((await list(token)).status).toBe(200); // the token is now in this container's cache
  await applicationKeyRepository.delete(test.store.id, key.id);
  // A container that has not read the key's limits yet (or reads them again) finds no key: 401, every time.
  resetRateLimits();
  const admittedBefore = rateLimiter.stats.admitted;
  const statuses: number[] = [];
  for (let i = 0; i < 20; i += 1) statuses.push((await list(token)).status);
  expect(statuses).toEqual(Array(20).fill(401));
  expect(rateLimiter.stats.admitted - admittedBefore).toBe(0);
});

describe('a stalled limits table', () => {
  const deadline = 40;
  let remove: (() => void) | undefined;
  beforeAll(() => {
    process.env.RATE_LIMIT_DEADLINE_MS = String(deadline);
    resetConfig();
  });
  afterAll(() => {
    process.env.RATE_LIMIT_DEADLINE_MS = '1000';
    resetConfig();
  });
  afterEach(() => remove?.());

  it('costs the first request nothing and one request the deadline, then fails open at once', async () => {
    const test = await createTestStore({ rate_limit: 100 });
    const token = await tokenFor(test);
    expect(getConfig().rateLimitDeadlineMs).toBe(deadline);
    const limits = tableName('limits');
    // Every call on the limits table hangs 1.5 s (the lease; the key's limits are read from the keys table).
    remove = getDocumentClient().use((next) => async (operation, body) => {
      if (body.includes(`"${limits}"`)) await sleep(1500);
      return next(operation, body);
    });
    const before = { ...rateLimiter.stats };
    const times: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const started = Date.now();
      expect((await list(token)).status).toBe(200);
      times.push(Date.now() - started);
    }
    // One request waited for the stalled lease (the deadline), none waited 1.5 s, let alone the retries.
    expect(Math.max(...times)).toBeLessThan(1000);
    expect(rateLimiter.stats.unleased - before.unleased).toBe(1);
    expect(rateLimiter.stats.waits - before.waits).toBe(1);
    expect(rateLimiter.stats.failedOpen - before.failedOpen).toBe(9);
    await rateLimiter.settled();
  });
});

describe('a storefront flood', () => {
  jest.setTimeout(60_000);

  it('from one address leaves the admin key at least 90% served and another shopper at least 80%, at a store of 20/s', async () => {
    const figures = await shopperFlood(3);
    expect(figures.admin.sent).toBeGreaterThanOrEqual(8);
    expect(figures.shopper.sent).toBeGreaterThanOrEqual(8);
    expect(figures.admin.ratio).toBeGreaterThanOrEqual(0.9);
    expect(figures.shopper.ratio).toBeGreaterThanOrEqual(0.8);
    // The flooder got at most half the pool (16/s) per second, never the whole store.
    expect(figures.flooder.served).toBeLessThanOrEqual(8 * figures.windows);
    expect(figures.flooder.served).toBeGreaterThan(0);
  });

  // One host of IPv6 holds a /64: 2^64 addresses. Counted one by one, each request from a fresh address of it
  // is a newcomer's, and the flood takes the part kept for new shoppers (their implicit grants and first pages).
  it('from one IPv6 host rotating through the addresses of its /64 counts as one address, at a store of 20/s', async () => {
    const rotating = (_flooder: number, request: number) => `2001:db8:66:1:${(request + 1).toString(16)}::1`;
    const figures = await shopperFlood(3, 1, 20, rotating);
    expect(figures.newcomers.sent).toBeGreaterThanOrEqual(8);
    expect(figures.admin.ratio).toBeGreaterThanOrEqual(0.9);
    expect(figures.shopper.ratio).toBeGreaterThanOrEqual(0.8);
    expect(figures.newcomers.ratio).toBeGreaterThanOrEqual(0.8);
    expect(figures.flooder.served).toBeLessThanOrEqual(8 * figures.windows);
  });

  // Each flooding address sends 100/s; the store allows 40/s, its admin key reserving 8, so the pool is
  // 32/s. Before the shares shrank with the number of addresses, two addresses took half the pool each:
  // the shopper was served 0 of its requests.
  it.each([2, 3, 4])(
    'from %i addresses leaves the admin key, a shopper and new shoppers served, at a store of 40/s',
    async (addresses) => {
      const figures = await shopperFlood(3, addresses, 40);
      expect(figures.shopper.sent).toBeGreaterThanOrEqual(8);
      expect(figures.newcomers.sent).toBeGreaterThanOrEqual(8);
      expect(figures.admin.ratio).toBeGreaterThanOrEqual(0.9);
      expect(figures.shopper.ratio).toBeGreaterThanOrEqual(0.9);
      // New shoppers are refused at most in the flood's first second (the flooders are new there too): a
      // new shopper comes every 7 ticks of 50 ms, so at most 3 fall in that second. A ratio (0.8 of about
      // 8) allowed only one, and failed whenever the flood began early in a wall-clock second.
      expect(figures.newcomers.sent - figures.newcomers.served).toBeLessThanOrEqual(3);
      // The flooders together get at most half the pool in the first second, then what the shopper and
      // the new shoppers leave less one share: never the whole pool.
      expect(figures.flooder.served).toBeLessThanOrEqual(29 + 26 * (figures.windows - 1));
      expect(figures.flooder.served).toBeGreaterThan(0);
    },
  );
});
