import sampleRelease from '../catalog/sample-release.json';
import { CATALOG } from '../fuzz/world';
import { clearAuthCache } from '../lib/auth/authenticate';
import { seededRandom } from '../lib/catalog/generator';
import { runWorkflowLocally } from '../lib/catalog/pipeline/run-local';
import { registerLocalWorkflow } from '../lib/catalog/pipeline/start';
import { getConfig, resetConfig } from '../lib/config/index';
import { uuidv4 } from '../lib/ids';
import { documentKey } from '../lib/pcm/publishing';
import { catalogRepository } from '../lib/store/catalog-repository';
import {
  createDocumentClient,
  getDocumentClient,
  resetDocumentClient,
  setDocumentClient,
} from '../lib/store/client';
import { objectStore } from '../lib/store/object-store';
import { pcmRepository } from '../lib/store/pcm-repository';
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
  pricesModel,
  productsModel,
  type ReleaseInput,
  type ReleaseOutput,
  releaseModel,
  type StoreInput,
  type StoreOutput,
  type StoreState,
  storeModel,
  type TreeInput,
  type TreeOutput,
  treeModel,
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
  /**
   * The share of the other operations on the prices of each store's price book (default PRICE_SHARE when
   * products run, else 0).
   */
  priceShare?: number;
  /** The share of operations on each store's hierarchy, its nodes and their products (default NODE_SHARE). */
  nodeShare?: number;
  /**
   * The share of node moves sent as a pair at once, as from two tabs (default 0, no draw taken): one node
   * under another and that one under the first, the race a cycle check on what a move read alone lets
   * through.
   */
  pairedMoves?: number;
  /**
   * The chance that a release operation publishes when no publish runs (default PUBLISH_CHANCE). A publish
   * runs the whole workflow, so how many a run holds depends on the machine's speed: a run that needs
   * several raises it.
   */
  publishChance?: number;
  /**
   * Publishes the run holds at least (default 0): past `ops`, the clients go on until that many have
   * ended, so a run that must see several releases sees them however few fit in its operations on this
   * machine. A run that begins MIN_PUBLISHES_OPS_FACTOR times `ops` operations while no publish runs
   * without beginning one (no release operation publishes) stops and throws.
   */
  minPublishes?: number;
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

/**
 * A run aimed at hierarchies: nine operations in ten on nodes and their products, none on products, and a
 * third of the moves sent in opposite pairs at once.
 */
export const HIERARCHY_WORKLOAD: DriveOptions = {
  ops: 1500,
  clients: 8,
  seed: 1,
  faults: false,
  productShare: 0,
  nodeShare: 0.9,
  pairedMoves: 0.3,
};

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
/** The share of the operations left after products' that are on prices, by default. */
const PRICE_SHARE = 0.15;
/** The share of operations on hierarchy nodes, by default. */
const NODE_SHARE = 0.15;
/** Nodes a store's hierarchy takes before creates stop (so moves, not creates, reach the depth bound). */
const MAX_NODES = 7;
/** Node names (in mixed case on creates, so siblings' names collide). */
const NODE_NAMES = 3;
/** Products made at seeding for attaching (never deleted, so attachments are the tree's alone). */
const ATTACHABLE = 3;

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
  /** The store's price book, and the prices created in it during the run (deleted ones included). */
  pricebookId: string;
  prices: string[];
  /** The store's hierarchy, the nodes created in it, and the products its nodes attach. */
  hierarchyId: string;
  nodes: string[];
  attachable: string[];
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

/**
 * The chance that a release operation deletes the current release (a rollback), when two are kept and no
 * publish runs: publishes run the whole workflow and take a while, so rollbacks get fewer chances.
 */
const ROLLBACK_CHANCE = 0.12;

/** The chance that a release operation publishes, when no publish runs. */
const PUBLISH_CHANCE = 0.08;

/**
 * A run asked for `minPublishes` stops, and throws, once it has begun this many times its `ops` while no
 * publish ran without beginning one.
 */
const MIN_PUBLISHES_OPS_FACTOR = 10;

/**
 * Release n changes about a quarter of the sample's products (release 0 all of them): product i's name is
 * marked `#relK#`, K the last release up to n that changed it. A publish then writes only those products
 * (releases share the rest), and a read's page matches the releases whose marks it shows in full.
 */
const changedIn = (i: number, n: number) => n === 0 || (i * 7 + n * 13) % 4 === 0;
function markOf(i: number, n: number): number {
  for (let k = n; k > 0; k -= 1) if (changedIn(i, k)) return k;
  return 0;
}
const SAMPLE_INDEX = new Map(sampleRelease.products.map((product, i) => [product.id, i]));

function markedRelease(n: number): Record<string, unknown> {
  const copy = structuredClone(sampleRelease) as { products: { attributes: { name: string } }[] };
  copy.products.forEach((product, i) => {
    product.attributes.name = `${product.attributes.name} #rel${markOf(i, n)}#`;
  });
  return copy as unknown as Record<string, unknown>;
}

/** The releases (of those published so far, by number) whose content a child page matches in full. */
function matchingReleases(body: string, published: number[]): string[] | undefined {
  const page = parse(body) as { data?: { id: string; attributes: { name: string } }[] } | undefined;
  if (!Array.isArray(page?.data)) return undefined;
  const seen = page.data.map((child) => ({
    index: SAMPLE_INDEX.get(child.id),
    mark: Number(/#rel(\d+)#/.exec(child.attributes.name)?.[1] ?? Number.NaN),
  }));
  return published
    .filter((n) => seen.every(({ index, mark }) => index !== undefined && markOf(index, n) === mark))
    .map((n) => `rel${n}`);
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
  const book = await call('pcm-create-pricebook', {
    method: 'POST',
    path: '/pcm/pricebooks',
    routeKey: 'POST /pcm/pricebooks',
    headers: json(adminToken),
    body: JSON.stringify({ data: { type: 'pricebook', attributes: { name: `${tag} book ${index}` } } }),
  });
  const pricebookId = parse(book.body)?.data?.id as string | undefined;
  if (!adminToken || !implicitToken || put.status !== 200 || !pricebookId)
    throw new Error(`seeding history store ${index} failed (${put.status}, ${book.status})`);
  const hierarchy = await call('pcm-create-hierarchy', {
    method: 'POST',
    path: '/pcm/hierarchies',
    routeKey: 'POST /pcm/hierarchies',
    headers: json(adminToken),
    body: JSON.stringify({ data: { type: 'hierarchy', attributes: { name: `History ${index}` } } }),
  });
  const attachable: string[] = [];
  for (let i = 0; i < ATTACHABLE; i += 1) {
    const made = await call('pcm-create-product', {
      method: 'POST',
      path: '/pcm/products',
      routeKey: 'POST /pcm/products',
      headers: json(adminToken),
      body: JSON.stringify({
        data: {
          type: 'product',
          attributes: { name: `attach ${i}`, sku: `${tag}-attach-${index}-${i}`, commodity_type: 'physical' },
        },
      }),
    });
    attachable.push(parse(made.body)?.data?.id as string);
  }
  const hierarchyId = parse(hierarchy.body)?.data?.id as string | undefined;
  if (!hierarchyId || attachable.some((id) => !id))
    throw new Error(`seeding history store ${index}'s hierarchy failed`);
  return {
    hierarchyId,
    nodes: [],
    attachable,
    id: store.id,
    mappingId: store.mapping_id,
    admin,
    adminToken,
    implicitToken,
    keys: [admin],
    tokens: [],
    products: [],
    pricebookId,
    prices: [],
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
  // Runs without products run without prices too: draw for draw as before either was added.
  const priceShare = options.priceShare ?? (productShare > 0 ? PRICE_SHARE : 0);
  const nodeShare = options.nodeShare ?? NODE_SHARE;
  const pairedMoves = options.pairedMoves ?? 0;
  /** Operations the run has yet to begin (a pair of moves takes two). */
  let remaining = options.ops;
  const publishChance = options.publishChance ?? PUBLISH_CHANCE;
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
  /** Every release number a publish was started for (a read may show any of them). */
  const published: number[] = [0];
  // Publishes go through the workflow, which compares each release with the one before and shares the
  // rest: the runs it starts are awaited here.
  // One publish at a time: a run started belongs to the publish in progress, even when the answer to its
  // POST is lost.
  let publishingNumber = 0;
  let run: Promise<unknown> | undefined;
  registerLocalWorkflow((input) => {
    releaseNames.set(input.release_id, `rel${publishingNumber}`);
    run = runWorkflowLocally(input);
    return run;
  });
  const publishShared = async (n: number): Promise<Answer> => {
    publishingNumber = n;
    run = undefined;
    const text = JSON.stringify(markedRelease(n));
    const key = documentKey(catalogStore.id, sampleRelease.catalog.id);
    await objectStore.put(key, text, { contentType: 'application/json' });
    await pcmRepository.setDocument(catalogStore.id, sampleRelease.catalog.id, {
      key,
      bytes: Buffer.byteLength(text),
      updated_at: new Date().toISOString(),
    });
    const created = await call('pcm-create-release', {
      method: 'POST',
      path: `/pcm/catalogs/${sampleRelease.catalog.id}/releases`,
      routeKey: 'POST /pcm/catalogs/{catalog_id}/releases',
      pathParameters: { catalog_id: sampleRelease.catalog.id },
      headers: json(catalogStore.adminToken),
      body: '{}',
    });
    await run;
    if (created.status !== 201) return created;
    const id = parse(created.body)?.data?.id as string;
    const release = await pcmRepository.getRelease(catalogStore.id, sampleRelease.catalog.id, id);
    return release?.state === 'PUBLISHED'
      ? { status: 200, body: '' }
      : { status: 503, body: release?.state ?? 'no release' };
  };
  let kept: string[] = ['rel0'];
  const first = await publishShared(0);
  if (first.status !== 200) throw new Error(`the first release did not publish: ${first.body}`);

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
  const priceOps = new Map<string, Operation<ProductInput, ProductOutput>[]>(stores.map((s) => [s.id, []]));
  const treeOps = new Map<string, Operation<TreeInput, TreeOutput>[]>(stores.map((s) => [s.id, []]));
  const writes: TokenWrite[] = [];
  const deletions: KeyDeletion[] = [];
  for (const store of stores) {
    keyInitial.set(store.admin.id, { name: 'Admin', reserved: 0 });
    keyOps.set(store.admin.id, []);
  }
  let publishing = false;
  let publishesEnded = 0;
  /** Operations begun while no publish ran, since the last publish began. */
  let sincePublish = 0;

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

  /**
   * What a run of sku-claiming entries needs: a store's authored products, or the prices of its price book
   * (whose `external_ref` plays the product's `name`: a second attribute a partial update must not lose).
   */
  interface ClaimTarget {
    kind: 'product' | 'price';
    /** The store's admin token. */
    token: string;
    ops: Operation<ProductInput, ProductOutput>[];
    ids: string[];
    collection: string;
    /** The functions' names are `pcm-<verb>-<kind>`; the route keys' paths these, with `{id}`. */
    routePath: string;
    pathParameters: Record<string, string>;
    idParameter: string;
    type: string;
    /** The attribute the model calls `name`. */
    other: 'name' | 'external_ref';
    create: (sku: string, other: string) => Record<string, unknown>;
    taken: (body: { errors?: { detail?: string; source?: string }[] } | undefined) => boolean;
  }

  const productTarget = (store: Store): ClaimTarget => ({
    kind: 'product',
    token: store.adminToken,
    ops: productOps.get(store.id) as Operation<ProductInput, ProductOutput>[],
    ids: store.products,
    collection: '/pcm/products',
    routePath: '/pcm/products',
    pathParameters: {},
    idParameter: 'product_id',
    type: 'product',
    other: 'name',
    create: (sku, name) => ({ name, sku, commodity_type: 'physical' }),
    taken: (body) => /sku: Must be unique/.test(body?.errors?.[0]?.detail ?? ''),
  });
  const priceTarget = (store: Store): ClaimTarget => ({
    kind: 'price',
    token: store.adminToken,
    ops: priceOps.get(store.id) as Operation<ProductInput, ProductOutput>[],
    ids: store.prices,
    collection: `/pcm/pricebooks/${store.pricebookId}/prices`,
    routePath: '/pcm/pricebooks/{pricebook_id}/prices',
    pathParameters: { pricebook_id: store.pricebookId },
    idParameter: 'price_id',
    type: 'product-price',
    other: 'external_ref',
    create: (sku, ref) => ({ sku, external_ref: ref, currencies: { USD: { amount: 100 } } }),
    taken: (body) => body?.errors?.[0]?.source === 'data.attributes.sku',
  });

  /** One operation on sku-claiming entries: create, partial update (sku or the other attribute), delete, get. */
  const claimStep = async (clientNo: number, target: ClaimTarget): Promise<void> => {
    const { ops, kind, other } = target;
    const base = `${tag}-s${Math.floor(random() * SKUS)}`;
    const sku = random() < 0.3 ? base.toUpperCase() : base;
    const what = random();
    const headers = json(target.token);
    const entry = (answer?: Answer) => {
      const body = parse(answer?.body ?? '');
      const attributes = body?.data?.attributes;
      return {
        id: body?.data?.id as string | undefined,
        sku: attributes?.sku as string | undefined,
        name: attributes?.[other] as string | undefined,
        taken: answer?.status === 409 && target.taken(body),
      };
    };
    const fn = (verb: string) => `pcm-${verb}-${kind}`;
    if (what < 0.3 || target.ids.length === 0) {
      const name = `p${nextId}`;
      const t = await timed(clientNo, `${kind}-create`, () =>
        call(fn('create'), {
          method: 'POST',
          path: target.collection,
          routeKey: `POST ${target.routePath}`,
          pathParameters: target.pathParameters,
          headers,
          body: JSON.stringify({ data: { type: target.type, attributes: target.create(sku, name) } }),
        }),
      );
      const seen = entry(t.answer);
      const id = t.answer?.status === 201 ? seen.id : undefined;
      if (id) target.ids.push(id);
      record(
        ops,
        t,
        { op: 'create', sku, name },
        t.answer && { status: t.answer.status, id, taken: seen.taken },
      );
      return;
    }
    const id = pick(target.ids);
    const path = `${target.collection}/${id}`;
    const routeKey = (method: string) => `${method} ${target.routePath}/{${target.idParameter}}`;
    const item = { pathParameters: { ...target.pathParameters, [target.idParameter]: id }, headers };
    if (what < 0.65) {
      const useSku = random() < 0.6;
      const change = useSku ? { sku } : { name: `n${nextId}` };
      const sent = useSku ? { sku } : { [other]: change.name };
      const t = await timed(clientNo, `${kind}-update`, () =>
        call(fn('update'), {
          method: 'PUT',
          path,
          routeKey: routeKey('PUT'),
          ...item,
          body: JSON.stringify({ data: { type: target.type, id, attributes: sent } }),
        }),
      );
      const seen = entry(t.answer);
      record(
        ops,
        t,
        { op: 'update', id, ...change },
        t.answer && { status: t.answer.status, sku: seen.sku, name: seen.name, taken: seen.taken },
      );
      return;
    }
    if (what < 0.8) {
      const t = await timed(clientNo, `${kind}-delete`, () =>
        call(fn('delete'), { method: 'DELETE', path, routeKey: routeKey('DELETE'), ...item }),
      );
      record(ops, t, { op: 'delete', id }, t.answer && { status: t.answer.status });
      return;
    }
    const t = await timed(clientNo, `${kind}-get`, () =>
      call(fn('get'), { method: 'GET', path, routeKey: routeKey('GET'), ...item }),
    );
    const seen = entry(t.answer);
    record(
      ops,
      t,
      { op: 'get', id },
      t.answer && { status: t.answer.status, sku: seen.sku, name: seen.name },
    );
  };

  /**
   * One operation on a store's hierarchy: a node create (names drawn from a few, in mixed case, under the
   * top or a node), a move (PUT or DELETE of its parent, so cycles and name clashes are tried), a get, an
   * attach or detach of the seeded products, a products list. Node deletes are left out: a subtree goes
   * leaves first, one node at a time, which is no single atomic step.
   */
  const nodeStep = async (clientNo: number, store: Store): Promise<void> => {
    const ops = treeOps.get(store.id) as Operation<TreeInput, TreeOutput>[];
    const headers = json(store.adminToken);
    const h = store.hierarchyId;
    const N = '/pcm/hierarchies/{hierarchy_id}/nodes';
    const what = random();
    const errorOf = (answer?: Answer) => {
      const body = parse(answer?.body ?? '');
      return {
        taken: answer?.status === 409 && body?.errors?.[0]?.source === 'data.attributes.name',
        invalid: answer?.status === 422,
      };
    };
    const someParent = () => (store.nodes.length === 0 || random() < 0.3 ? null : pick(store.nodes));
    // A full hierarchy takes a move instead of a create.
    if ((what < 0.25 && store.nodes.length < MAX_NODES) || store.nodes.length === 0) {
      const base = `n${Math.floor(random() * NODE_NAMES)}`;
      const name = random() < 0.3 ? base.toUpperCase() : base;
      const parent = someParent();
      const t = await timed(clientNo, 'node-create', () =>
        call('pcm-create-node', {
          method: 'POST',
          path: `/pcm/hierarchies/${h}/nodes`,
          routeKey: `POST ${N}`,
          pathParameters: { hierarchy_id: h },
          headers,
          body: JSON.stringify({
            data: {
              type: 'node',
              attributes: { name },
              ...(parent === null
                ? {}
                : { relationships: { parent: { data: { type: 'node', id: parent } } } }),
            },
          }),
        }),
      );
      const id = t.answer?.status === 201 ? (parse(t.answer.body)?.data?.id as string) : undefined;
      if (id) store.nodes.push(id);
      record(
        ops,
        t,
        { op: 'create', name, parent },
        t.answer && { status: t.answer.status, id, ...errorOf(t.answer) },
      );
      return;
    }
    /** A move of a node under a parent (null: to the top level), by PUT or DELETE of its parent. */
    const move = async (client: number, node: string, parent: string | null) => {
      const at = { hierarchy_id: h, node_id: node };
      const relationship = `/pcm/hierarchies/${h}/nodes/${node}/relationships/parent`;
      const t = await timed(client, 'node-move', () =>
        parent === null
          ? call('pcm-delete-node-parent', {
              method: 'DELETE',
              path: relationship,
              routeKey: `DELETE ${N}/{node_id}/relationships/parent`,
              pathParameters: at,
              headers,
            })
          : call('pcm-write-node-parent', {
              method: 'PUT',
              path: relationship,
              routeKey: `PUT ${N}/{node_id}/relationships/parent`,
              pathParameters: at,
              headers,
              body: JSON.stringify({ data: { type: 'node', id: parent } }),
            }),
      );
      record(
        ops,
        t,
        { op: 'move', id: node, parent },
        t.answer && { status: t.answer.status, ...errorOf(t.answer) },
      );
    };
    const id = pick(store.nodes);
    const one = { hierarchy_id: h, node_id: id };
    const path = `/pcm/hierarchies/${h}/nodes/${id}`;
    if (what < 0.5) {
      // The pair's second move is one more of the run's operations (none when the run has no more left).
      if (pairedMoves > 0 && store.nodes.length >= 2 && random() < pairedMoves && remaining > 0) {
        remaining -= 1;
        const other = pick(store.nodes.filter((node) => node !== id));
        // The second of the pair comes from another tab of the same client: a lane of its own in the report.
        await Promise.all([move(clientNo, id, other), move(clientNo + options.clients, other, id)]);
        return;
      }
      await move(clientNo, id, someParent());
      return;
    }
    if (what < 0.75) {
      const products = store.attachable.filter(() => random() < 0.5);
      if (products.length === 0) products.push(pick(store.attachable));
      const attach = random() < 0.6;
      const t = await timed(clientNo, attach ? 'node-attach' : 'node-detach', () =>
        call('pcm-write-node-products', {
          method: attach ? 'POST' : 'DELETE',
          path: `${path}/relationships/products`,
          routeKey: `${attach ? 'POST' : 'DELETE'} ${N}/{node_id}/relationships/products`,
          pathParameters: one,
          headers,
          body: JSON.stringify({ data: products.map((product) => ({ type: 'product', id: product })) }),
        }),
      );
      record(
        ops,
        t,
        { op: attach ? 'attach' : 'detach', id, products },
        t.answer && { status: t.answer.status },
      );
      return;
    }
    if (what < 0.88) {
      const t = await timed(clientNo, 'node-get', () =>
        call('pcm-get-node', {
          method: 'GET',
          path,
          routeKey: `GET ${N}/{node_id}`,
          pathParameters: one,
          headers,
        }),
      );
      const data = parse(t.answer?.body ?? '')?.data;
      const parentId = data?.relationships?.parent?.data?.id as string | undefined;
      record(
        ops,
        t,
        { op: 'get', id },
        t.answer && {
          status: t.answer.status,
          name: data?.attributes?.name as string | undefined,
          parent: parentId === h ? null : parentId,
        },
      );
      return;
    }
    const t = await timed(clientNo, 'node-products', () =>
      call('pcm-list-node-products', {
        method: 'GET',
        path: `${path}/products`,
        routeKey: `GET ${N}/{node_id}/products`,
        pathParameters: one,
        headers,
      }),
    );
    const listed = parse(t.answer?.body ?? '')?.data as { id: string }[] | undefined;
    record(
      ops,
      t,
      { op: 'products', id },
      t.answer && { status: t.answer.status, products: listed?.map((product) => product.id) },
    );
  };

  const step = async (clientNo: number): Promise<void> => {
    const store = pick(stores);
    if (productShare > 0 && random() < productShare) return claimStep(clientNo, productTarget(store));
    if (priceShare > 0 && random() < priceShare) return claimStep(clientNo, priceTarget(store));
    if (nodeShare > 0 && random() < nodeShare) return nodeStep(clientNo, store);
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
    if (!publishing && kept.length >= 2 && rollbackRandom() < ROLLBACK_CHANCE) {
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
    if (!publishing && random() < publishChance) {
      publishing = true;
      sincePublish = 0;
      releases += 1;
      const release = `rel${releases}`;
      const number = releases;
      published.push(number);
      const t = await timed(clientNo, 'publish', async () => {
        try {
          return await publishShared(number);
        } catch (error) {
          return { status: 503, body: String(error) };
        }
      });
      publishing = false;
      publishesEnded += 1;
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
    const candidates =
      t.answer && t.answer.status === 200 ? matchingReleases(t.answer.body, published) : undefined;
    record(
      releaseOps,
      t,
      { op: 'read', parent },
      t.answer && {
        status: t.answer.status,
        releases: releasesSeen,
        ...(candidates === undefined ? {} : { candidates }),
      },
    );
  };

  let done = 0;
  const minPublishes = options.minPublishes ?? 0;
  const cap = options.ops * MIN_PUBLISHES_OPS_FACTOR;
  try {
    await Promise.all(
      Array.from({ length: options.clients }, async (_, clientNo) => {
        // Past `ops`, every client goes on (reads among them) until enough publishes have ended.
        while ((remaining > 0 || publishesEnded < minPublishes) && sincePublish < cap) {
          remaining -= 1;
          if (!publishing) sincePublish += 1;
          await step(clientNo);
          done += 1;
          if (done % 500 === 0) options.onProgress?.(done);
        }
      }),
    );
    if (publishesEnded < minPublishes)
      throw new Error(
        `the run held ${publishesEnded} publishes, fewer than the ${minPublishes} asked for, and began none in ${cap} operations`,
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
  for (const store of stores)
    partitions.push({
      object: `prices:${store.id}`,
      model: pricesModel,
      initial: { products: {}, ghosts: [] },
      operations: priceOps.get(store.id),
    } as Partition);
  for (const store of stores)
    partitions.push({
      object: `tree:${store.id}`,
      model: treeModel,
      initial: { nodes: {}, ghosts: [], attached: {} },
      operations: treeOps.get(store.id),
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
