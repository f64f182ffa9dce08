import { handler as createToken } from '../../functions/create-access-token/handler';
import { handler as createKey } from '../../functions/create-application-key/handler';
import { handler as deleteKey } from '../../functions/delete-application-key/handler';
import { handler as getKey } from '../../functions/get-application-key/handler';
import { handler as getMapping } from '../../functions/get-merchant-realm-mapping/handler';
import { handler as listKeys } from '../../functions/list-application-keys/handler';
import { handler as updateKey } from '../../functions/update-application-key/handler';
import { handler as updateMapping } from '../../functions/update-merchant-realm-mapping/handler';
import { hashSecret } from '../../lib/auth/secrets';
import { clearCatalogCaches } from '../../lib/catalog/cache';
import { generateRelease } from '../../lib/catalog/generator';
import { cleanupReleases } from '../../lib/catalog/publisher';
import { getConfig } from '../../lib/config/index';
import { toApiError } from '../../lib/http/errors';
import {
  type ApplicationKeyRecord,
  applicationKeyRepository,
} from '../../lib/store/application-key-repository';
import { type CatalogRegistry, catalogRepository } from '../../lib/store/catalog-repository';
import {
  createDocumentClient,
  getDocumentClient,
  resetDocumentClient,
  setDocumentClient,
} from '../../lib/store/client';
import { BatchGetCommand, GetCommand, QueryCommand } from '../../lib/store/dynamodb';
import { withoutKeys } from '../../lib/store/items';
import { mappingRepository } from '../../lib/store/mapping-repository';
import { keysTable, tableName } from '../../lib/store/schema';
import { storeRepository } from '../../lib/store/store-repository';
import { childrenRelease, listChildren, PARENT } from '../support/catalog-fixtures';
import {
  type FaultInjector,
  type FaultKind,
  type FaultOptions,
  faultError,
  injectFaults,
  RETRIED_FAULT_KINDS,
} from '../support/faults';
import {
  bearer,
  createTestStore,
  type InvokeResult,
  invoke,
  type TestStore,
  tokenFor,
} from '../support/fixtures';
import { publishRelease } from '../support/one-process-publisher';

/*
 * Faults: every DynamoDB attempt can be throttled, time out or fail inside DynamoDB.
 * Reads must answer 503 with Retry-After once the client's retries are spent (never a 500, never
 * internals), and writes must be all-or-nothing, including when DynamoDB applied a write and only the
 * response was lost ("after-send"). Runs against DynamoDB Local with production's client (4 attempts),
 * its retry delays shrunk to milliseconds.
 */

/** Attempts per request of the production client (createDocumentClient). */
const MAX_ATTEMPTS = 4;
const KEY_HEADERS = {
  host: 'api.example.test',
  'x-forwarded-proto': 'https',
  'content-type': 'application/json',
};
/** Text that must never reach a response: exception names, table names and ARNs, stack frames. */
const INTERNALS = [
  /Exception/,
  /InternalServerError/,
  /ThrottlingError/,
  /ETIMEDOUT/,
  /throughput/i,
  /arn:aws/,
  /test-(keys|mappings|products)/,
  /TableName/,
  /DynamoDB/i,
  /\bat .+:\d+:\d+/,
  /stack/i,
];

let injectors: FaultInjector[] = [];

/** Faults on the container's client until the end of the test (or `remove()`). */
function inject(options: FaultOptions): FaultInjector {
  const injector = injectFaults(getDocumentClient(), options);
  injectors.push(injector);
  return injector;
}

/** Request bodies of the writes the code under test sent, recorded by a middleware outside the faults. */
const sent: { operation: string; body: string }[] = [];

beforeAll(() => {
  // Production's client and attempts; retry delays 2/1 ms instead of 500/50 ms, so spent retries are cheap.
  setDocumentClient(createDocumentClient(getConfig(), { retryBaseMs: { throttling: 2, other: 1 } }));
  getDocumentClient().use((next) => (operation, body) => {
    if (['TransactWriteItems', 'BatchWriteItem', 'PutItem'].includes(operation))
      sent.push({ operation, body });
    return next(operation, body);
  });
});
afterEach(() => {
  for (const injector of injectors) injector.remove();
  injectors = [];
});
afterAll(() => resetDocumentClient());

/** The JSON error body of a 503 (one error: status, title, detail, request id), with Retry-After and nothing internal in it. */
function expectUnavailable(response: InvokeResult): void {
  expect(response.status).toBe(503);
  expect(response.headers['Retry-After']).toMatch(/^[1-9]\d*$/);
  expect(response.headers['Content-Type']).toBe('application/json');
  expect(response.body).toEqual({
    errors: [
      {
        status: '503',
        title: 'Service Unavailable',
        detail: expect.any(String),
        request_id: expect.any(String),
      },
    ],
  });
  for (const pattern of INTERNALS) expect(response.raw).not.toMatch(pattern);
}

// ---------------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------------

describe('reads under injected faults', () => {
  let reader: TestStore;
  let admin: string;
  let implicit: string;

  // Setup, not a measurement: a store, two tokens and a publish take more than jest's default 5 s on a
  // loaded 2-core machine (seen at a load average of 20).
  beforeAll(async () => {
    reader = await createTestStore();
    admin = await tokenFor(reader);
    implicit = await tokenFor(reader, 'implicit');
    await publishRelease(reader.store.id, childrenRelease());
  }, 60_000);

  /** Each read route, and the operation its own read starts with (the token is already cached). */
  const READS: { route: string; reads: string; request: () => Promise<InvokeResult> }[] = [
    {
      route: 'GET /v2/application-keys',
      reads: 'Query',
      request: () =>
        invoke(listKeys, {
          method: 'GET',
          path: '/v2/application-keys',
          headers: bearer(admin, KEY_HEADERS),
        }),
    },
    {
      route: 'GET /v2/application-keys/{id}',
      reads: 'GetItem',
      request: () =>
        invoke(getKey, {
          method: 'GET',
          path: `/v2/application-keys/${reader.keyId}`,
          pathParameters: { id: reader.keyId },
          headers: bearer(admin, KEY_HEADERS),
        }),
    },
    {
      route: 'GET /v2/merchant-realm-mappings',
      reads: 'GetItem',
      request: () =>
        invoke(getMapping, {
          method: 'GET',
          path: '/v2/merchant-realm-mappings',
          routeKey: 'GET /v2/merchant-realm-mappings',
          headers: bearer(admin),
        }),
    },
    {
      route: 'GET /catalog/products/{id}/relationships/children',
      reads: 'GetItem',
      request: () => listChildren(implicit, PARENT),
    },
    {
      route: 'POST /oauth/access_token',
      reads: 'GetItem',
      request: () =>
        invoke(createToken, {
          method: 'POST',
          path: '/oauth/access_token',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            grant_type: 'client_credentials',
            client_id: reader.clientId,
            client_secret: reader.clientSecret,
          }),
        }),
    },
  ];

  /** A cold catalog cache, so the children route reads DynamoDB every time. */
  const read = (route: string) => {
    clearCatalogCaches();
    const entry = READS.find((r) => r.route === route);
    if (!entry) throw new Error(route);
    return entry.request();
  };

  it.each(READS.flatMap(({ route }) => RETRIED_FAULT_KINDS.map((kind) => [route, kind] as const)))(
    '%s answers 503 with Retry-After when every attempt fails (%s)',
    async (route, kind) => {
      // Also puts the token in the auth cache, so the faults below hit the route's own reads.
      expect((await read(route)).status).toBe(200);
      // The rate limiter's own calls fail open (test/integration/rate-limit.test.ts); here only the route's reads count.
      const faults = inject({ rate: 1, kinds: [kind], seed: 11, exceptTables: [getConfig().limitsTable] });
      const response = await read(route);
      faults.remove();
      expectUnavailable(response);
      const { reads } = READS.find((r) => r.route === route) ?? { reads: '' };
      // The 503 came after the client's retries of the route's own reads, each attempt a fault.
      expect(faults.attempts[reads]).toBeGreaterThan(0);
      expect(Math.max(...Object.values(faults.attempts))).toBe(MAX_ATTEMPTS);
      expect(faults.injected.byKind[kind]).toBe(faults.injected.total);
      expect(faults.injected.total).toBe(Object.values(faults.attempts).reduce((a, b) => a + b, 0));
    },
  );

  it.each(READS.map(({ route }) => route))(
    '%s answers 200 at a fault rate of 0.3, thanks to the retries',
    async (route) => {
      // Never MAX_ATTEMPTS faults in a row for one call: only then is 200 the right answer every time.
      const faults = inject({ rate: 0.3, seed: 3, maxConsecutive: MAX_ATTEMPTS - 1 });
      const statuses: number[] = [];
      for (let i = 0; i < 6; i += 1) statuses.push((await read(route)).status);
      faults.remove();
      expect(statuses).toEqual(Array(6).fill(200));
      expect(faults.injected.total).toBeGreaterThan(0);
    },
  );
});

// ---------------------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------------------

/** One write request against a scenario's state; `verify` asserts all-or-nothing and says which. */
interface PreparedWrite {
  run(): Promise<{ status: number; body?: any }>;
  /** Asserts the stored state is consistent; true when the write took effect (exactly once). */
  verify(response: { status: number; body?: any }): Promise<boolean>;
  /** Status of the same request repeated without faults, given whether the first one took effect. */
  repeatStatus(applied: boolean): number;
}

interface WriteScenario {
  name: string;
  /** Success status of the request. */
  success: number;
  /** The operations that commit the write: where targeted faults are aimed. */
  commit: string[];
  /** The commit operation is the one that makes the write happen (not a step before it). */
  atomicCommit: boolean;
  setup(): Promise<void>;
  prepare(label: string): Promise<PreparedWrite>;
}

type Mode = 'exhaust' | 'once' | 'random';
type When = 'before-send' | 'after-send';

/**
 * exhaust: every attempt of the commit operation fails; once: only its first attempt (a retry then
 * goes through; after-send, the retry repeats a write DynamoDB already applied); random: half of all
 * attempts of every operation fail, kinds mixed.
 */
const CASES: [Mode, FaultKind | 'mixed', When][] = [
  ...RETRIED_FAULT_KINDS.flatMap((kind) =>
    (['before-send', 'after-send'] as const).map((when): [Mode, FaultKind, When] => ['exhaust', kind, when]),
  ),
  ['exhaust', 'cancelled-throttle', 'before-send'],
  // A single refused attempt before-send is plain retrying (the random mode has plenty); the lost
  // response is the case that needs idempotent writes.
  ...RETRIED_FAULT_KINDS.map((kind): [Mode, FaultKind, When] => ['once', kind, 'after-send']),
  ['random', 'mixed', 'before-send'],
  ['random', 'mixed', 'after-send'],
];

function faultsFor(scenario: WriteScenario, mode: Mode, kind: FaultKind | 'mixed', when: When, seed: number) {
  if (mode === 'random') return inject({ rate: 0.5, when, seed });
  return inject({
    rate: 1,
    kinds: [kind as FaultKind],
    when,
    operations: scenario.commit,
    seed,
    ...(mode === 'once' ? { limit: 1 } : {}),
  });
}

/** Which of `keys` exist in the table (consistent BatchGetItem, 100 keys a call). */
async function existing(table: string, keys: { pk: string; sk: string }[]): Promise<Set<string>> {
  const found = new Set<string>();
  const unique = [...new Map(keys.map((key) => [`${key.pk}|${key.sk}`, key])).values()];
  for (let start = 0; start < unique.length; start += 100) {
    let pending: Record<string, unknown>[] = unique.slice(start, start + 100);
    while (pending.length > 0) {
      const result = await getDocumentClient().send(
        new BatchGetCommand({
          RequestItems: { [table]: { Keys: pending, ConsistentRead: true, ProjectionExpression: 'pk, sk' } },
        }),
      );
      for (const item of result.Responses?.[table] ?? []) found.add(`${item.pk}|${item.sk}`);
      pending = (result.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return found;
}

/** Keys of a store read straight from the table, checked against the store's counters and client items. */
async function expectKeysConsistent(storeId: string, deleted: ApplicationKeyRecord[] = []) {
  const keys: ApplicationKeyRecord[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName('keys'),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': keysTable.store(storeId).pk,
          ':prefix': keysTable.applicationKeyPrefix,
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) keys.push(withoutKeys(item) as unknown as ApplicationKeyRecord);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  const store = await storeRepository.get(storeId, true);
  expect({
    key_count: store?.key_count,
    reserved_rate_limit_total: store?.reserved_rate_limit_total,
  }).toEqual({
    key_count: keys.length,
    reserved_rate_limit_total: keys.reduce((sum, key) => sum + key.reserved_rate_limit, 0),
  });
  expect(store?.reserved_rate_limit_total).toBeLessThanOrEqual(store?.rate_limit ?? 0);
  // Every key has its client lookup item, and a deleted key has neither.
  const table = tableName('keys');
  const clientKey = (key: ApplicationKeyRecord) => keysTable.client(key.client_id);
  const present = await existing(table, [
    ...keys.map(clientKey),
    ...deleted.flatMap((key) => [clientKey(key), keysTable.applicationKey(storeId, key.id)]),
  ]);
  const label = ({ pk, sk }: { pk: string; sk: string }) => `${pk}|${sk}`;
  expect(keys.map(clientKey).filter((key) => !present.has(label(key)))).toEqual([]);
  expect(present.size).toBe(keys.length);
  return keys;
}

/** An admin actor on a fresh store, for one scenario. */
function actor() {
  const state = { test: undefined as unknown as TestStore, token: '' };
  return {
    state,
    async setup() {
      state.test = await createTestStore({ rate_limit: 1000 });
      state.token = await tokenFor(state.test);
    },
  };
}

const keyCreate = (() => {
  const a = actor();
  return {
    name: 'POST /v2/application-keys',
    success: 201,
    commit: ['TransactWriteItems'],
    atomicCommit: true,
    setup: a.setup,
    async prepare(label: string): Promise<PreparedWrite> {
      const storeId = a.state.test.store.id;
      let seen = 0;
      return {
        run: () =>
          invoke(createKey, {
            method: 'POST',
            path: '/v2/application-keys',
            headers: bearer(a.state.token, KEY_HEADERS),
            body: JSON.stringify({ data: { type: 'application_key', name: label, reserved_rate_limit: 3 } }),
          }),
        async verify(response) {
          const keys = await expectKeysConsistent(storeId);
          const created = keys.filter((key) => key.name === label);
          // At most one key per request, never two for one request retried.
          expect(created.length - seen).toBeGreaterThanOrEqual(0);
          expect(created.length - seen).toBeLessThanOrEqual(1);
          if (response.status === 201) expect(created.map((key) => key.id)).toContain(response.body.data.id);
          const applied = created.length > seen;
          seen = created.length;
          return applied;
        },
        repeatStatus: () => 201,
      };
    },
  };
})();

const keyUpdate = (() => {
  const a = actor();
  return {
    name: 'PUT /v2/application-keys/{id}',
    success: 200,
    commit: ['TransactWriteItems'],
    atomicCommit: true,
    setup: a.setup,
    async prepare(label: string): Promise<PreparedWrite> {
      const storeId = a.state.test.store.id;
      const keyId = a.state.test.keyId;
      const before = await applicationKeyRepository.get(storeId, keyId, true);
      if (!before) throw new Error('key missing');
      // A different reserved rate limit, so the update moves the store's total in the same transaction.
      const reserved = (before.reserved_rate_limit % 7) + 1;
      return {
        run: () =>
          invoke(updateKey, {
            method: 'PUT',
            path: `/v2/application-keys/${keyId}`,
            pathParameters: { id: keyId },
            headers: bearer(a.state.token, KEY_HEADERS),
            body: JSON.stringify({
              data: { type: 'application_key', name: label, reserved_rate_limit: reserved },
            }),
          }),
        async verify() {
          await expectKeysConsistent(storeId);
          const after = await applicationKeyRepository.get(storeId, keyId, true);
          const applied = after?.name === label;
          // Name and reserved rate limit change together or not at all.
          expect(after?.reserved_rate_limit).toBe(applied ? reserved : before.reserved_rate_limit);
          if (!applied) expect(after).toEqual(before);
          return applied;
        },
        repeatStatus: () => 200,
      };
    },
  };
})();

const keyDelete = (() => {
  const a = actor();
  const deleted: ApplicationKeyRecord[] = [];
  return {
    name: 'DELETE /v2/application-keys/{id}',
    success: 204,
    commit: ['TransactWriteItems'],
    atomicCommit: true,
    setup: a.setup,
    async prepare(label: string): Promise<PreparedWrite> {
      const storeId = a.state.test.store.id;
      const { key } = await applicationKeyRepository.create(storeId, { name: label, reserved_rate_limit: 5 });
      return {
        run: () =>
          invoke(deleteKey, {
            method: 'DELETE',
            path: `/v2/application-keys/${key.id}`,
            pathParameters: { id: key.id },
            headers: bearer(a.state.token, KEY_HEADERS),
          }),
        async verify() {
          const gone = (await applicationKeyRepository.get(storeId, key.id, true)) === undefined;
          if (gone && !deleted.includes(key)) deleted.push(key);
          const keys = await expectKeysConsistent(storeId, deleted);
          expect(keys.some((k) => k.id === key.id)).toBe(!gone);
          return gone;
        },
        // Deleting a deleted key is 404, whatever deleted it.
        repeatStatus: (applied) => (applied ? 404 : 204),
      };
    },
  };
})();

const mappingPrefix = (() => {
  const a = actor();
  const used: string[] = [];
  return {
    name: 'PUT /v2/merchant-realm-mappings/{id}',
    success: 200,
    commit: ['TransactWriteItems'],
    atomicCommit: true,
    setup: a.setup,
    async prepare(label: string): Promise<PreparedWrite> {
      const mappingId = a.state.test.store.mapping_id;
      const before = await mappingRepository.get(mappingId);
      if (!before) throw new Error('mapping missing');
      const prefix = `${label}-${Date.now().toString(36)}`;
      used.push(prefix);
      return {
        run: () =>
          invoke(updateMapping, {
            method: 'PUT',
            path: `/v2/merchant-realm-mappings/${mappingId}`,
            routeKey: 'PUT /v2/merchant-realm-mappings/{mapping_id}',
            pathParameters: { mapping_id: mappingId },
            headers: bearer(a.state.token, { 'content-type': 'application/json' }),
            body: JSON.stringify({ data: { type: 'merchant-realm-mappings', prefix } }),
          }),
        async verify() {
          const after = await mappingRepository.get(mappingId);
          const applied = after?.prefix === prefix;
          expect(after).toEqual(applied ? { ...before, prefix, version: before.version + 1 } : before);
          // Exactly one reservation, for the current prefix and held by this mapping: no orphan
          // reservation of the new prefix, no lost reservation of the old one.
          for (const candidate of used) {
            const reservation = await mappingRepository.getReservation(candidate);
            if (candidate === after?.prefix)
              expect(reservation).toMatchObject({ prefix: candidate, mapping_id: mappingId });
            else expect(reservation).toBeUndefined();
          }
          return applied;
        },
        repeatStatus: () => 200,
      };
    },
  };
})();

const tokenIssue = (() => {
  const a = actor();
  return {
    name: 'POST /oauth/access_token',
    success: 200,
    commit: ['PutItem'],
    atomicCommit: true,
    setup: a.setup,
    async prepare(): Promise<PreparedWrite> {
      const { test } = a.state;
      let from = sent.length;
      return {
        run: () => {
          from = sent.length;
          return invoke(createToken, {
            method: 'POST',
            path: '/oauth/access_token',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'client_credentials',
              client_id: test.clientId,
              client_secret: test.clientSecret,
            }).toString(),
          });
        },
        async verify(response) {
          // The token puts this request sent (a retry sends the same body again, so one token at most).
          const puts = new Set(
            sent
              .slice(from)
              .filter(({ operation, body }) => operation === 'PutItem' && body.includes('"TOKEN#'))
              .map(({ body }) => body),
          );
          expect(puts.size).toBeLessThanOrEqual(1);
          let applied = false;
          for (const body of puts) {
            const hash = /"TOKEN#([0-9a-f]+)"/.exec(body)?.[1] ?? '';
            const token = await getDocumentClient().send(
              new GetCommand({
                TableName: tableName('keys'),
                Key: keysTable.token(hash),
                ConsistentRead: true,
              }),
            );
            applied = token.Item !== undefined;
            if (response.status === 200) expect(hashSecret(response.body.access_token)).toBe(hash);
          }
          // last_used_at is best effort (at most once a minute, outside the token's write): never later
          // than now, whatever failed.
          const key = await applicationKeyRepository.get(test.store.id, test.keyId, true);
          if (key?.last_used_at) expect(Date.parse(key.last_used_at)).toBeLessThanOrEqual(Date.now());
          return applied;
        },
        repeatStatus: () => 200,
      };
    },
  };
})();

/**
 * Items stored under a release: every item any request of this file put for it (all writes pass the
 * recorder, so nothing else can exist), looked up by key; cheaper than querying its 16 partitions.
 */
async function itemsOfRelease(releaseId: string): Promise<number> {
  const keys = new Map<string, { pk: string; sk: string }>();
  const pattern = new RegExp(
    `"PutRequest":\\{"Item":\\{"pk":\\{"S":"(REL#${releaseId}#\\d+)"\\},"sk":\\{"S":"([^"]+)"\\}`,
    'g',
  );
  for (const { operation, body } of sent) {
    if (operation !== 'BatchWriteItem' || !body.includes(releaseId)) continue;
    for (const match of body.matchAll(pattern)) {
      keys.set(`${match[1]}|${match[2]}`, { pk: match[1] as string, sk: match[2] as string });
    }
  }
  return (await existing(tableName('products'), [...keys.values()])).size;
}

/** Releases whose markers or items were put by the recorded requests from index `from` on. */
function releasesSent(from: number): Set<string> {
  const ids = new Set<string>();
  for (const { operation, body } of sent.slice(from)) {
    const pattern =
      operation === 'PutItem'
        ? /"sk":\{"S":"RELEASE#[0-9a-f-]{36}#([0-9a-f-]{36})"/g
        : /"PutRequest":\{"Item":\{"pk":\{"S":"REL#([0-9a-f-]{36})#/g;
    if (operation === 'TransactWriteItems') continue;
    for (const match of body.matchAll(pattern)) ids.add(match[1] as string);
  }
  return ids;
}

/** Catalog publishing (lib/catalog/publisher): faults on the switch, or on the release's item writes. */
function catalogPublish(target: 'switch' | 'items') {
  const a = actor();
  let catalogId: string | undefined;
  /** Items of every release published here (all documents have the same shape). */
  let releaseItems = 0;
  let shopper = '';
  /** The label of the document whose release is current (children are named `<label> Child n`). */
  let currentLabel = 'first';
  /** The switch: the small children release. Item writes: ~65 items, several batches in flight. */
  const document = (label: string) =>
    target === 'switch'
      ? childrenRelease({ namePrefix: `${label} `, ...(catalogId ? { catalogId } : {}) })
      : {
          ...generateRelease({ parents: 2, children: 30, seed: 5 }),
          catalog: { ...(catalogId ? { id: catalogId } : {}), name: label },
        };
  const currentOf = (registry: CatalogRegistry | undefined) =>
    catalogId === undefined ? undefined : registry?.catalogs[catalogId]?.release.id;
  return {
    name: `publishRelease (faults on the ${target === 'switch' ? 'switch' : 'item writes'})`,
    success: 200,
    commit: [target === 'switch' ? 'TransactWriteItems' : 'BatchWriteItem'],
    atomicCommit: target === 'switch',
    async setup() {
      await a.setup();
      shopper = await tokenFor(a.state.test, 'implicit');
      const first = await publishRelease(a.state.test.store.id, document('first'));
      catalogId = first.catalog_id;
      releaseItems = first.items;
    },
    async prepare(label: string): Promise<PreparedWrite> {
      const storeId = a.state.test.store.id;
      const before = await catalogRepository.getRegistry(storeId);
      let from = sent.length;
      return {
        async run() {
          from = sent.length;
          try {
            await publishRelease(storeId, document(label));
            return { status: 200 };
          } catch (error) {
            return { status: toApiError(error).status, body: String(error) };
          }
        },
        async verify(response) {
          const registry = await catalogRepository.getRegistry(storeId);
          const current = currentOf(registry) as string;
          const written = releasesSent(from);
          const applied = current !== currentOf(before);
          if (applied) expect(written.has(current)).toBe(true);
          else expect(registry).toEqual(before);
          if (response.status === 200) expect(applied).toBe(true);
          // The current release is whole, and readers are served from it.
          expect(await itemsOfRelease(current)).toBe(releaseItems);
          if (target === 'switch') {
            clearCatalogCaches();
            const children = await listChildren(shopper, PARENT, 'page[limit]=1');
            expect(children.status).toBe(200);
            expect(children.body.data[0].attributes.name).toBe(`${applied ? label : currentLabel} Child 1`);
          }
          if (applied) currentLabel = label;
          // Any other release this publish wrote is unreachable and still tracked by a marker that is not
          // complete, so cleanup finds it: no untracked orphan items.
          const markers = new Map(
            (await catalogRepository.listReleases(storeId)).map((marker) => [marker.release_id, marker]),
          );
          expect(markers.get(current)?.status).toBe('complete');
          const others = [...written].filter((releaseId) => releaseId !== current);
          const leftovers = await Promise.all(others.map(itemsOfRelease));
          others.forEach((releaseId, index) => {
            const marker = markers.get(releaseId);
            if ((leftovers[index] ?? 0) > 0) expect(marker).toBeDefined();
            if (marker) expect(marker.status).not.toBe('complete');
          });
          // With the faults gone, cleanup reclaims all of it (as it would once the heartbeat is old) and
          // leaves the current release whole. Replaced releases are kept: they are not this test's business.
          await cleanupReleases(storeId, { abandonedAfterMs: 0 });
          const [kept, ...remaining] = await Promise.all([current, ...others].map(itemsOfRelease));
          expect({ kept, remaining }).toEqual({ kept: releaseItems, remaining: others.map(() => 0) });
          return applied;
        },
        repeatStatus: () => 200,
      };
    },
  };
}

const SCENARIOS: WriteScenario[] = [
  keyCreate,
  keyUpdate,
  keyDelete,
  mappingPrefix,
  tokenIssue,
  catalogPublish('switch'),
  catalogPublish('items'),
];

describe.each(SCENARIOS)('$name under injected faults', (scenario) => {
  beforeAll(() => scenario.setup());

  // A cancelled transaction is a TransactWriteItems answer; elsewhere it would be a plain throttle again.
  const cases = scenario.commit.includes('TransactWriteItems')
    ? CASES
    : CASES.filter(([, kind]) => kind !== 'cancelled-throttle');

  it.each(cases)(
    '%s %s %s: all or nothing, never a 500; the same request then succeeds',
    async (mode, kind, when) => {
      const index = CASES.findIndex((c) => c[0] === mode && c[1] === kind && c[2] === when);
      const label = `f${index}-${mode}-${kind}-${when}`.slice(0, 40);
      const write = await scenario.prepare(label);
      const faults = faultsFor(scenario, mode, kind, when, 100 + index);
      const response = await write.run();
      faults.remove();
      expect(faults.injected.total).toBeGreaterThan(0);

      expect([scenario.success, 503]).toContain(response.status);
      if (response.status === 503 && 'raw' in response) expectUnavailable(response as InvokeResult);
      const applied = await write.verify(response);
      if (response.status === scenario.success) expect(applied).toBe(true);
      if (when === 'before-send' && mode !== 'random') {
        // A refused attempt changed nothing: only a successful retry can have written.
        expect(applied).toBe(response.status === scenario.success);
      }
      if (mode === 'exhaust' && when === 'after-send' && scenario.atomicCommit) expect(applied).toBe(true);
      if (mode === 'once') expect(response.status).toBe(scenario.success);

      const again = await write.run();
      expect(again.status).toBe(write.repeatStatus(applied));
      await write.verify(again);
    },
  );
});

describe('publishRelease: single steps', () => {
  it('publishes when the response to the release marker put was lost (its retry finds its own marker)', async () => {
    const test = await createTestStore();
    const faults = inject({
      rate: 1,
      limit: 1,
      kinds: ['timeout'],
      when: 'after-send',
      operations: ['PutItem'],
    });
    const result = await publishRelease(test.store.id, childrenRelease());
    faults.remove();
    expect(faults.injected.total).toBe(1);
    expect(
      (await catalogRepository.getRegistry(test.store.id))?.catalogs[result.catalog_id]?.release.id,
    ).toBe(result.release_id);
    expect(await itemsOfRelease(result.release_id)).toBe(result.items);
  });

  it('waits for the batches still in flight, then deletes everything the release wrote', async () => {
    const test = await createTestStore();
    const before = await publishRelease(test.store.id, childrenRelease());
    const from = sent.length;
    // The first batch fails every attempt at once; the others are slow, still in flight when it fails.
    let failing: string | undefined;
    const remove = getDocumentClient().use((next) => async (operation, body) => {
      if (operation !== 'BatchWriteItem' || !body.includes('PutRequest')) return next(operation, body);
      failing ??= body;
      if (body === failing) throw faultError('internal', operation, body);
      await new Promise((resolve) => setTimeout(resolve, 150));
      return next(operation, body);
    });
    const document = {
      ...generateRelease({ parents: 3, children: 30, seed: 5 }),
      catalog: { id: before.catalog_id, name: 'x' },
    };
    const outcome = await publishRelease(test.store.id, document).then(
      () => 200,
      (error: unknown) => toApiError(error).status,
    );
    remove();
    expect(outcome).toBe(503);
    const [releaseId, ...more] = releasesSent(from);
    expect(more).toEqual([]);
    // Give any straggler time to land: there must be none.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await itemsOfRelease(releaseId as string)).toBe(0);
    expect((await catalogRepository.listReleases(test.store.id)).map((marker) => marker.release_id)).toEqual([
      before.release_id,
    ]);
    expect(
      (await catalogRepository.getRegistry(test.store.id))?.catalogs[before.catalog_id]?.release.id,
    ).toBe(before.release_id);
  });
});
