import './silent-logs';
import { performance } from 'node:perf_hooks';
import { handler } from '../functions/list-child-products/handler';
import { clearAuthCache } from '../lib/auth/authenticate';
import { issueAccessToken } from '../lib/auth/issue-token';
import { clearCatalogCaches } from '../lib/catalog/cache';
import { CHILD_CHUNK_SIZE } from '../lib/catalog/child-index';
import { generateRelease } from '../lib/catalog/generator';
import { RELEASE_SHARDS } from '../lib/catalog/publisher';
import { validateRelease } from '../lib/catalog/validate-stream';
import { uuidv7 } from '../lib/ids';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { catalogCapacity, catalogKeys, catalogRepository } from '../lib/store/catalog-repository';
import { getDocumentClient } from '../lib/store/client';
import { BatchWriteCommand, QueryCommand } from '../lib/store/dynamodb';
import { tableName } from '../lib/store/schema';
import { DEFAULT_CURRENCIES, storeRepository } from '../lib/store/store-repository';
import { createHttpEvent, createLambdaContext } from '../local/http-event';
import { buildReleaseItems, publishRelease } from '../test/support/one-process-publisher';
import { measure, measurePair, progress, quantile, round, runAsScript, type Timing } from './support';

export interface ChildListRequestFigures {
  offset: number;
  limit: number;
  filter: string | undefined;
  timing: Timing;
  /** Read capacity units one such request consumed from the products table (ReturnConsumedCapacity). */
  read_units: number;
}

export interface PublishFigures {
  items: number;
  publish: { median_ms: number; items_per_s: number; runs: number };
  raw_batch_write: { median_ms: number; items_per_s: number; runs: number };
  /** publish median / raw median (target <= 1.5). */
  ratio: number;
}

/** `include=main_image,files` against the same page without it, in the same run. */
export interface IncludeFigures {
  include: string;
  cold: {
    without_p50_ms: number;
    with_p50_ms: number;
    ratio: number;
    read_units_without: number;
    read_units_with: number;
  };
  warm: { without_p50_ms: number; with_p50_ms: number; ratio: number };
}

export interface ChildListFigures {
  children: number;
  cold: ChildListRequestFigures[];
  warm: ChildListRequestFigures[];
  include: IncludeFigures;
  naive: { timing: Timing; read_units: number; items_read: number };
  publish: PublishFigures;
  ratios: { cold_deep_over_first: number; warm_deep_over_first: number; warm_first_over_deep: number };
}

const LIMIT = 25;

export interface ChildListSetup {
  storeId: string;
  token: string;
  parentId: string;
  liveChildIds: string[];
  /** First live child tagged `red`, in publish order. */
  firstRedId: string;
  document: Record<string, unknown>;
}

/**
 * A store, an implicit token and a generated release (not yet published) with one parent of `children`,
 * every child with a main image of its own.
 */
export async function setUpChildList(children: number): Promise<ChildListSetup> {
  // Far above what the benchmarks send, so the limiter admits every request (its own stage: rate-limit.ts).
  const store = await storeRepository.create({ name: 'bench catalog', rate_limit: 100_000 });
  const { key } = await applicationKeyRepository.create(store.id, { name: 'bench', reserved_rate_limit: 0 });
  const token = await issueAccessToken({ grant_type: 'implicit', client_id: key.client_id });
  const document = generateRelease({ children, drafts: 50, images: true });
  const products = document.products as {
    id: string;
    attributes: { status: string; base_product_id?: string; tags?: string[] };
  }[];
  const parentId = (products[0] as { id: string }).id;
  const live = products.filter(
    (product) => product.attributes.base_product_id === parentId && product.attributes.status === 'live',
  );
  const firstRed = live.find((product) => product.attributes.tags?.includes('red'));
  if (!firstRed) throw new Error('the generated release has no red child');
  return {
    storeId: store.id,
    token: token.access_token,
    parentId,
    liveChildIds: live.map((product) => product.id),
    firstRedId: firstRed.id,
    document,
  };
}

/**
 * One in-process request through the whole handler (middy, auth, catalog), checked for the expected page
 * (and, with `include`, for a main image per product).
 */
function request(
  setup: ChildListSetup,
  offset: number,
  filter?: string,
  expectedFirst?: string,
  include?: string,
) {
  const context = createLambdaContext('list-child-products');
  const query = `${filter === undefined ? '' : `filter=${encodeURIComponent(filter)}&`}${include === undefined ? '' : `include=${include}&`}page[offset]=${offset}&page[limit]=${LIMIT}`;
  return async () => {
    const event = createHttpEvent({
      method: 'GET',
      path: `/catalog/products/${setup.parentId}/relationships/children?${query}`,
      routeKey: 'GET /catalog/products/{product_id}/relationships/children',
      pathParameters: { product_id: setup.parentId },
      headers: { authorization: `Bearer ${setup.token}`, 'svc-channel': 'web' },
    });
    const response = await handler(event as never, context);
    if (response.statusCode !== 200)
      throw new Error(`list answered ${response.statusCode}: ${response.body}`);
    const body = JSON.parse(response.body ?? '') as {
      data: { id: string }[];
      included?: { main_images?: unknown[] };
    };
    const expected = expectedFirst ?? setup.liveChildIds[offset];
    if (body.data[0]?.id !== expected) throw new Error(`offset ${offset} returned the wrong page`);
    if (include !== undefined && body.included?.main_images?.length !== body.data.length)
      throw new Error(`include=${include} did not return a main image per product`);
  };
}

/** A cold container: every per-container cache empty (catalog caches and the token cache). */
function cold(fn: () => Promise<void>) {
  return async () => {
    clearCatalogCaches();
    clearAuthCache();
    await fn();
  };
}

async function readUnits(fn: () => Promise<void>): Promise<number> {
  catalogCapacity.reset();
  await fn();
  return round(catalogCapacity.read, 1);
}

/**
 * The naive design: read every product of the release from the base table (all shards, full items) and
 * keep the parent's live children. Returns the read units and items read.
 */
async function naiveReadAll(releaseId: string, parentId: string): Promise<{ units: number; items: number }> {
  const client = getDocumentClient();
  let units = 0;
  let items = 0;
  let children = 0;
  for (let shard = 0; shard < RELEASE_SHARDS; shard += 1) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: tableName('products'),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
          ExpressionAttributeValues: { ':pk': catalogKeys.shardPartition(releaseId, shard), ':p': 'P#' },
          ExclusiveStartKey: startKey,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      units += page.ConsumedCapacity?.CapacityUnits ?? 0;
      for (const item of page.Items ?? []) {
        items += 1;
        const stored = JSON.parse(item.d as string) as {
          live: boolean;
          resource: { attributes: { base_product_id?: string } };
        };
        if (stored.live && stored.resource.attributes.base_product_id === parentId) children += 1;
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
  if (children === 0) throw new Error('naive read found no children');
  return { units, items };
}

/** Raw BatchWriteItem of items, 16 batches of 25 in flight, as the publisher writes. */
async function rawBatchWrite(items: Record<string, unknown>[]): Promise<void> {
  const table = tableName('products');
  let next = 0;
  const worker = async () => {
    for (;;) {
      const start = next * 25;
      next += 1;
      if (start >= items.length) return;
      let pending = items.slice(start, start + 25).map((item) => ({ PutRequest: { Item: item } }));
      while (pending.length > 0) {
        const result = await getDocumentClient().send(
          new BatchWriteCommand({ RequestItems: { [table]: pending } }),
        );
        pending = (result.UnprocessedItems?.[table] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

async function benchPublish(setup: ChildListSetup, runs: number): Promise<PublishFigures> {
  const validated = validateRelease(setup.document);
  if (!validated.ok) throw new Error('generated document is invalid');
  const publishMs: number[] = [];
  const rawMs: number[] = [];
  let itemCount = 0;
  const rawItems = (catalogId: string) => {
    const layout = {
      id: uuidv7(),
      shards: RELEASE_SHARDS,
      chunk_size: CHILD_CHUNK_SIZE,
      published_at: new Date().toISOString(),
    };
    return buildReleaseItems(validated.document, { catalogId, layout, currencies: DEFAULT_CURRENCIES }).items;
  };
  const timePublish = async () => {
    const start = performance.now();
    // Timed until the release is live; deleting older releases afterwards is housekeeping, not this write.
    const result = await publishRelease(setup.storeId, setup.document, { cleanup: false });
    publishMs.push(performance.now() - start);
    itemCount = result.items;
    return result.catalog_id;
  };
  const timeRaw = async (catalogId: string) => {
    const items = rawItems(catalogId);
    const start = performance.now();
    await rawBatchWrite(items);
    rawMs.push(performance.now() - start);
  };
  // DynamoDB Local (a JVM) is several times slower on its first writes: warm it up untimed.
  progress('warming DynamoDB Local up with two untimed publishes');
  const catalogId = (await publishRelease(setup.storeId, setup.document)).catalog_id;
  await rawBatchWrite(rawItems(catalogId));
  await publishRelease(setup.storeId, setup.document);
  for (let run = 0; run < runs; run += 1) {
    progress(`publish run ${run + 1}/${runs}: publisher and raw BatchWriteItem of the same items`);
    // Alternate which goes first, so drift hits both alike.
    if (run % 2 === 0) {
      await timePublish();
      await timeRaw(catalogId);
    } else {
      await timeRaw(catalogId);
      await timePublish();
    }
  }
  const median = (values: number[]) =>
    quantile(
      [...values].sort((a, b) => a - b),
      0.5,
    );
  const publish = median(publishMs);
  const raw = median(rawMs);
  return {
    items: itemCount,
    publish: { median_ms: Math.round(publish), items_per_s: Math.round(itemCount / (publish / 1000)), runs },
    raw_batch_write: { median_ms: Math.round(raw), items_per_s: Math.round(itemCount / (raw / 1000)), runs },
    ratio: round(publish / raw),
  };
}

/**
 * The same first page with and without `include=main_image,files` (every child has its own main image, so
 * the page names 25 images and the parent's file), cold and warm, timed in alternation in the same run.
 */
async function benchInclude(
  setup: ChildListSetup,
  without: () => Promise<void>,
  coldIterations: number,
  warmIterations: number,
): Promise<IncludeFigures> {
  const include = 'main_image,files';
  const withInclude = request(setup, 0, undefined, undefined, include);
  progress(
    `timing ${coldIterations} cold and ${warmIterations} warm requests with and without include=${include}`,
  );
  const [coldWithout, coldWith] = await measurePair(cold(without), cold(withInclude), coldIterations, 2);
  const [warmWithout, warmWith] = await measurePair(without, withInclude, warmIterations, 20);
  return {
    include,
    cold: {
      without_p50_ms: coldWithout.p50_ms,
      with_p50_ms: coldWith.p50_ms,
      ratio: round(coldWith.p50_ms / coldWithout.p50_ms),
      read_units_without: await readUnits(cold(without)),
      read_units_with: await readUnits(cold(withInclude)),
    },
    warm: {
      without_p50_ms: warmWithout.p50_ms,
      with_p50_ms: warmWith.p50_ms,
      ratio: round(warmWith.p50_ms / warmWithout.p50_ms),
    },
  };
}

/**
 * Figures for `GET /catalog/products/{id}/relationships/children` on a parent with `children` live children
 * (read as lib/store lays the release out): cold (every container cache emptied before each request) and warm requests at
 * offset 0 and at `children - 25`, in-process through the handler, timed in alternation; the products-table
 * read units each consumed; the naive read-everything baseline; and the publish of that release against
 * raw BatchWriteItem of the same items. Expects the library to point at a database with the tables.
 */
export async function benchListChildProducts(
  options: { children?: number; coldIterations?: number; warmIterations?: number; publishRuns?: number } = {},
  existing?: ChildListSetup,
): Promise<ChildListFigures> {
  const children = options.children ?? 10000;
  const coldIterations = options.coldIterations ?? 40;
  const warmIterations = options.warmIterations ?? 300;
  const deep = children - LIMIT;
  progress(`generating a release with one parent of ${children} live children`);
  const setup = existing ?? (await setUpChildList(children));
  const publish = await benchPublish(setup, options.publishRuns ?? 6);
  const registry = await catalogRepository.getRegistry(setup.storeId);
  const releaseId = Object.values(registry?.catalogs ?? {})[0]?.release.id as string;

  const first = request(setup, 0);
  const last = request(setup, deep);
  progress(`timing ${coldIterations} cold requests at offsets 0 and ${deep}`);
  const [coldFirst, coldDeep] = await measurePair(cold(first), cold(last), coldIterations, 2);
  const coldFirstUnits = await readUnits(cold(first));
  const coldDeepUnits = await readUnits(cold(last));
  const filter = 'eq(tags,red)';
  const filtered = request(setup, 0, filter, setup.firstRedId);
  const coldFiltered = await measure(cold(filtered), Math.max(5, Math.floor(coldIterations / 4)), 1);
  const coldFilteredUnits = await readUnits(cold(filtered));

  progress(`timing ${warmIterations} warm requests at offsets 0 and ${deep}`);
  const [warmFirst, warmDeep] = await measurePair(first, last, warmIterations, 20);
  const warmFirstUnits = await readUnits(first);
  const warmDeepUnits = await readUnits(last);

  const include = await benchInclude(setup, first, coldIterations, warmIterations);

  progress('timing the naive baseline (read every product of the release)');
  let naive = { units: 0, items: 0 };
  const naiveTiming = await measure(
    async () => {
      naive = await naiveReadAll(releaseId, setup.parentId);
    },
    5,
    1,
  );

  const row = (
    offset: number,
    timing: Timing,
    units: number,
    filterText?: string,
  ): ChildListRequestFigures => ({
    offset,
    limit: LIMIT,
    filter: filterText,
    timing,
    read_units: units,
  });
  return {
    children,
    cold: [
      row(0, coldFirst, coldFirstUnits),
      row(deep, coldDeep, coldDeepUnits),
      row(0, coldFiltered, coldFilteredUnits, filter),
    ],
    warm: [row(0, warmFirst, warmFirstUnits), row(deep, warmDeep, warmDeepUnits)],
    include,
    naive: { timing: naiveTiming, read_units: round(naive.units, 1), items_read: naive.items },
    publish,
    ratios: {
      cold_deep_over_first: round(coldDeep.p50_ms / coldFirst.p50_ms),
      warm_deep_over_first: round(warmDeep.p50_ms / warmFirst.p50_ms),
      warm_first_over_deep: round(warmFirst.p50_ms / warmDeep.p50_ms),
    },
  };
}

function describe(row: ChildListRequestFigures): string {
  const what =
    row.filter === undefined
      ? `offset ${String(row.offset).padStart(5)}`
      : `${row.filter} offset ${row.offset}`;
  return `  ${what.padEnd(28)} p50 ${row.timing.p50_ms} ms  p99 ${row.timing.p99_ms} ms  read units ${row.read_units}  (${row.timing.samples} requests)`;
}

runAsScript(
  import.meta.url,
  () => benchListChildProducts(),
  (figures) => {
    const p = figures.publish;
    return [
      `GET /catalog/products/{id}/relationships/children, in-process, DynamoDB Local, parent with ${figures.children} live children, page[limit]=25`,
      'cold (catalog and token caches emptied before each request):',
      ...figures.cold.map(describe),
      'warm (repeated):',
      ...figures.warm.map(describe),
      `include=${figures.include.include}, first page, same run: cold p50 ${figures.include.cold.with_p50_ms} ms vs ${figures.include.cold.without_p50_ms} ms without (ratio ${figures.include.cold.ratio}; read units ${figures.include.cold.read_units_with} vs ${figures.include.cold.read_units_without}); warm p50 ${figures.include.warm.with_p50_ms} ms vs ${figures.include.warm.without_p50_ms} ms (ratio ${figures.include.warm.ratio}, target <= 1.3)`,
      `naive baseline (read every product of the release from the base table): p50 ${figures.naive.timing.p50_ms} ms  p99 ${figures.naive.timing.p99_ms} ms  read units ${figures.naive.read_units}  (${figures.naive.items_read} items)`,
      `ratios: cold deep/first ${figures.ratios.cold_deep_over_first} (target <= 3); warm deep/first ${figures.ratios.warm_deep_over_first}, first/deep ${figures.ratios.warm_first_over_deep} (target <= 1.2)`,
      `publish of ${p.items} items: median ${p.publish.median_ms} ms (${p.publish.items_per_s} items/s) vs raw BatchWriteItem ${p.raw_batch_write.median_ms} ms (${p.raw_batch_write.items_per_s} items/s): ratio ${p.ratio} (target <= 1.5), ${p.publish.runs} runs each`,
      '',
    ].join('\n');
  },
);
