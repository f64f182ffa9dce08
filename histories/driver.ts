import sampleRelease from '../catalog/sample-release.json';
import { CATALOG } from '../fuzz/world';
import { clearAuthCache } from '../lib/auth/authenticate';
import { seededRandom } from '../lib/catalog/generator';
import { publishRelease } from '../lib/catalog/publisher';
import { getConfig, resetConfig } from '../lib/config/index';
import { uuidv4 } from '../lib/ids';
import { catalogRepository } from '../lib/store/catalog-repository';
import {
  createDocumentClient,
  getDocumentClient,
  resetDocumentClient,
  setDocumentClient,
} from '../lib/store/client';
import { createHttpEvent, createLambdaContext, type HttpEventInput } from '../local/http-event';
import { loadHandler } from '../local/router';
import {
  type ConflictCounts,
  emulateConflicts,
  type FaultCounts,
  injectFaults,
} from '../test/support/faults';
import { newPcmCatalog } from '../test/support/pcm-fixtures';
import type { Operation, Partition } from './checker/history';
import {
  type KeyInput,
  type KeyOutput,
  keyModel,
  type MappingInput,
  type MappingOutput,
  mappingModel,
  type ProductInput,
  type ProductOutput,
  productsModel,
  type ReleaseInput,
  type ReleaseOutput,
  releaseModel,
  type StoreInput,
  type StoreOutput,
  type StoreState,
  storeModel,
} from './checker/models';
import type { KeyDeletion, TokenWrite } from './checker/revocation';

/**
 * Drives random concurrent operations through the functions' handlers (in-process, as the fuzzer does)
 * against the configured DynamoDB, with DynamoDB's transaction conflicts emulated and, with `faults`,
 * throttling, timeouts and lost responses injected, and records every operation in per-object
 * histories for the checker.
 */
export interface DriveOptions {
  ops: number;
  clients: number;
  seed: number;
  faults: boolean;
  /**
   * With `faults`: also lose 1% of DynamoDB's write responses after the write was applied (the
   * client retries them). Default true; the short run in `npm test` turns it off (see docs/histories.md).
   */
  lostWriteResponses?: boolean;
  /**
   * The share of operations on authored products (default PRODUCT_SHARE); 0 runs the key, prefix and
   * release workload alone, draw for draw as it ran before products were added.
   */
  productShare?: number;
  /** Stores the keys and prefixes are spread over (default 3). */
  stores?: number;
  /** Progress callback every 500 operations. */
  onProgress?: (done: number) => void;
}

export interface DriveResult {
  partitions: Partition[];
  tokens: { writes: TokenWrite[]; deletions: KeyDeletion[] };
  /** Operations recorded; of which indeterminate (answer lost, timed out, or a 5xx under faults). */
  operations: number;
  indeterminate: number;
  conflicts: ConflictCounts;
  faults?: FaultCounts;
  byKind: Record<string, number>;
  ms: number;
}

/** Under `--faults`: the share of answers the client never sees, and how long it waits for one. */
const LOST_RESPONSE_RATE = 0.02;
const CLIENT_TIMEOUT_MS = 3000;
/** Keys a store may hold before creates stop (one page of the list holds them all). */
const MAX_LIVE_KEYS = 12;
const PREFIXES = 5;
/** Skus a store's products are created and renamed with (a few, in mixed case, so claims collide). */
const SKUS = 4;
/** The share of operations on authored products, by default. */
const PRODUCT_SHARE = 0.2;

interface LiveKey {
  id: string;
  clientId: string;
  secret: string;
  deleted: boolean;
}

interface Store {
  id: string;
  mappingId: string;
  admin: LiveKey;
  adminToken: string;
  implicitToken: string;
  keys: LiveKey[];
  /** Tokens granted during the run, with the key they belong to (deleted keys' ones included). */
  tokens: { key: LiveKey; token: string }[];
  /** Authored products created during the run (deleted ones included). */
  products: string[];
}

type Answer = { status: number; body: string };

async function call(fn: string, input: HttpEventInput): Promise<Answer> {
  const handler = await loadHandler(fn);
  const response = (await handler(createHttpEvent(input), createLambdaContext(fn))) as {
    statusCode?: number;
    body?: string;
  };
  return { status: response.statusCode ?? 200, body: response.body ?? '' };
}

const json = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, each checked by the model
const parse = (text: string): any => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The sample release with every product name marked `#relN#`, so a read shows which release it came from. */
function markedRelease(n: number): Record<string, unknown> {
  const copy = structuredClone(sampleRelease) as { products: { attributes: { name: string } }[] };
  for (const product of copy.products) product.attributes.name = `${product.attributes.name} #rel${n}#`;
  return copy as unknown as Record<string, unknown>;
}

async function grant(key: LiveKey): Promise<Answer> {
  return call('create-access-token', {
    method: 'POST',
    path: '/oauth/access_token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: key.clientId,
      client_secret: key.secret,
    }).toString(),
  });
}

async function createKey(token: string, name: string, reserved: number): Promise<Answer> {
  return call('create-application-key', {
    method: 'POST',
    path: '/v2/application-keys',
    routeKey: 'POST /v2/application-keys',
    headers: json(token),
    body: JSON.stringify({ data: { type: 'application_key', name, reserved_rate_limit: reserved } }),
  });
}

async function newStore(index: number, tag: string): Promise<Store> {
  const { storeRepository } = await import('../lib/store/store-repository');
  const { applicationKeyRepository } = await import('../lib/store/application-key-repository');
  const store = await storeRepository.create({ name: `History store ${index}`, rate_limit: 100_000 });
  const first = await applicationKeyRepository.create(store.id, { name: 'Admin', reserved_rate_limit: 0 });
  const admin = {
    id: first.key.id,
    clientId: first.key.client_id,
    secret: first.clientSecret,
    deleted: false,
  };
  const adminToken = parse((await grant(admin)).body)?.access_token as string;
  const implicit = await call('create-access-token', {
    method: 'POST',
    path: '/oauth/access_token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'implicit', client_id: admin.clientId }).toString(),
  });
  const implicitToken = parse(implicit.body)?.access_token as string;
  const put = await call('update-merchant-realm-mapping', {
    method: 'PUT',
    path: `/v2/merchant-realm-mappings/${store.mapping_id}`,
    routeKey: 'PUT /v2/merchant-realm-mappings/{mapping_id}',
    pathParameters: { mapping_id: store.mapping_id },
    headers: json(adminToken),
    body: JSON.stringify({ data: { type: 'merchant-realm-mappings', prefix: `${tag}-home${index}` } }),
  });
  if (!adminToken || !implicitToken || put.status !== 200)
    throw new Error(`seeding history store ${index} failed (${put.status})`);
  return {
    id: store.id,
    mappingId: store.mapping_id,
    admin,
    adminToken,
    implicitToken,
    keys: [admin],
    tokens: [],
    products: [],
  };
}

/** Runs the operations and returns the partitioned history. */
export async function driveHistory(options: DriveOptions): Promise<DriveResult> {
  const started = performance.now();
  const random = seededRandom(options.seed);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)] as T;
  const rollbackRandom = seededRandom(options.seed + 1000);
  const tag = `h${uuidv4().slice(0, 6)}`;
  const productShare = options.productShare ?? PRODUCT_SHARE;
  // Reads must see the current release: the release cache's bounded staleness is by design, not a bug.
  const releaseCache = process.env.RELEASE_CACHE_SECONDS;
  process.env.RELEASE_CACHE_SECONDS = '0';
  resetConfig();
  clearAuthCache();
  // Production's client (4 attempts, jittered backoff) with its retry delays shrunk to milliseconds.
  setDocumentClient(createDocumentClient(getConfig(), { retryBaseMs: { throttling: 2, other: 2 } }));
  const client = getDocumentClient();

  const stores: Store[] = [];
  for (let i = 0; i < (options.stores ?? 3); i += 1) stores.push(await newStore(i, tag));
  const catalogStore = stores[0] as Store;
  let releases = 0;
  // A catalog of the catalog API too, so that its current release can be deleted (a rollback).
  await newPcmCatalog(catalogStore.id, 'History catalog', undefined, sampleRelease.catalog.id);
  /** Release names by id, and the names the driver knows kept, newest first (rollbacks need two). */
  const releaseNames = new Map<string, string>();
  let kept: string[] = ['rel0'];
  releaseNames.set((await publishRelease(catalogStore.id, markedRelease(releases))).release_id, 'rel0');

  const emulator = emulateConflicts(client);
  const injector = options.faults
    ? injectFaults(client, {
        rate: 0.05,
        maxConsecutive: 2,
        seed: options.seed,
        exceptTables: [getConfig().limitsTable],
      })
    : undefined;
  const lostAfterSend =
    options.faults && options.lostWriteResponses !== false
      ? injectFaults(client, {
          rate: 0.01,
          when: 'after-send',
          maxConsecutive: 1,
          seed: options.seed + 1,
          operations: ['TransactWriteItems', 'UpdateItem', 'PutItem', 'DeleteItem'],
          exceptTables: [getConfig().limitsTable],
        })
      : undefined;

  const t0 = performance.now();
  let nextId = 0;
  let indeterminate = 0;
  const byKind: Record<string, number> = {};
  const keyOps = new Map<string, Operation<KeyInput, KeyOutput>[]>();
  const keyInitial = new Map<string, { name: string; reserved: number } | null>();
  const storeOps = new Map<string, Operation<StoreInput, StoreOutput>[]>(stores.map((s) => [s.id, []]));
  const mappingOps: Operation<MappingInput, MappingOutput>[] = [];
  const releaseOps: Operation<ReleaseInput, ReleaseOutput>[] = [];
  const productOps = new Map<string, Operation<ProductInput, ProductOutput>[]>(stores.map((s) => [s.id, []]));
  const writes: TokenWrite[] = [];
  const deletions: KeyDeletion[] = [];
  for (const store of stores) {
    keyInitial.set(store.admin.id, { name: 'Admin', reserved: 0 });
    keyOps.set(store.admin.id, []);
  }
  let publishing = false;

  /**
   * Runs one request and times it. Under faults, an answer may be lost (the request still runs to its
   * end), the client may stop waiting, and a 5xx may or may not have been applied: all three are
   * indeterminate, with `ret = Infinity`.
   */
  const timed = async (clientNo: number, kind: string, send: () => Promise<Answer>) => {
    nextId += 1;
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    const id = nextId;
    const callAt = performance.now() - t0;
    let answer: Answer | undefined;
    if (options.faults) {
      const running = send();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), CLIENT_TIMEOUT_MS);
      });
      answer = await Promise.race([running, timeout]);
      clearTimeout(timer);
      if (answer === undefined) running.catch(() => undefined);
      if (answer && (answer.status >= 500 || random() < LOST_RESPONSE_RATE)) answer = undefined;
    } else answer = await send();
    const retAt = answer === undefined ? Number.POSITIVE_INFINITY : performance.now() - t0;
    if (answer === undefined) indeterminate += 1;
    return { id, client: clientNo, call: callAt, ret: retAt, answer };
  };

  const record = <I, O>(
    list: Operation<I, O>[],
    t: { id: number; client: number; call: number; ret: number },
    input: I,
    output: O | undefined,
  ) => list.push({ id: t.id, client: t.client, call: t.call, ret: t.ret, input, output });

  /** A token for a write: usually the admin's, sometimes one granted to another key (maybe deleted since). */
  const writer = (store: Store): { key: LiveKey; token: string } =>
    store.tokens.length > 0 && random() < 0.4
      ? pick(store.tokens)
      : { key: store.admin, token: store.adminToken };
  const noteWrite = (store: Store, t: { id: number; call: number; answer?: Answer }, key: LiveKey) => {
    if (t.answer === undefined) return;
    writes.push({
      id: t.id,
      store: store.id,
      tokenKey: key.id,
      call: t.call,
      succeeded: t.answer.status >= 200 && t.answer.status < 300,
    });
  };

  /** One operation on a store's authored products: create, partial update (sku or name), delete, get. */
  const productStep = async (clientNo: number, store: Store): Promise<void> => {
    const ops = productOps.get(store.id) as Operation<ProductInput, ProductOutput>[];
    const base = `${tag}-s${Math.floor(random() * SKUS)}`;
    const sku = random() < 0.3 ? base.toUpperCase() : base;
    const what = random();
    const headers = json(store.adminToken);
    const product = (answer?: Answer) => {
      const body = parse(answer?.body ?? '');
      const attributes = body?.data?.attributes;
      return {
        id: body?.data?.id as string | undefined,
        sku: attributes?.sku as string | undefined,
        name: attributes?.name as string | undefined,
        taken: answer?.status === 409 && /sku: Must be unique/.test(body?.errors?.[0]?.detail ?? ''),
      };
    };
    if (what < 0.3 || store.products.length === 0) {
      const name = `p${nextId}`;
      const t = await timed(clientNo, 'product-create', () =>
        call('pcm-create-product', {
          method: 'POST',
          path: '/pcm/products',
          routeKey: 'POST /pcm/products',
          headers,
          body: JSON.stringify({
            data: { type: 'product', attributes: { name, sku, commodity_type: 'physical' } },
          }),
        }),
      );
      const seen = product(t.answer);
      const id = t.answer?.status === 201 ? seen.id : undefined;
      if (id) store.products.push(id);
      record(
        ops,
        t,
        { op: 'create', sku, name },
        t.answer && { status: t.answer.status, id, taken: seen.taken },
      );
      return;
    }
    const id = pick(store.products);
    const path = `/pcm/products/${id}`;
    const target = { pathParameters: { product_id: id }, headers };
    if (what < 0.65) {
      const change = random() < 0.6 ? { sku } : { name: `n${nextId}` };
      const t = await timed(clientNo, 'product-update', () =>
        call('pcm-update-product', {
          method: 'PUT',
          path,
          routeKey: 'PUT /pcm/products/{product_id}',
          ...target,
          body: JSON.stringify({ data: { type: 'product', id, attributes: change } }),
        }),
      );
      const seen = product(t.answer);
      record(
        ops,
        t,
        { op: 'update', id, ...change },
        t.answer && { status: t.answer.status, sku: seen.sku, name: seen.name, taken: seen.taken },
      );
      return;
    }
    if (what < 0.8) {
      const t = await timed(clientNo, 'product-delete', () =>
        call('pcm-delete-product', {
          method: 'DELETE',
          path,
          routeKey: 'DELETE /pcm/products/{product_id}',
          ...target,
        }),
      );
      record(ops, t, { op: 'delete', id }, t.answer && { status: t.answer.status });
      return;
    }
    const t = await timed(clientNo, 'product-get', () =>
      call('pcm-get-product', { method: 'GET', path, routeKey: 'GET /pcm/products/{product_id}', ...target }),
    );
    const seen = product(t.answer);
    record(
      ops,
      t,
      { op: 'get', id },
      t.answer && { status: t.answer.status, sku: seen.sku, name: seen.name },
    );
  };

  const step = async (clientNo: number): Promise<void> => {
    const store = pick(stores);
    if (productShare > 0 && random() < productShare) return productStep(clientNo, store);
    const roll = random();
    const live = store.keys.filter((k) => !k.deleted);
    const others = store.keys.filter((k) => k !== store.admin);
    if (roll < 0.1 && live.length < MAX_LIVE_KEYS) {
      const reserved = Math.floor(random() * 4);
      const name = `k${nextId}`;
      const auth = writer(store);
      const t = await timed(clientNo, 'create', () => createKey(auth.token, name, reserved));
      noteWrite(store, t, auth.key);
      const body = parse(t.answer?.body ?? '');
      const id = t.answer?.status === 201 ? (body?.data?.id as string) : undefined;
      const storeList = storeOps.get(store.id) as Operation<StoreInput, StoreOutput>[];
      record(
        storeList,
        t,
        { op: 'create', reserved },
        t.answer ? { status: t.answer.status, id } : undefined,
      );
      if (id) {
        const key = { id, clientId: body.data.client_id, secret: body.data.client_secret, deleted: false };
        store.keys.push(key);
        keyInitial.set(id, null);
        keyOps.set(id, []);
        record(
          keyOps.get(id) as Operation<KeyInput, KeyOutput>[],
          t,
          { op: 'create', name, reserved },
          {
            status: 201,
          },
        );
      }
      return;
    }
    if (roll < 0.55) {
      // Mostly the store's live keys (so writes race on them), sometimes any key ever created (404s).
      const liveOthers = live.filter((k) => k !== store.admin);
      const key =
        random() < 0.15 || others.length === 0
          ? pick(store.keys)
          : liveOthers.length > 0 && random() < 0.9
            ? pick(liveOthers)
            : store.admin;
      const ops = keyOps.get(key.id) as Operation<KeyInput, KeyOutput>[];
      const storeList = storeOps.get(store.id) as Operation<StoreInput, StoreOutput>[];
      const path = `/v2/application-keys/${key.id}`;
      const what = random();
      if (what < 0.25) {
        const t = await timed(clientNo, 'get', () =>
          call('get-application-key', {
            method: 'GET',
            path,
            routeKey: 'GET /v2/application-keys/{id}',
            pathParameters: { id: key.id },
            headers: json(store.adminToken),
          }),
        );
        const data = parse(t.answer?.body ?? '')?.data;
        record(
          ops,
          t,
          { op: 'get' },
          t.answer && {
            status: t.answer.status,
            name: data?.name,
            reserved: data?.reserved_rate_limit,
          },
        );
      } else if (what < 0.45 || key === store.admin) {
        // A rename (the admin key is only ever renamed: its token must keep working).
        const name = `n${nextId}`;
        const auth = writer(store);
        const t = await timed(clientNo, 'rename', () =>
          call('update-application-key', {
            method: 'PUT',
            path,
            routeKey: 'PUT /v2/application-keys/{id}',
            pathParameters: { id: key.id },
            headers: json(auth.token),
            body: JSON.stringify({ data: { type: 'application_key', name } }),
          }),
        );
        noteWrite(store, t, auth.key);
        const data = parse(t.answer?.body ?? '')?.data;
        record(
          ops,
          t,
          { op: 'rename', name },
          t.answer && {
            status: t.answer.status,
            name: data?.name,
            reserved: data?.reserved_rate_limit,
          },
        );
      } else if (what < 0.65) {
        const reserved = Math.floor(random() * 5);
        const auth = writer(store);
        const t = await timed(clientNo, 'reserve', () =>
          call('update-application-key', {
            method: 'PUT',
            path,
            routeKey: 'PUT /v2/application-keys/{id}',
            pathParameters: { id: key.id },
            headers: json(auth.token),
            body: JSON.stringify({ data: { type: 'application_key', reserved_rate_limit: reserved } }),
          }),
        );
        noteWrite(store, t, auth.key);
        const data = parse(t.answer?.body ?? '')?.data;
        record(
          ops,
          t,
          { op: 'reserve', reserved },
          t.answer && { status: t.answer.status, name: data?.name, reserved: data?.reserved_rate_limit },
        );
        record(
          storeList,
          t,
          { op: 'reserve', id: key.id, reserved },
          t.answer && { status: t.answer.status },
        );
      } else if (what < 0.8) {
        const t = await timed(clientNo, 'grant', () => grant(key));
        const token = parse(t.answer?.body ?? '')?.access_token as string | undefined;
        if (t.answer?.status === 200 && token) store.tokens.push({ key, token });
        record(ops, t, { op: 'grant' }, t.answer && { status: t.answer.status });
      } else {
        const auth = writer(store);
        const t = await timed(clientNo, 'delete', () =>
          call('delete-application-key', {
            method: 'DELETE',
            path,
            routeKey: 'DELETE /v2/application-keys/{id}',
            pathParameters: { id: key.id },
            headers: json(auth.token),
          }),
        );
        noteWrite(store, t, auth.key);
        const output = t.answer && { status: t.answer.status };
        record(ops, t, { op: 'delete' }, output);
        record(storeList, t, { op: 'delete', id: key.id }, output);
        if (t.answer?.status === 204) {
          key.deleted = true;
          deletions.push({ id: t.id, store: store.id, key: key.id, ret: t.ret });
        }
      }
      return;
    }
    if (roll < 0.65) {
      const t = await timed(clientNo, 'list', () =>
        call('list-application-keys', {
          method: 'GET',
          path: '/v2/application-keys?page[limit]=100',
          routeKey: 'GET /v2/application-keys',
          headers: json(store.adminToken),
        }),
      );
      const body = parse(t.answer?.body ?? '');
      const storeList = storeOps.get(store.id) as Operation<StoreInput, StoreOutput>[];
      record(
        storeList,
        t,
        { op: 'list', part: 'counters' },
        t.answer && {
          status: t.answer.status,
          total: body?.meta?.results?.total,
          reserved: body?.meta?.total_reserved_rate_limit,
        },
      );
      record(
        storeList,
        t,
        { op: 'list', part: 'page' },
        t.answer && {
          status: t.answer.status,
          ids: ((body?.data ?? []) as { id: string }[]).map((k) => k.id),
        },
      );
      return;
    }
    if (roll < 0.82) {
      if (random() < 0.3) {
        const t = await timed(clientNo, 'mapping-get', () =>
          call('get-merchant-realm-mapping', {
            method: 'GET',
            path: `/v2/merchant-realm-mappings/${store.mappingId}`,
            routeKey: 'GET /v2/merchant-realm-mappings/{mapping_id}',
            pathParameters: { mapping_id: store.mappingId },
            headers: json(store.adminToken),
          }),
        );
        const data = parse(t.answer?.body ?? '')?.data;
        record(
          mappingOps,
          t,
          { op: 'get', store: store.id },
          t.answer && {
            status: t.answer.status,
            prefix: data?.prefix ?? null,
          },
        );
        return;
      }
      // Prefixes shared by every store, in mixed case: claims collide and swaps pass through them.
      const base = `${tag}-p${Math.floor(random() * PREFIXES)}`;
      const prefix = random() < 0.3 ? base.toUpperCase() : base;
      const auth = writer(store);
      const t = await timed(clientNo, 'mapping-put', () =>
        call('update-merchant-realm-mapping', {
          method: 'PUT',
          path: `/v2/merchant-realm-mappings/${store.mappingId}`,
          routeKey: 'PUT /v2/merchant-realm-mappings/{mapping_id}',
          pathParameters: { mapping_id: store.mappingId },
          headers: json(auth.token),
          body: JSON.stringify({ data: { type: 'merchant-realm-mappings', prefix } }),
        }),
      );
      noteWrite(store, t, auth.key);
      const detail = parse(t.answer?.body ?? '')?.errors?.[0]?.detail as string | undefined;
      record(
        mappingOps,
        t,
        { op: 'put', store: store.id, prefix },
        t.answer && {
          status: t.answer.status,
          taken: t.answer.status === 409 && detail === 'the prefix is already in use',
        },
      );
      return;
    }
    // Now and then, once two releases are kept, delete the current one (drawn from a stream of its own, so
    // the other operations draw the values they drew before rollbacks were added).
    if (!publishing && kept.length >= 2 && rollbackRandom() < 0.02) {
      // Deleting the current release rolls the catalog back to the one before it (one at a time, as
      // publishes are: the driver reads which release is current first).
      publishing = true;
      const registry = await catalogRepository.getRegistry(catalogStore.id);
      const currentId = registry?.catalogs[sampleRelease.catalog.id]?.release.id ?? '';
      const release = releaseNames.get(currentId) ?? currentId;
      const t = await timed(clientNo, 'rollback', () =>
        call('pcm-delete-release', {
          method: 'DELETE',
          path: `/pcm/catalogs/${sampleRelease.catalog.id}/releases/${currentId}`,
          routeKey: 'DELETE /pcm/catalogs/{catalog_id}/releases/{release_id}',
          pathParameters: { catalog_id: sampleRelease.catalog.id, release_id: currentId },
          headers: json(catalogStore.adminToken),
        }),
      );
      publishing = false;
      if (t.answer && t.answer.status === 204) kept = kept.filter((name) => name !== release);
      record(releaseOps, t, { op: 'rollback', release }, t.answer && { status: t.answer.status });
      return;
    }
    if (!publishing && random() < 0.08) {
      publishing = true;
      releases += 1;
      const release = `rel${releases}`;
      const document = markedRelease(releases);
      const t = await timed(clientNo, 'publish', async () => {
        try {
          releaseNames.set((await publishRelease(catalogStore.id, document)).release_id, release);
          return { status: 200, body: '' };
        } catch (error) {
          return { status: 503, body: String(error) };
        }
      });
      publishing = false;
      if (t.answer?.status === 200) kept = [release, ...kept].slice(0, 3);
      record(releaseOps, t, { op: 'publish', release }, t.answer && { status: t.answer.status });
      return;
    }
    const parent = pick(CATALOG.parents);
    const t = await timed(clientNo, 'children', () =>
      call('list-child-products', {
        method: 'GET',
        path: `/catalog/products/${parent}/relationships/children`,
        routeKey: 'GET /catalog/products/{product_id}/relationships/children',
        pathParameters: { product_id: parent },
        headers: { authorization: `Bearer ${catalogStore.implicitToken}`, 'svc-channel': 'web' },
      }),
    );
    const releasesSeen = [...(t.answer?.body ?? '').matchAll(/#(rel\d+)#/g)].map((m) => m[1] as string);
    record(
      releaseOps,
      t,
      { op: 'read', parent },
      t.answer && { status: t.answer.status, releases: releasesSeen },
    );
  };

  let remaining = options.ops;
  let done = 0;
  try {
    await Promise.all(
      Array.from({ length: options.clients }, async (_, clientNo) => {
        while (remaining > 0) {
          remaining -= 1;
          await step(clientNo);
          done += 1;
          if (done % 500 === 0) options.onProgress?.(done);
        }
      }),
    );
    // Let requests the clients stopped waiting for finish before the tables are read or dropped.
    await new Promise((resolve) => setTimeout(resolve, options.faults ? CLIENT_TIMEOUT_MS : 0));
  } finally {
    emulator.remove();
    injector?.remove();
    lostAfterSend?.remove();
    resetDocumentClient();
    if (releaseCache === undefined) delete process.env.RELEASE_CACHE_SECONDS;
    else process.env.RELEASE_CACHE_SECONDS = releaseCache;
    resetConfig();
  }

  const partitions: Partition[] = [];
  for (const [id, operations] of keyOps)
    if (operations.length > 0)
      partitions.push({
        object: `key:${id}`,
        model: keyModel,
        initial: keyInitial.get(id) ?? null,
        operations,
      } as Partition);
  for (const store of stores) {
    const initial: StoreState = { keys: { [store.admin.id]: 0 }, ghosts: 0, ghostReserved: 0 };
    partitions.push({
      object: `store:${store.id}`,
      model: storeModel,
      initial,
      operations: storeOps.get(store.id),
    } as Partition);
  }
  for (const store of stores)
    partitions.push({
      object: `products:${store.id}`,
      model: productsModel,
      initial: { products: {}, ghosts: [] },
      operations: productOps.get(store.id),
    } as Partition);
  partitions.push({
    object: 'mappings',
    model: mappingModel,
    initial: Object.fromEntries(stores.map((s, i) => [s.id, `${tag}-home${i}`])),
    operations: mappingOps,
  } as Partition);
  partitions.push({
    object: `release:${catalogStore.id}`,
    model: releaseModel,
    initial: 'rel0',
    operations: releaseOps,
  } as Partition);
  return {
    partitions,
    tokens: { writes, deletions },
    operations: nextId,
    indeterminate,
    conflicts: emulator.conflicts,
    faults: injector
      ? lostAfterSend
        ? sumFaults(injector.injected, lostAfterSend.injected)
        : injector.injected
      : undefined,
    byKind,
    ms: performance.now() - started,
  };
}

function sumFaults(a: FaultCounts, b: FaultCounts): FaultCounts {
  const byKind = { ...a.byKind };
  for (const [kind, count] of Object.entries(b.byKind)) byKind[kind as keyof typeof byKind] += count;
  const byOperation = { ...a.byOperation };
  for (const [op, count] of Object.entries(b.byOperation)) byOperation[op] = (byOperation[op] ?? 0) + count;
  return { total: a.total + b.total, byKind, byOperation };
}
