import { handler as listKeys } from '../../functions/list-application-keys/handler';
import { clearAuthCache } from '../../lib/auth/authenticate';
import { issueAccessToken } from '../../lib/auth/issue-token';
import { getConfig } from '../../lib/config/index';
import { resetRateLimits } from '../../lib/rate-limit/index';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { getDocumentClient } from '../../lib/store/client';
import { bearer, createTestStore, invoke } from '../support/fixtures';

/*
 * How long a container keeps reading with a token whose key was deleted (docs/auth.md): its token cache
 * holds a check for at most AUTH_CACHE_SECONDS (2 s), and a token used steadily is checked again in the
 * background from half that age on, so warm reads never wait for the table.
 */

const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeEach(() => {
  clearAuthCache();
  resetRateLimits();
});

/** A store's second key and a client_credentials token of it, validated (and cached) by one read. */
async function cachedToken() {
  const own = await createTestStore({ rate_limit: 1000 });
  const { key, clientSecret } = await applicationKeyRepository.create(own.store.id, {
    name: 'leaked',
    reserved_rate_limit: 0,
  });
  const { access_token: token } = await issueAccessToken({
    grant_type: 'client_credentials',
    client_id: key.client_id,
    client_secret: clientSecret,
  });
  const list = () =>
    invoke(listKeys, { method: 'GET', path: '/v2/application-keys', headers: bearer(token, HEADERS) });
  expect((await list()).status).toBe(200);
  return { own, key, list };
}

it('keeps a validated token at most 2 s (AUTH_CACHE_SECONDS, default and most)', () => {
  expect(getConfig().authCacheSeconds).toBe(2);
});

it("refuses a deleted key's cached token for reads within AUTH_CACHE_SECONDS of the delete, used steadily", async () => {
  const { own, key, list } = await cachedToken();
  await applicationKeyRepository.delete(own.store.id, key.id);
  const deleted = Date.now();
  // A read every 50 ms, as a steady client would: the first 401 comes within the cache's 2 s.
  let refusedAfter: number | undefined;
  while (Date.now() - deleted < 5000) {
    const status = (await list()).status;
    if (status === 401) {
      refusedAfter = Date.now() - deleted;
      break;
    }
    expect(status).toBe(200);
    await sleep(50);
  }
  expect(refusedAfter).toBeDefined();
  expect(refusedAfter).toBeLessThanOrEqual(2000 + 250);
  // And from then on, every read.
  for (let i = 0; i < 5; i += 1) expect((await list()).status).toBe(401);
});

it('serves a steadily used token from the cache without waiting: the check is renewed in the background', async () => {
  const { list } = await cachedToken();
  const reads: string[] = [];
  const remove = getDocumentClient().use((next) => async (operation, body) => {
    if (operation === 'BatchGetItem') reads.push(operation);
    return next(operation, body);
  });
  try {
    const started = Date.now();
    let requests = 0;
    while (Date.now() - started < 3500) {
      expect((await list()).status).toBe(200);
      requests += 1;
      await sleep(20);
    }
    // About 3.5 s of reads: the check renewed about once a second (from half the cache's age), never per read.
    expect(requests).toBeGreaterThan(20);
    expect(reads.length).toBeGreaterThanOrEqual(2);
    expect(reads.length).toBeLessThanOrEqual(5);
  } finally {
    remove();
  }
});
