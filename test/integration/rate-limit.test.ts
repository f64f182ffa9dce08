import { handler as createToken } from '../../functions/create-access-token/handler';
import { handler as createKey } from '../../functions/create-application-key/handler';
import { handler as getMapping } from '../../functions/get-merchant-realm-mapping/handler';
import { handler as listKeys } from '../../functions/list-application-keys/handler';
import { handler as updateKey } from '../../functions/update-application-key/handler';
import { clearAuthCache } from '../../lib/auth/authenticate';
import { getConfig } from '../../lib/config/index';
import {
  checkRateLimit,
  keyLimits,
  LIMITS_MAX_AGE_MS,
  LIMITS_REFRESH_MS,
  rateLimiter,
  resetRateLimits,
} from '../../lib/rate-limit/index';
import { RateLimiter, WINDOW_MS } from '../../lib/rate-limit/limiter';
import { FAILED_ATTEMPTS_PER_MINUTE } from '../../lib/rate-limit/token-attempts';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import {
  createDocumentClient,
  getDocumentClient,
  resetDocumentClient,
  setDocumentClient,
} from '../../lib/store/client';
import { GetCommand, ScanCommand } from '../../lib/store/dynamodb';
import { rateLimitRepository } from '../../lib/store/rate-limit-repository';
import { limitsTable, tableName } from '../../lib/store/schema';
import { storeRepository } from '../../lib/store/store-repository';
import { type FaultInjector, injectFaults } from '../support/faults';
import {
  bearer,
  createTestStore,
  type InvokeResult,
  invoke,
  type TestStore,
  tokenFor,
} from '../support/fixtures';

/*
 * Rate limits on DynamoDB Local: leases, background renewal, window roll-over, the 429 and
 * its headers, the token endpoint's failed-attempt limit, reservation changes within 51 s, and failing
 * open under the fault injector. The same limiter on several processes: rate-limit-processes.test.ts.
 */

const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a burst and says how many one-second windows it touched (the limit applies per window). */
async function burst<T>(run: () => Promise<T>): Promise<{ result: T; windows: number }> {
  const start = Math.floor(Date.now() / WINDOW_MS);
  const result = await run();
  return { result, windows: Math.floor(Date.now() / WINDOW_MS) - start + 1 };
}

let injectors: FaultInjector[] = [];
beforeAll(() => {
  // Production's client and attempts; retry delays of milliseconds, so injected faults are spent quickly.
  setDocumentClient(createDocumentClient(getConfig(), { retryBaseMs: { throttling: 2, other: 1 } }));
});
afterEach(async () => {
  // A test's leases still in flight would write (or, under the next test's injected faults, fail) in the
  // next one, and count in its stats.
  await rateLimiter.settled();
  for (const injector of injectors) injector.remove();
  injectors = [];
});
// Leases the last tests started in the background finish before the file's client goes (else they load
// the client's HTTP module after Jest tore the file's environment down).
afterAll(async () => {
  await rateLimiter.settled();
  resetDocumentClient();
});

/** A limiter with its own clock, on the real window items (a "container" the test controls). */
function container(clock: { now: number }): RateLimiter {
  return new RateLimiter({
    now: () => clock.now,
    take: rateLimitRepository.take,
    deadlineMs: getConfig().rateLimitDeadlineMs,
  });
}

async function admittedOf(
  limiter: RateLimiter,
  storeId: string,
  keyId: string,
  count: number,
  rateLimit: number,
) {
  let admitted = 0;
  for (let i = 0; i < count; i += 1) {
    const decision = await limiter.admit(storeId, keyId, { rateLimit, reservedTotal: 0, reserved: 0 });
    if (decision.admitted) admitted += 1;
  }
  return admitted;
}

function expectTooManyRequests(response: InvokeResult, limit: string): void {
  expect(response.status).toBe(429);
  expect(response.body).toEqual({
    errors: [
      {
        status: '429',
        title: 'Too Many Requests',
        detail: expect.stringContaining('Rate limit'),
        request_id: expect.any(String),
      },
    ],
  });
  expect(response.headers['Retry-After']).toMatch(/^[1-9]\d*$/);
  expect(response.headers['X-RateLimit-Limit']).toBe(limit);
  expect(response.headers['X-RateLimit-Remaining']).toBe('0');
  expect(response.headers['X-RateLimit-Reset']).toMatch(/^[1-9]\d*$/);
}

describe('leases on the shared window item', () => {
  it('takes tokens in batches with one UpdateItem each and admits exactly the limit of a window', async () => {
    const { store } = await createTestStore();
    const clock = { now: Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS };
    const limiter = container(clock);
    expect(await admittedOf(limiter, store.id, 'k1', 60, 10)).toBe(10);
    const window = clock.now / WINDOW_MS;
    const counters = await rateLimitRepository.read(store.id, window);
    // The counter holds what was asked; 10 of it was granted. Asks follow the demand seen so far (1, 1, 2,
    // 3, ...), and once the pool is known to be used up, refusals cost nothing.
    expect(counters?.pool).toBeGreaterThanOrEqual(10);
    expect(limiter.stats.leases).toBeLessThanOrEqual(8);
    expect(limiter.stats.limited).toBe(50);
    const item = await getDocumentClient().send(
      new GetCommand({ TableName: tableName('limits'), Key: limitsTable.window(store.id, window) }),
    );
    expect(item.Item?.ttl).toBe(window + 120);
  });

  it('shares the window between containers: two limiters together admit the limit, no more', async () => {
    const { store } = await createTestStore();
    const clock = { now: Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS };
    const [a, b] = [container(clock), container(clock)];
    let admitted = 0;
    for (let i = 0; i < 20; i += 1) {
      admitted += await admittedOf(a, store.id, 'k1', 2, 12);
      admitted += await admittedOf(b, store.id, 'k2', 2, 12);
    }
    expect(admitted).toBe(12);
  });

  it('rolls over: a new window admits again, in a new item', async () => {
    const { store } = await createTestStore();
    const clock = { now: Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS };
    const limiter = container(clock);
    expect(await admittedOf(limiter, store.id, 'k1', 8, 4)).toBe(4);
    clock.now += WINDOW_MS;
    expect(await admittedOf(limiter, store.id, 'k1', 8, 4)).toBe(4);
    const first = clock.now / WINDOW_MS - 1;
    expect((await rateLimitRepository.read(store.id, first))?.pool).toBeGreaterThanOrEqual(4);
    expect((await rateLimitRepository.read(store.id, first + 1))?.pool).toBeGreaterThanOrEqual(4);
  });

  it('renews in the background before the tokens run out: at a steady 50 requests/s only the first request waits', async () => {
    const { store } = await createTestStore();
    const clock = { now: Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS };
    const limiter = container(clock);
    let admitted = 0;
    let warmLeases = 0;
    for (let i = 0; i < 250; i += 1) {
      // The first second is the ramp-up (asks follow the demand seen so far); count writes after it.
      if (i === 50) warmLeases = limiter.stats.leases;
      if ((await limiter.admit(store.id, 'k', { rateLimit: 100, reservedTotal: 0, reserved: 0 })).admitted)
        admitted += 1;
      // Leases started in the background by this request complete before the next one (20 ms later).
      await limiter.settled();
      clock.now += 20;
    }
    expect(admitted).toBe(250);
    expect(limiter.stats.waits).toBe(1);
    expect((limiter.stats.leases - warmLeases) / 200).toBeLessThanOrEqual(0.1);
  });
});

describe('the 429', () => {
  beforeEach(() => resetRateLimits());

  it('refuses a flood of one key with 429, Retry-After and the allowance headers, and counts every request', async () => {
    const test = await createTestStore({ rate_limit: 5 });
    const token = await tokenFor(test);
    const { result: responses, windows } = await burst(() =>
      Promise.all(
        Array.from({ length: 30 }, () =>
          invoke(listKeys, { method: 'GET', path: '/v2/application-keys', headers: bearer(token, HEADERS) }),
        ),
      ),
    );
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status !== 200);
    // 5 a second: one window, or more if the burst crossed a second boundary.
    expect(ok.length).toBeGreaterThanOrEqual(5);
    expect(ok.length).toBeLessThanOrEqual(5 * windows);
    for (const response of refused) expectTooManyRequests(response, '5');
    for (const response of ok) {
      expect(response.headers['X-RateLimit-Limit']).toBe('5');
      expect(Number(response.headers['X-RateLimit-Remaining'])).toBeLessThanOrEqual(4);
      expect(response.headers['X-RateLimit-Reset']).toBe('1');
    }
  });

  it('does nothing for a refused request: a flood of key creations creates exactly the admitted ones', async () => {
    const test = await createTestStore({ rate_limit: 3 });
    const token = await tokenFor(test);
    const responses = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        invoke(createKey, {
          method: 'POST',
          path: '/v2/application-keys',
          headers: bearer(token, { ...HEADERS, 'content-type': 'application/json' }),
          body: JSON.stringify({ data: { type: 'application_key', name: `k${i}` } }),
        }),
      ),
    );
    const created = responses.filter((r) => r.status === 201).length;
    expect(created).toBeGreaterThanOrEqual(3);
    expect(responses.filter((r) => r.status === 429).length).toBe(15 - created);
    const store = await storeRepository.get(test.store.id, true);
    expect(store?.key_count).toBe(1 + created);
  });

  it('counts token requests against the key’s store, by client id', async () => {
    const test = await createTestStore({ rate_limit: 3 });
    const { result: responses, windows } = await burst(() =>
      Promise.all(
        Array.from({ length: 12 }, () =>
          invoke(createToken, {
            method: 'POST',
            path: '/oauth/access_token',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              grant_type: 'client_credentials',
              client_id: test.clientId,
              client_secret: test.clientSecret,
            }),
          }),
        ),
      ),
    );
    const ok = responses.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(3);
    expect(ok.length).toBeLessThanOrEqual(3 * windows);
    for (const response of ok) expect(response.headers['X-RateLimit-Limit']).toBe('3');
    for (const response of responses.filter((r) => r.status !== 200)) expectTooManyRequests(response, '3');
  });

  it('counts implicit grants as storefront requests: one address gets at most half the pool', async () => {
    const test = await createTestStore({ rate_limit: 4 });
    const implicit = (sourceIp: string) =>
      invoke(createToken, {
        method: 'POST',
        path: '/oauth/access_token',
        headers: { 'content-type': 'application/json' },
        sourceIp,
        body: JSON.stringify({ grant_type: 'implicit', client_id: test.clientId }),
      });
    const { result, windows } = await burst(async () => {
      const flood = await Promise.all(Array.from({ length: 10 }, () => implicit('203.0.113.5')));
      const other = await implicit('198.51.100.5');
      return { flood, other };
    });
    const served = result.flood.filter((r) => r.status === 200).length;
    expect(served).toBeGreaterThanOrEqual(1);
    expect(served).toBeLessThanOrEqual(2 * windows);
    expect(result.other.status).toBe(200);
  });
});

describe('failed token attempts', () => {
  // Each test may first wait up to 8 s to stay inside one minute.
  jest.setTimeout(30_000);

  /** Waits, if needed, so the test does not cross a minute boundary (the counter is per minute). */
  async function awayFromMinuteEnd(): Promise<void> {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 8000) await sleep(left + 50);
  }

  const attempt = (clientId: string, clientSecret: string, sourceIp = '198.51.100.7') =>
    invoke(createToken, {
      method: 'POST',
      path: '/oauth/access_token',
      headers: { 'content-type': 'application/json' },
      sourceIp,
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }),
    });

  /** Every item the limits table holds for a client id's failed attempts (any address, any minute). */
  async function failureItems(clientId: string): Promise<Record<string, unknown>[]> {
    const result = await getDocumentClient().send(
      new ScanCommand({
        TableName: tableName('limits'),
        FilterExpression: 'begins_with(pk, :pk)',
        ExpressionAttributeValues: { ':pk': `FAIL#${clientId}` },
      }),
    );
    return result.Items ?? [];
  }

  it('allows 10 wrong secrets a minute per client id and address, then refuses that address only, never the owner', async () => {
    await awayFromMinuteEnd();
    const test = await createTestStore();
    const other = await createTestStore();
    const attacker = '203.0.113.9';
    for (let i = 0; i < FAILED_ATTEMPTS_PER_MINUTE; i += 1) {
      expect((await attempt(test.clientId, `wrong-secret-${i}`, attacker)).status).toBe(401);
    }
    const blocked = await attempt(test.clientId, 'wrong-again', attacker);
    expect(blocked.status).toBe(429);
    expect(blocked.body.errors[0]).toMatchObject({ status: '429', title: 'Too Many Requests' });
    expect(blocked.body.errors[0].detail).toContain('failed attempts');
    const retryAfter = Number(blocked.headers['Retry-After']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The failing address cannot confirm a guess, even the right one...
    expect((await attempt(test.clientId, test.clientSecret, attacker)).status).toBe(429);
    // ...while the owner, from its own address, always gets its token.
    for (let i = 0; i < 3; i += 1) expect((await attempt(test.clientId, test.clientSecret)).status).toBe(200);
    // Another client id is untouched; so is the implicit grant, which checks no secret.
    expect((await attempt(other.clientId, other.clientSecret, attacker)).status).toBe(200);
    const implicit = await invoke(createToken, {
      method: 'POST',
      path: '/oauth/access_token',
      headers: { 'content-type': 'application/json' },
      sourceIp: attacker,
      body: JSON.stringify({ grant_type: 'implicit', client_id: test.clientId }),
    });
    expect(implicit.status).toBe(200);
    // One counter: the attacker's, full.
    const items = await failureItems(test.clientId);
    expect(items.map((item) => [item.pk, item.attempts])).toEqual([
      [`FAIL#${test.clientId}#${attacker}`, FAILED_ATTEMPTS_PER_MINUTE],
    ]);
  });

  it('gives every one of 30 concurrent correct grants its token, and writes nothing to the limits table', async () => {
    await awayFromMinuteEnd();
    const test = await createTestStore();
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => attempt(test.clientId, test.clientSecret)),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(await failureItems(test.clientId)).toEqual([]);
  });

  it('stores nothing for unknown client ids: every attempt is the same 401, no item is written', async () => {
    await awayFromMinuteEnd();
    const unknown = `no-such-client-${Date.now()}`;
    const statuses: number[] = [];
    for (let i = 0; i < FAILED_ATTEMPTS_PER_MINUTE + 5; i += 1)
      statuses.push((await attempt(unknown, 'x')).status);
    expect(statuses).toEqual(Array(FAILED_ATTEMPTS_PER_MINUTE + 5).fill(401));
    expect(await failureItems(unknown)).toEqual([]);
  });

  it('does not count right secrets: many successful token requests in a minute all succeed', async () => {
    await awayFromMinuteEnd();
    const test = await createTestStore();
    const statuses: number[] = [];
    for (let i = 0; i < FAILED_ATTEMPTS_PER_MINUTE + 5; i += 1)
      statuses.push((await attempt(test.clientId, test.clientSecret)).status);
    expect(statuses).toEqual(Array(FAILED_ATTEMPTS_PER_MINUTE + 5).fill(200));
  });

  it('grants with one write on the happy path: the client lookup and the token PutItem, no failure bookkeeping', async () => {
    await awayFromMinuteEnd();
    const test = await createTestStore();
    await attempt(test.clientId, test.clientSecret); // stamps last_used_at (once a minute per key)
    // Calls on the keys table (the limits table holds the store's rate-limit leases, counted elsewhere).
    const keysCalls = injectFaults(getDocumentClient(), { rate: 0, exceptTables: [tableName('limits')] });
    injectors.push(keysCalls);
    expect((await attempt(test.clientId, test.clientSecret)).status).toBe(200);
    expect(keysCalls.attempts).toEqual({ GetItem: 1, PutItem: 1 });
    expect(await failureItems(test.clientId)).toEqual([]);
  });

  it('reads no failed-attempt counter on a correct grant until a secret fails this minute, and then the counter of its own address only', async () => {
    await awayFromMinuteEnd();
    const test = await createTestStore();
    await attempt(test.clientId, test.clientSecret); // the store's first lease and last_used_at
    const counterReads = () =>
      injectFaults(getDocumentClient(), {
        rate: 0,
        operations: ['GetItem'],
        exceptTables: [tableName('keys')],
      });
    let reads = counterReads();
    injectors.push(reads);
    expect((await attempt(test.clientId, test.clientSecret)).status).toBe(200);
    expect(reads.attempts).toEqual({});
    reads.remove();

    // One wrong secret from another address marks the minute on the client item...
    expect((await attempt(test.clientId, 'wrong', '203.0.113.77')).status).toBe(401);
    expect((await applicationKeyRepository.findClient(test.clientId))?.failed_minute).toBe(
      Math.floor(Date.now() / 60_000),
    );
    // ...so a correct grant reads its own address's counter (empty) and gets its token.
    reads = counterReads();
    injectors.push(reads);
    expect((await attempt(test.clientId, test.clientSecret)).status).toBe(200);
    expect(reads.attempts).toEqual({ GetItem: 1 });
  });
});

describe('changes to limits apply within 51 s', () => {
  beforeEach(() => resetRateLimits());

  it('says 51 s where it says when changes apply: limits at most 50 s old, plus a window of leases', () => {
    expect((LIMITS_MAX_AGE_MS + WINDOW_MS) / 1000).toBe(51);
  });

  it('reads a changed reservation again after 20 s (in the background) and never uses one older than 50 s', async () => {
    const test = await createTestStore({ rate_limit: 40 });
    const t0 = 1_000_000;
    expect(await keyLimits(test.store.id, test.keyId, t0)).toEqual({
      rateLimit: 40,
      reservedTotal: 0,
      reserved: 0,
    });
    await applicationKeyRepository.update(test.store.id, test.keyId, { reserved_rate_limit: 15 });
    // Within 20 s the cached limits stand.
    expect((await keyLimits(test.store.id, test.keyId, t0 + LIMITS_REFRESH_MS - 1))?.reserved).toBe(0);
    // At 20 s the stale value still answers while a refresh runs; the next call sees the change.
    expect((await keyLimits(test.store.id, test.keyId, t0 + LIMITS_REFRESH_MS))?.reserved).toBe(0);
    await sleep(100);
    expect(await keyLimits(test.store.id, test.keyId, t0 + LIMITS_REFRESH_MS + 1)).toEqual({
      rateLimit: 40,
      reservedTotal: 15,
      reserved: 15,
    });
    // A store limit change, with no request in between: at 50 s the limits are read before answering.
    expect((await storeRepository.setRateLimit(test.store.id, 25)).ok).toBe(true);
    const late = t0 + LIMITS_REFRESH_MS + LIMITS_MAX_AGE_MS;
    expect(await keyLimits(test.store.id, test.keyId, late)).toEqual({
      rateLimit: 25,
      reservedTotal: 15,
      reserved: 15,
    });
  });

  it('takes the limits the token check read instead of reading them again, and never older ones than it holds', async () => {
    const test = await createTestStore({ rate_limit: 40 });
    const t0 = Date.now();
    const seen = { rateLimit: 40, reservedTotal: 0, reserved: 0, readAt: t0 };
    // Nothing cached: the token check's limits answer at once (no promise, no read).
    expect(keyLimits(test.store.id, test.keyId, t0, seen)).toEqual({
      rateLimit: 40,
      reservedTotal: 0,
      reserved: 0,
    });
    // An older view (a token cached before) never replaces a newer one.
    const older = { rateLimit: 999, reservedTotal: 0, reserved: 0, readAt: t0 - 5000 };
    expect(keyLimits(test.store.id, test.keyId, t0 + 1, older)).toEqual({
      rateLimit: 40,
      reservedTotal: 0,
      reserved: 0,
    });
    // A newer one does.
    const newer = { rateLimit: 25, reservedTotal: 5, reserved: 5, readAt: t0 + 10 };
    expect(keyLimits(test.store.id, test.keyId, t0 + 11, newer)).toEqual({
      rateLimit: 25,
      reservedTotal: 5,
      reserved: 5,
    });
    // One 20 s or older is not taken: the limits are read (the stored ones: 40, nothing reserved).
    resetRateLimits();
    const stale = { rateLimit: 999, reservedTotal: 0, reserved: 0, readAt: t0 - LIMITS_REFRESH_MS };
    expect(await keyLimits(test.store.id, test.keyId, t0, stale)).toEqual({
      rateLimit: 40,
      reservedTotal: 0,
      reserved: 0,
    });
  });

  it("reads neither the store nor the key again for a container's first request: the token check's batch read them", async () => {
    const test = await createTestStore();
    const token = await tokenFor(test);
    clearAuthCache();
    const keysCalls = injectFaults(getDocumentClient(), {
      rate: 0,
      exceptTables: [tableName('limits'), tableName('mappings')],
    });
    injectors.push(keysCalls);
    const response = await invoke(getMapping, {
      method: 'GET',
      path: `/v2/merchant-realm-mappings/${test.store.mapping_id}`,
      headers: bearer(token, HEADERS),
      pathParameters: { id: test.store.mapping_id },
    });
    expect(response.status).toBe(200);
    expect(response.headers['X-RateLimit-Limit']).toBeDefined();
    expect(keysCalls.attempts).toEqual({ BatchGetItem: 1 });
  });

  it('puts a reservation changed through the update route into another key’s allowance header', async () => {
    const test = await createTestStore({ rate_limit: 40 });
    const admin = await tokenFor(test);
    const { key, clientSecret } = await applicationKeyRepository.create(test.store.id, {
      name: 'second',
      reserved_rate_limit: 0,
    });
    const secondToken = await tokenFor({ ...test, keyId: key.id, clientId: key.client_id, clientSecret });
    const limitOfSecond = async () =>
      (
        await invoke(listKeys, {
          method: 'GET',
          path: '/v2/application-keys',
          headers: bearer(secondToken, HEADERS),
        })
      ).headers['X-RateLimit-Limit'];
    expect(await limitOfSecond()).toBe('40');
    const updated = await invoke(updateKey, {
      method: 'PUT',
      path: `/v2/application-keys/${test.keyId}`,
      pathParameters: { id: test.keyId },
      headers: bearer(admin, { ...HEADERS, 'content-type': 'application/json' }),
      body: JSON.stringify({ data: { type: 'application_key', reserved_rate_limit: 10 } }),
    });
    expect(updated.status).toBe(200);
    // Cached in this container for now; once the cached limits age out (reset here), only the pool is left.
    expect(await limitOfSecond()).toBe('40');
    resetRateLimits();
    expect(await limitOfSecond()).toBe('30');
  });
});

describe('failing open', () => {
  beforeEach(() => resetRateLimits());

  it('serves requests when every limiter write is throttled, and counts the failures', async () => {
    const test = await createTestStore({ rate_limit: 2 });
    const token = await tokenFor(test);
    const before = { ...rateLimiter.stats };
    // list-application-keys writes nothing itself: every UpdateItem is the limiter's.
    injectors.push(
      injectFaults(getDocumentClient(), { rate: 1, kinds: ['throttle'], operations: ['UpdateItem'] }),
    );
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      statuses.push(
        (
          await invoke(listKeys, {
            method: 'GET',
            path: '/v2/application-keys',
            headers: bearer(token, HEADERS),
          })
        ).status,
      );
    }
    expect(statuses).toEqual(Array(6).fill(200));
    expect(rateLimiter.stats.leaseFailures - before.leaseFailures).toBe(1);
    // The first request is admitted against the first-lease allowance, the other five fail open.
    expect(rateLimiter.stats.unleased - before.unleased).toBe(1);
    expect(rateLimiter.stats.failedOpen - before.failedOpen).toBe(5);
  });

  it('admits when the limits cannot be read (timeouts on every read)', async () => {
    const test = await createTestStore();
    const before = rateLimiter.stats.failedOpen;
    injectors.push(
      injectFaults(getDocumentClient(), { rate: 1, kinds: ['timeout'], operations: ['BatchGetItem'] }),
    );
    expect(await checkRateLimit(test.store.id, test.keyId)).toBeUndefined();
    expect(rateLimiter.stats.failedOpen).toBe(before + 1);
  });

  it('issues tokens when the failed-attempt counter cannot be written', async () => {
    const test: TestStore = await createTestStore();
    injectors.push(
      injectFaults(getDocumentClient(), { rate: 1, kinds: ['internal'], operations: ['UpdateItem'] }),
    );
    const response = await invoke(createToken, {
      method: 'POST',
      path: '/oauth/access_token',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: test.clientId,
        client_secret: test.clientSecret,
      }),
    });
    expect(response.status).toBe(200);
  });
});
