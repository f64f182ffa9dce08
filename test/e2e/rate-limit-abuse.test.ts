import { request } from 'node:http';
import { firstKeyReservation } from '../../lib/rate-limit/allowance';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { getDocumentClient } from '../../lib/store/client';
import { ScanCommand, UpdateCommand } from '../../lib/store/dynamodb';
import { keysTable, tableName } from '../../lib/store/schema';
import { createTestStore, type TestStore } from '../support/fixtures';
import { type LocalApi, startLocalApi } from '../support/local-api';

/*
 * The red-team cases against the limits, over HTTP against the local API (both local servers run this
 * file): nobody can lock a key's owner out with wrong secrets, concurrent correct grants all succeed, a
 * storefront flood from one address leaves the admin key and other shoppers served, a deleted key's token
 * is refused, unknown client ids store nothing, and key creates stop at the store's cap on keys. Callers come from different loopback addresses
 * (127.0.0.x): the local servers take the source address from the connection, never from a header.
 */

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi();
});
afterAll(() => api.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** One HTTP request from a chosen local address (the socket's source, as API Gateway sees it). */
function call(
  from: string,
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const url = new URL(path, api.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress: from,
        headers: {
          ...(options.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          ...options.headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: response.statusCode ?? 0,
            body: text ? (JSON.parse(text) as Answer['body']) : {},
          });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const grant = (from: string, clientId: string, secret?: string, headers?: Record<string, string>) =>
  call(from, 'POST', '/oauth/access_token', {
    body: new URLSearchParams(
      secret === undefined
        ? { grant_type: 'implicit', client_id: clientId }
        : { grant_type: 'client_credentials', client_id: clientId, client_secret: secret },
    ).toString(),
    ...(headers ? { headers } : {}),
  });

async function tokenOf(from: string, clientId: string, secret?: string): Promise<string> {
  const answer = await grant(from, clientId, secret);
  expect(answer.status).toBe(200);
  return String(answer.body.access_token);
}

const OWNER = '127.0.0.1';
const ATTACKER = '127.0.0.2';
const SHOPPER = '127.0.0.3';

/** Waits, if needed, so a test does not cross a minute boundary (failed attempts count per minute). */
async function awayFromMinuteEnd(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 8000) await sleep(left + 50);
}

it('lets no one lock the owner out: wrong secrets from one address refuse that address only, whatever it claims in X-Forwarded-For', async () => {
  await awayFromMinuteEnd();
  const store = await createTestStore();
  const spoof = { 'x-forwarded-for': OWNER };
  const statuses: number[] = [];
  for (let i = 0; i < 12; i += 1)
    statuses.push((await grant(ATTACKER, store.clientId, `wrong-${i}`, spoof)).status);
  expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
  expect((await grant(ATTACKER, store.clientId, store.clientSecret, spoof)).status).toBe(429);
  const owner = await Promise.all([1, 2, 3].map(() => grant(OWNER, store.clientId, store.clientSecret)));
  expect(owner.map((a) => a.status)).toEqual([200, 200, 200]);
});

it('gives every one of 30 concurrent grants with the right secret its token', async () => {
  await awayFromMinuteEnd();
  const store = await createTestStore();
  const answers = await Promise.all(
    Array.from({ length: 30 }, () => grant(OWNER, store.clientId, store.clientSecret)),
  );
  expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
});

describe('a storefront flood from one address', () => {
  jest.setTimeout(60_000);

  it('leaves the admin key at least 90% served and another shopper at least 80%, at a store of 20/s', async () => {
    const store = await createTestStore({ rate_limit: 20 });
    const { key: admin, clientSecret } = await applicationKeyRepository.create(store.store.id, {
      name: 'Admin',
      reserved_rate_limit: firstKeyReservation(20),
    });
    const adminToken = await tokenOf(OWNER, admin.client_id, clientSecret);
    const floodToken = await tokenOf(ATTACKER, store.clientId);
    const shopperToken = await tokenOf(SHOPPER, store.clientId);
    const children = `/catalog/products/00000000-0000-4000-8000-000000000000/relationships/children`;
    const read = (from: string, token: string, path: string) =>
      call(from, 'GET', path, { headers: { authorization: `Bearer ${token}`, 'svc-channel': 'web' } });
    const served = { flood: [0, 0], admin: [0, 0], shopper: [0, 0] };
    const tally = (who: keyof typeof served, answer: Answer) => {
      const counts = served[who];
      counts[0] = (counts[0] ?? 0) + 1;
      if (answer.status !== 429) counts[1] = (counts[1] ?? 0) + 1;
    };
    // One request at a time (overlapping requests share the in-process server's logger, which the log scan
    // cannot tell apart): 5 flood requests a tick, about 50/s against the pool's 16/s, and the admin key and
    // the other shopper about 3/s each.
    for (let tick = 0; tick < 30; tick += 1) {
      const started = Date.now();
      for (let i = 0; i < 5; i += 1) tally('flood', await read(ATTACKER, floodToken, children));
      if (tick % 3 === 0) tally('admin', await read(OWNER, adminToken, '/v2/application-keys'));
      if (tick % 3 === 1) tally('shopper', await read(SHOPPER, shopperToken, children));
      await sleep(Math.max(0, 100 - (Date.now() - started)));
    }
    const ratio = ([sent, ok]: number[]) => (ok ?? 0) / (sent ?? 1);
    expect(served.flood[1]).toBeLessThan(served.flood[0] ?? 0); // the flood was limited
    expect(ratio(served.admin)).toBeGreaterThanOrEqual(0.9);
    expect(ratio(served.shopper)).toBeGreaterThanOrEqual(0.8);
  });
});

describe('a deleted key', () => {
  jest.setTimeout(60_000);

  it('has its cached token refused for reads within AUTH_CACHE_SECONDS (2 s) of the delete, never served without a limit', async () => {
    const store: TestStore = await createTestStore({ rate_limit: 5 });
    const adminToken = await tokenOf(OWNER, store.clientId, store.clientSecret);
    const { key, clientSecret } = await applicationKeyRepository.create(store.store.id, {
      name: 'Leaked',
      reserved_rate_limit: 0,
    });
    const leaked = await tokenOf(OWNER, key.client_id, clientSecret);
    const list = (token: string) =>
      call(OWNER, 'GET', '/v2/application-keys?page[limit]=1', {
        headers: { authorization: `Bearer ${token}` },
      });
    expect((await list(leaked)).status).toBe(200); // cached by the container
    const deleted = await call(OWNER, 'DELETE', `/v2/application-keys/${key.id}`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(deleted.status).toBe(204);
    // Reads may use the container's check of the token for at most 2 s after it started.
    await sleep(2100);
    const answers = await Promise.all(Array.from({ length: 40 }, () => list(leaked)));
    expect(answers.filter((a) => a.status === 200)).toEqual([]);
    expect(answers.every((a) => a.status === 401)).toBe(true);
  });
});

it('stores nothing for unknown client ids: 40 grants, 40 answers 401, no item in the limits table', async () => {
  const ids = Array.from({ length: 20 }, (_, i) => `unknown-${Date.now()}-${i}`);
  const answers = await Promise.all([
    ...ids.map((id) => grant(ATTACKER, id, 'guess')),
    ...ids.map((id) => grant(ATTACKER, id)),
  ]);
  expect(answers.map((a) => a.status)).toEqual(Array(40).fill(401));
  const items = await getDocumentClient().send(
    new ScanCommand({
      TableName: tableName('limits'),
      FilterExpression: 'contains(pk, :unknown)',
      ExpressionAttributeValues: { ':unknown': 'unknown-' },
    }),
  );
  expect(items.Items ?? []).toEqual([]);
});

it("stops key creates at the store's cap on keys (1,000): past it, 409 and nothing created", async () => {
  const store = await createTestStore();
  const adminToken = await tokenOf(OWNER, store.clientId, store.clientSecret);
  // The store's counter says 995 keys (creating 994 real ones would only slow the test down).
  await getDocumentClient().send(
    new UpdateCommand({
      TableName: tableName('keys'),
      Key: keysTable.store(store.store.id),
      UpdateExpression: 'SET key_count = :count',
      ExpressionAttributeValues: { ':count': 995 },
    }),
  );
  // One at a time: overlapping requests share the in-process server's logger, which the log scan cannot
  // tell apart. Racing creates at the cap are the race test's (test/integration/application-keys-race).
  const answers: Answer[] = [];
  for (let i = 0; i < 10; i += 1) {
    answers.push(
      await call(OWNER, 'POST', '/v2/application-keys', {
        body: JSON.stringify({ data: { type: 'application_key', name: `flood ${i}` } }),
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      }),
    );
  }
  expect(answers.map((a) => a.status)).toEqual([...Array(5).fill(201), ...Array(5).fill(409)]);
  for (const answer of answers.slice(5)) {
    expect(answer.body).toMatchObject({
      errors: [
        {
          status: '409',
          title: 'Conflict',
          detail:
            'the store already has 1000 application keys, the most it may hold: delete one before creating another',
        },
      ],
    });
  }
  const listed = await call(OWNER, 'GET', '/v2/application-keys?page[limit]=1', {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  expect(listed.body).toMatchObject({ meta: { results: { total: 1000 } } });
});
