import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import FormData from 'form-data';
import { uuidv7, uuidv7After } from '../lib/ids';
import { ordered } from '../lib/products/service';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { batchWriteItems } from '../lib/store/items';
import { attachmentItems, nodeRepository } from '../lib/store/node-repository';
import { newPriceItems, type PriceRecord, priceRepository } from '../lib/store/price-repository';
import { newProductItems, type ProductRecord, productRepository } from '../lib/store/product-repository';
import { storeRepository } from '../lib/store/store-repository';
import { freePort } from '../local/dynamodb-local';
import { startProcess, stopProcess } from './local-server';
import { intOption, progress, round, runAsScript } from './support';

/**
 * The `authored` stage: an authored catalog published end to end on the local harness, as the platform's
 * tools build one. The bench makes N products through the CSV import (files of 30,000 rows, under the
 * 4 MiB a form takes), a hierarchy of 10 nodes with 10 children each, every product attached to one of the 100 leaves
 * over the API (25 a request, as the route takes), a price per sku in a price book, and a catalog naming both;
 * then it creates a release and polls it every 250 ms. Figures: each phase's wall time (the Export step
 * first, then the steps documents take), the API process's peak RSS, and the setup's own times.
 */

export interface AuthoredFigures {
  products: number;
  import_s: number;
  attach_s: number;
  prices_s: number;
  exported_s: number;
  validated_s: number;
  planned_s: number;
  derived_s: number;
  published_s: number;
  items: number;
  api_heap_mb: number;
  peak_rss_mb: { api: number };
}

export const API_HEAP_MB = 320;
/** Rows of one import file: about 105 bytes each, so a file stays under the 4 MiB a form takes. */
const IMPORT_ROWS = 30_000;
/** Products a node-attach request takes. */
const ATTACH_BATCH = 25;
/** Requests (attachments) or writes (prices) in flight while the bench sets up. */
const SETUP_CONCURRENCY = 8;

/** The peak resident set of a process (Linux), in MB. */
export function peakRssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) / 1024);
}

export async function each<T>(items: T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next] as T;
        next += 1;
        await work(item);
      }
    }),
  );
}

/** An answer other than 2xx. */
export class ApiError extends Error {
  constructor(
    request: string,
    readonly status: number,
    body: string,
  ) {
    super(`${request}: ${status} ${body.slice(0, 300)}`);
  }
}

/** Polls of a release answered 503 in a row before the bench gives up on it. */
const UNAVAILABLE_POLLS = 40;

/** A resource as the API answers it: what the bench reads of it. */
interface ApiResource {
  id: string;
  attributes: Record<string, unknown>;
  meta: Record<string, unknown>;
}

/** A local API with an authored catalog of N products, as `measureAuthoredPublish` builds it. */
export interface AuthoredBench {
  api: ChildProcess;
  storeId: string;
  catalog: string;
  book: string;
  /** Prices by sku (the bench's own ids), and the products' ids in creation order. */
  prices: { id: string; sku: string }[];
  products: number;
  /** The products' ids, as the store lists them. */
  productIds: string[];
  call: (method: string, path: string, body?: unknown) => Promise<{ data: ApiResource }>;
  base: string;
  token: string;
  setup: { import_s: number; attach_s: number; prices_s: number };
}

/**
 * How the bench writes the catalog's products, attachments and prices: `api` as a merchant's tools do (CSV
 * imports, attach requests, one price write each, about 450 products a second here), `batched` as the same
 * items in batches of 25 (`newProductItems`, `attachmentItems`, `newPriceItems`: 3,000 products a second),
 * without the per-item checks, for a million products. Either way the hierarchy, nodes, price book and
 * catalog are made over the API, and every write goes through the change log's hook.
 */
export type SetupMode = 'api' | 'batched';

/** `--setup api|batched` (default api). */
export function setupOption(args: string[]): SetupMode {
  const at = args.indexOf('--setup');
  const value = at === -1 ? 'api' : args[at + 1];
  if (value !== 'api' && value !== 'batched') throw new Error(`--setup must be api or batched, got ${value}`);
  return value;
}

export async function setupAuthoredCatalog(options: {
  products: number;
  setup?: SetupMode;
}): Promise<AuthoredBench> {
  const store = await storeRepository.create({ name: 'bench authored', rate_limit: 100_000 });
  const { key, clientSecret } = await applicationKeyRepository.create(store.id, {
    name: 'bench',
    reserved_rate_limit: 0,
  });
  const port = await freePort();
  const api: ChildProcess = await startProcess(
    process.execPath,
    [`--max-old-space-size=${API_HEAP_MB}`, '--import', 'tsx', 'local/start.ts', '--in-memory'],
    { ...process.env, PORT: String(port), S3_PORT: String(await freePort()), LOG_LEVEL: 'silent' },
    /Local API listening/,
  );
  try {
    const base = `http://127.0.0.1:${port}`;
    const grant = await fetch(`${base}/oauth/access_token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${key.client_id}&client_secret=${clientSecret}`,
    });
    const token = ((await grant.json()) as { access_token: string }).access_token;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      if (!response.ok) throw new ApiError(`${method} ${path}`, response.status, text);
      return JSON.parse(text) as { data: ApiResource };
    };

    // Products, through the CSV import (a job per file, polled) or written in batches.
    const tag = uuidv7().slice(-8);
    const batched = options.setup === 'batched';
    const importStarted = performance.now();
    const written = batched ? await writeProducts(store.id, tag, options.products) : [];
    for (let first = 0; !batched && first < options.products; first += IMPORT_ROWS) {
      const count = Math.min(IMPORT_ROWS, options.products - first);
      const rows = ['external_ref,name,description,slug,status,commodity_type,sku'];
      for (let i = first; i < first + count; i += 1) {
        rows.push(
          `bench-${tag}-${i},Product ${i},Bench product ${i},bench-${tag}-${i},live,physical,SKU-${tag}-${i}`,
        );
      }
      const form = new FormData();
      form.append('file', Buffer.from(`${rows.join('\n')}\n`), {
        filename: 'products.csv',
        contentType: 'text/csv',
      });
      const created = await fetch(`${base}/pcm/products/import`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, ...form.getHeaders() },
        body: form.getBuffer(),
      });
      const answer = await created.text();
      if (created.status !== 201) throw new Error(`import: ${created.status} ${answer.slice(0, 300)}`);
      const job = (JSON.parse(answer) as { data: { id: string } }).data.id;
      progress(`importing products ${first + 1} to ${first + count} (job ${job})`);
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const status = (await call('GET', `/pcm/jobs/${job}`)).data.attributes.status;
        if (status === 'success') break;
        if (status === 'failed') throw new Error(`import job ${job} failed`);
      }
    }
    const importSeconds = (performance.now() - importStarted) / 1000;

    // A hierarchy of 10 nodes with 10 children each; products attached to the leaves, 25 a request.
    const hierarchy = (
      await call('POST', '/pcm/hierarchies', {
        data: { type: 'hierarchy', attributes: { name: `Bench ${tag}` } },
      })
    ).data.id as string;
    const leaves: string[] = [];
    for (let top = 0; top < 10; top += 1) {
      const parent = (
        await call('POST', `/pcm/hierarchies/${hierarchy}/nodes`, {
          data: { type: 'node', attributes: { name: `Node ${top}` } },
        })
      ).data.id as string;
      for (let child = 0; child < 10; child += 1) {
        const leaf = await call('POST', `/pcm/hierarchies/${hierarchy}/nodes`, {
          data: {
            type: 'node',
            attributes: { name: `Node ${top}.${child}` },
            relationships: { parent: { data: { type: 'node', id: parent } } },
          },
        });
        leaves.push(leaf.data.id as string);
      }
    }
    const products: { id: string; sku: string }[] = batched
      ? written
      : (await productRepository.all(store.id)).map((p) => ({ id: p.id, sku: p.attributes.sku as string }));
    const attachStarted = performance.now();
    const batches: { node: string; ids: string[] }[] = [];
    for (let start = 0; start < products.length; start += ATTACH_BATCH) {
      const node = leaves[Math.floor(start / ATTACH_BATCH) % leaves.length] as string;
      batches.push({ node, ids: products.slice(start, start + ATTACH_BATCH).map((p) => p.id) });
    }
    progress(`attaching ${products.length} products to 100 nodes (${batches.length} requests)`);
    if (batched) await writeAttachments(store.id, hierarchy, batches);
    else {
      await each(batches, SETUP_CONCURRENCY, async ({ node, ids }) => {
        await call('POST', `/pcm/hierarchies/${hierarchy}/nodes/${node}/relationships/products`, {
          data: ids.map((id) => ({ type: 'product', id })),
        });
      });
    }
    const attachSeconds = (performance.now() - attachStarted) / 1000;

    // A price per sku, written as the price routes write them.
    const book = (
      await call('POST', '/pcm/pricebooks', {
        data: { type: 'pricebook', attributes: { name: `Bench ${tag}` } },
      })
    ).data.id as string;
    const pricesStarted = performance.now();
    progress(`pricing ${products.length} skus`);
    const at = new Date().toISOString();
    const records: PriceRecord[] = products.map((product, i) => ({
      id: uuidv7(),
      sku: product.sku,
      currencies: { USD: { amount: 1000 + (`Product ${i}`.length % 100), includes_tax: false } },
      created_at: at,
      updated_at: at,
    }));
    if (batched) {
      await each(chunks(records, PRICES_A_BATCH), SETUP_CONCURRENCY, (chunk) =>
        batchWriteItems(
          'products',
          chunk.flatMap((price) =>
            newPriceItems(store.id, book, price).map((Item) => ({ PutRequest: { Item } })),
          ),
        ),
      );
    } else {
      await each(records, SETUP_CONCURRENCY * 2, (price) =>
        priceRepository.createPrice(store.id, book, price),
      );
    }
    const prices = records.map(({ id, sku }) => ({ id, sku }));
    const pricesSeconds = (performance.now() - pricesStarted) / 1000;

    const catalog = (
      await call('POST', '/pcm/catalogs', {
        data: {
          type: 'catalog',
          attributes: { name: `Bench ${tag}`, hierarchy_ids: [hierarchy], pricebook_id: book },
        },
      })
    ).data.id as string;
    return {
      api,
      storeId: store.id,
      catalog,
      book,
      prices,
      products: products.length,
      productIds: products.map((product) => product.id),
      call,
      base,
      token,
      setup: {
        import_s: round(importSeconds, 1),
        attach_s: round(attachSeconds, 1),
        prices_s: round(pricesSeconds, 1),
      },
    };
  } catch (error) {
    await stopProcess(api);
    throw error;
  }
}

/** Products (of 3 items each) a batch of 25 items takes, and prices (of 2). */
const PRODUCTS_A_BATCH = 8;
const PRICES_A_BATCH = 12;

const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/** N live products as the CSV import makes them, written in batches; their ids and skus in creation order. */
async function writeProducts(storeId: string, tag: string, count: number) {
  const at = new Date().toISOString();
  const products: ProductRecord[] = [];
  for (let i = 0; i < count; i += 1) {
    products.push({
      id: uuidv7(),
      attributes: ordered({
        external_ref: `bench-${tag}-${i}`,
        name: `Product ${i}`,
        description: `Bench product ${i}`,
        slug: `bench-${tag}-${i}`,
        status: 'live',
        commodity_type: 'physical',
        sku: `SKU-${tag}-${i}`,
      }),
      created_at: at,
      updated_at: at,
      version: 1,
    });
  }
  progress(`writing ${count} products in batches`);
  await each(chunks(products, PRODUCTS_A_BATCH), SETUP_CONCURRENCY, (chunk) =>
    batchWriteItems(
      'products',
      chunk.flatMap((product) => newProductItems(storeId, product).map((Item) => ({ PutRequest: { Item } }))),
    ),
  );
  return products.map((product) => ({ id: product.id, sku: product.attributes.sku as string }));
}

/**
 * The attachments the attach requests would make (a node's products in the order of `batches`, their seqs
 * ascending), written in batches, then each node's count and latest seq.
 */
async function writeAttachments(
  storeId: string,
  hierarchy: string,
  batches: { node: string; ids: string[] }[],
) {
  const byNode = new Map<string, string[]>();
  for (const { node, ids } of batches) {
    const list = byNode.get(node) ?? [];
    list.push(...ids);
    byNode.set(node, list);
  }
  for (const [nodeId, ids] of byNode) {
    const node = await nodeRepository.get(storeId, hierarchy, nodeId);
    if (node === undefined) throw new Error(`node ${nodeId} not found`);
    const seqs: string[] = [];
    for (const _ of ids) seqs.push(uuidv7After(seqs.at(-1) ?? node.attach_seq));
    const items = ids.flatMap((id, i) => attachmentItems(storeId, node, id, seqs[i] as string));
    await each(chunks(items, 25), SETUP_CONCURRENCY, (chunk) =>
      batchWriteItems(
        'products',
        chunk.map((Item) => ({ PutRequest: { Item } })),
      ),
    );
    await nodeRepository.attachedInBulk(storeId, node, ids.length, seqs.at(-1) as string);
  }
}

/** Phases of one release, seconds from its creation, as its `percent_completed` showed them. */
export interface ReleaseTimes {
  release: string;
  exported_s: number;
  validated_s: number;
  planned_s: number;
  derived_s: number;
  published_s: number;
  /** Polls answered 503 (made again). */
  unavailable_polls: number;
  meta: Record<string, unknown>;
}

/** Creates a release of the catalog and polls it every 250 ms until it ends; throws unless PUBLISHED. */
export async function publishAndWait(bench: AuthoredBench, body?: unknown): Promise<ReleaseTimes> {
  const started = performance.now();
  const release = (await bench.call('POST', `/pcm/catalogs/${bench.catalog}/releases`, body)).data
    .id as string;
  const seen: Record<string, number> = {};
  let meta: Record<string, unknown> = {};
  let unavailable = 0;
  let inRow = 0;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    try {
      meta = (await bench.call('GET', `/pcm/catalogs/${bench.catalog}/releases/${release}`)).data.meta;
      inRow = 0;
    } catch (error) {
      // 503 says "retry": a poll the local API could not answer in time (DynamoDB Local busy with the
      // publish's own reads and writes) is counted and made again, as a client would.
      if (!(error instanceof ApiError) || error.status !== 503 || inRow >= UNAVAILABLE_POLLS) throw error;
      unavailable += 1;
      inRow += 1;
      continue;
    }
    const at = (performance.now() - started) / 1000;
    const percent = meta.percent_completed as number;
    if (percent >= 5) seen.exported ??= at;
    if (percent >= 10) seen.validated ??= at;
    if (percent >= 12) seen.planned ??= at;
    if (percent >= 20) seen.derived ??= at;
    if (meta.release_status === 'PUBLISHED' || meta.release_status === 'FAILED') {
      seen.published = at;
      break;
    }
  }
  if (meta.release_status !== 'PUBLISHED') {
    throw new Error(`the release ended ${String(meta.release_status)}: ${JSON.stringify(meta.errors)}`);
  }
  const published = seen.published as number;
  return {
    release,
    exported_s: round(seen.exported ?? published, 1),
    validated_s: round(seen.validated ?? published, 1),
    planned_s: round(seen.planned ?? published, 1),
    derived_s: round(seen.derived ?? published, 1),
    published_s: round(published, 1),
    unavailable_polls: unavailable,
    meta,
  };
}

export async function measureAuthoredPublish(options: {
  products: number;
  setup?: SetupMode;
}): Promise<AuthoredFigures> {
  const bench = await setupAuthoredCatalog(options);
  try {
    progress(`publishing the authored catalog of ${bench.products} products`);
    const times = await publishAndWait(bench);
    return {
      products: bench.products,
      ...bench.setup,
      exported_s: times.exported_s,
      validated_s: times.validated_s,
      planned_s: times.planned_s,
      derived_s: times.derived_s,
      published_s: times.published_s,
      items: times.meta.total_products as number,
      api_heap_mb: API_HEAP_MB,
      peak_rss_mb: { api: peakRssMb(bench.api.pid) },
    };
  } finally {
    await stopProcess(bench.api);
  }
}

export function describeAuthored(f: AuthoredFigures): string {
  return `authored publish: ${f.products.toLocaleString('en-US')} products (imported in ${f.import_s} s, attached in ${f.attach_s} s, priced in ${f.prices_s} s); release: exported ${f.exported_s} s, validated ${f.validated_s} s, planned ${f.planned_s} s, derived ${f.derived_s} s, published ${f.published_s} s; ${f.items} products in the release; API process peak RSS ${f.peak_rss_mb.api} MB (heap limit ${f.api_heap_mb} MB)\n`;
}

runAsScript(
  import.meta.url,
  (args) =>
    measureAuthoredPublish({ products: intOption(args, '--products', 100_000), setup: setupOption(args) }),
  describeAuthored,
);
