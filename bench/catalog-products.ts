import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { clearAuthCache } from '../lib/auth/authenticate';
import { issueAccessToken } from '../lib/auth/issue-token';
import { clearCatalogCaches } from '../lib/catalog/cache';
import { generateRelease } from '../lib/catalog/generator';
import { releaseFor } from '../lib/catalog/list-children';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { catalogLookupRepository } from '../lib/store/catalog-lookup-repository';
import { catalogCapacity, catalogRepository } from '../lib/store/catalog-repository';
import { getDocumentClient } from '../lib/store/client';
import { tableName } from '../lib/store/schema';
import { storeRepository } from '../lib/store/store-repository';
import { createHttpEvent, createLambdaContext } from '../local/http-event';
import { loadHandler } from '../local/router';
import { publishRelease } from '../test/support/one-process-publisher';
import type { OperationBench } from './operations';
import { measure, progress, round } from './support';

/**
 * The storefront's product reads (`GET /catalog`, `GET /catalog/products/{id}`, `GET /catalog/products`):
 * each against the raw DynamoDB calls an uncached request needs (the operations table), the warm p50 of
 * one product, and `filter=eq(slug,…)` on a 100,000-product release against a 100-product one, cold
 * (every catalog cache emptied before each call) and warm, with the products-table round trips each
 * request made: the lookup makes them the same whatever the release's size; and every filter kind's first
 * page, cold, on the large release.
 */

const HOST = 'api.bench.local';

export interface ProductsSetup {
  storeId: string;
  token: string;
  productId: string;
  slug: string;
  products: number;
  /** Live products' filterable values the filters below name (names, SKUs, ids, UPC/EANs). */
  samples: { names: string[]; skus: string[]; ids: string[]; upcs: string[] };
  /** The generated release's hierarchy (its root node) and the leaf node under it. */
  rootNodeId: string;
  leafNodeId: string;
}

/** A store with a published generated release of about `products` products (children of 10 parents). */
export async function setUpProducts(products: number): Promise<ProductsSetup> {
  const store = await storeRepository.create({ name: `bench products ${products}`, rate_limit: 100_000 });
  const { key } = await applicationKeyRepository.create(store.id, { name: 'bench', reserved_rate_limit: 0 });
  const token = await issueAccessToken({ grant_type: 'implicit', client_id: key.client_id });
  const parents = products >= 1000 ? 10 : 1;
  const document = generateRelease({ children: Math.floor(products / parents), parents, seed: products });
  await publishRelease(store.id, document);
  const all = document.products as {
    id: string;
    attributes: { slug?: string; status: string; name: string; sku: string; upc_ean?: string };
  }[];
  // A product far into the release: a scan would have to read most of it to find it.
  const target = [...all]
    .reverse()
    .find((product) => product.attributes.slug && product.attributes.status === 'live');
  if (!target?.attributes.slug) throw new Error('the generated release has no live product with a slug');
  const nodes = document.nodes as { id: string; parent_id: string | null }[];
  const root = nodes.find((node) => node.parent_id === null);
  const leaf = nodes.find((node) => node.parent_id === root?.id);
  if (!root || !leaf) throw new Error('the generated release has no two-level hierarchy');
  // Spread over the release: the first, middle and last live products.
  const live = all.filter((product) => product.attributes.status === 'live' && product.attributes.upc_ean);
  const spread = [live[0], live[Math.floor(live.length / 2)], live[live.length - 1]].filter(
    (product) => product !== undefined,
  );
  return {
    samples: {
      names: spread.map((product) => product.attributes.name),
      skus: spread.map((product) => product.attributes.sku),
      ids: spread.map((product) => product.id),
      upcs: spread.map((product) => product.attributes.upc_ean as string),
    },
    rootNodeId: root.id,
    leafNodeId: leaf.id,
    storeId: store.id,
    token: token.access_token,
    productId: target.id,
    slug: target.attributes.slug,
    products: all.length,
  };
}

function event(
  setup: ProductsSetup,
  path: string,
  routeKey: string,
  pathParameters?: Record<string, string>,
) {
  return createHttpEvent({
    method: 'GET',
    path,
    routeKey,
    ...(pathParameters ? { pathParameters } : {}),
    headers: {
      authorization: `Bearer ${setup.token}`,
      'svc-channel': 'web',
      host: HOST,
      'user-agent': 'bench',
      'accept-language': 'en-US',
    },
  });
}

const catalogEvent = (s: ProductsSetup) => event(s, '/catalog', 'GET /catalog');
const productEvent = (s: ProductsSetup) =>
  event(s, `/catalog/products/${s.productId}`, 'GET /catalog/products/{product_id}', {
    product_id: s.productId,
  });
/** A GET of a node or hierarchy route with its one path parameter. */
const nodeEvent = (s: ProductsSetup, route: string, name: 'node_id' | 'hierarchy_id', id: string) =>
  event(s, route.replace(`{${name}}`, id), `GET ${route}`, { [name]: id });
/** The seed's breadcrumb building: `filter=in(id,…)` on the leaf and its hierarchy. */
const breadcrumbEvent = (s: ProductsSetup) =>
  event(
    s,
    `/catalog/nodes?filter=${encodeURIComponent(`in(id,${s.leafNodeId},${s.rootNodeId})`)}`,
    'GET /catalog/nodes',
  );
const slugEvent = (s: ProductsSetup) =>
  event(s, `/catalog/products?filter=${encodeURIComponent(`eq(slug,${s.slug})`)}`, 'GET /catalog/products');

async function layoutOf(storeId: string) {
  const registry = await catalogRepository.getRegistry(storeId);
  return releaseFor(registry, { channel: 'web', tag: undefined, now: new Date() });
}

export interface SlugLookupFigures {
  products: number;
  cold_p50_ms: number;
  warm_p50_ms: number;
  /** Products-table requests (GetItem, BatchGetItem calls) of one cold request. */
  cold_round_trips: number;
  warm_round_trips: number;
}

export interface CatalogProductsFigures {
  /** Warm in-process `GET /catalog/products/{id}`. */
  product_warm_p50_ms: number;
  product_warm_p99_ms: number;
  slug_100: SlugLookupFigures;
  slug_100k: SlugLookupFigures;
  /** Each filter kind's first page, cold, on the large release (target p50 <= 100 ms). */
  filters_100k?: ReleaseFilterFigures;
}

export interface ReleaseFilterFigures {
  products: number;
  rows: {
    filter: string;
    total: number;
    cold_p50_ms: number;
    cold_p99_ms: number;
    /** Products-table requests (GetItem, BatchGetItem calls) of one cold request. */
    cold_round_trips: number;
    read_units: number;
  }[];
}

/** The first page's target, cold, for every filter of the grammar on a 100,000-product release. */
export const FILTERED_FIRST_PAGE_MS_MAX = 100;

/** The filters timed: each operator on each attribute, an AND, and the lookups for comparison. */
export function releaseFilters(setup: ProductsSetup): string[] {
  const { names, skus, ids, upcs } = setup.samples;
  const quote = (value: string) => `"${value}"`;
  return [
    'eq(tags,generated)',
    'eq(tags,red)',
    'in(tags,red,xl)',
    `eq(name,${quote(names[1] as string)})`,
    `in(name,${names.map(quote).join(',')})`,
    'eq(manufacturer_part_num,MPN-7)',
    'in(mpn,MPN-1,MPN-49)',
    `eq(upc_ean,${upcs[2]})`,
    `in(upc_ean,${upcs.join(',')})`,
    'eq(product_types,parent)',
    'in(product_types,standard,parent)',
    'eq(tags,red):eq(product_types,child):in(mpn,MPN-3,MPN-13)',
    `eq(sku,${skus[1]})`,
    `eq(slug,${setup.slug})`,
    `in(id,${ids.join(',')})`,
  ];
}

/**
 * `GET /catalog/products?filter=…&page[limit]=25` for every filter of `releaseFilters`, each from a cold
 * container (catalog and token caches emptied before each request), in-process: p50, p99, round trips and
 * read units of one request.
 */
export async function releaseFilterFigures(
  setup: ProductsSetup,
  iterations: number,
): Promise<ReleaseFilterFigures> {
  const handler = await loadHandler('list-catalog-products');
  const context = createLambdaContext('list-catalog-products');
  const rows: ReleaseFilterFigures['rows'] = [];
  for (const filter of releaseFilters(setup)) {
    let total = -1;
    const call = async () => {
      clearCatalogCaches();
      clearAuthCache();
      const result = (await handler(
        event(
          setup,
          `/catalog/products?filter=${encodeURIComponent(filter)}&page[limit]=25`,
          'GET /catalog/products',
        ),
        context,
      )) as { statusCode: number; body: string };
      const body = JSON.parse(result.body) as { data: unknown[]; meta: { results: { total: number } } };
      if (result.statusCode !== 200 || (body.meta.results.total > 0 && body.data.length === 0))
        throw new Error(`${filter} answered ${result.statusCode}: ${result.body.slice(0, 200)}`);
      total = body.meta.results.total;
    };
    const timing = await measure(call, iterations, 2);
    const cold_round_trips = await countRoundTrips(call);
    catalogCapacity.reset();
    await call();
    rows.push({
      filter,
      total,
      cold_p50_ms: round(timing.p50_ms, 1),
      cold_p99_ms: round(timing.p99_ms, 1),
      cold_round_trips,
      read_units: round(catalogCapacity.read, 1),
    });
  }
  return { products: setup.products, rows };
}

export interface CatalogProductsBench {
  /** Each read against the raw DynamoDB calls an uncached request makes. */
  operations: OperationBench[];
  /** A request per function for the cold-start stage. */
  coldStartEvents: Record<string, { status: number; event: () => APIGatewayProxyEventV2 }>;
  figures(iterations: number): Promise<CatalogProductsFigures>;
}

/** Counts the products-table requests made while `fn` runs. */
async function countRoundTrips(fn: () => Promise<unknown>): Promise<number> {
  const client = getDocumentClient();
  const table = tableName('products');
  const original = client.send.bind(client);
  let count = 0;
  (client as { send: unknown }).send = (
    command: { input?: { TableName?: string; RequestItems?: object } },
    ...rest: unknown[]
  ) => {
    const input = command.input ?? {};
    if (input.TableName === table || (input.RequestItems !== undefined && table in input.RequestItems))
      count += 1;
    return (original as (...args: unknown[]) => unknown)(command, ...rest);
  };
  try {
    await fn();
  } finally {
    (client as { send: unknown }).send = original;
  }
  return count;
}

async function slugFigures(setup: ProductsSetup, iterations: number): Promise<SlugLookupFigures> {
  const handler = await loadHandler('list-catalog-products');
  const context = createLambdaContext('list-catalog-products');
  const call = async () => {
    const result = (await handler(slugEvent(setup), context)) as { statusCode: number; body: string };
    const body = JSON.parse(result.body) as { data: { id: string }[] };
    if (result.statusCode !== 200 || body.data[0]?.id !== setup.productId) {
      throw new Error(`eq(slug) answered ${result.statusCode}: ${result.body.slice(0, 200)}`);
    }
  };
  await call(); // the token check and the handler's modules are warm from here on
  clearCatalogCaches();
  const cold_round_trips = await countRoundTrips(call);
  const warm_round_trips = await countRoundTrips(call);
  const cold = await measure(
    async () => {
      clearCatalogCaches();
      await call();
    },
    iterations,
    5,
  );
  const warm = await measure(call, iterations * 5);
  return {
    products: setup.products,
    cold_p50_ms: cold.p50_ms,
    warm_p50_ms: warm.p50_ms,
    cold_round_trips,
    warm_round_trips,
  };
}

/**
 * Publishes the releases: the operations' (100 products) and the large one (`largeProducts`, 100,000 by
 * default), whose publish dominates the stage's time.
 */
export async function setUpCatalogProductsBench(largeProducts = 100_000): Promise<CatalogProductsBench> {
  const small = await setUpProducts(100);
  return {
    coldStartEvents: {
      'get-catalog': { status: 200, event: () => catalogEvent(small) },
      'get-catalog-product': { status: 200, event: () => productEvent(small) },
      'list-catalog-products': { status: 200, event: () => slugEvent(small) },
      'list-nodes': { status: 200, event: () => breadcrumbEvent(small) },

      'get-node': {
        status: 200,
        event: () => nodeEvent(small, '/catalog/nodes/{node_id}', 'node_id', small.leafNodeId),
      },
      'list-node-children': {
        status: 200,
        event: () =>
          nodeEvent(small, '/catalog/nodes/{node_id}/relationships/children', 'node_id', small.rootNodeId),
      },
      'list-node-products': {
        status: 200,
        event: () =>
          nodeEvent(small, '/catalog/nodes/{node_id}/relationships/products', 'node_id', small.leafNodeId),
      },
      'list-hierarchies': {
        status: 200,
        event: () => event(small, '/catalog/hierarchies', 'GET /catalog/hierarchies'),
      },
      'get-hierarchy': {
        status: 200,
        event: () =>
          nodeEvent(small, '/catalog/hierarchies/{hierarchy_id}', 'hierarchy_id', small.rootNodeId),
      },
      'list-hierarchy-children': {
        status: 200,
        event: () =>
          nodeEvent(small, '/catalog/hierarchies/{hierarchy_id}/children', 'hierarchy_id', small.rootNodeId),
      },
      'list-hierarchy-nodes': {
        status: 200,
        event: () =>
          nodeEvent(small, '/catalog/hierarchies/{hierarchy_id}/nodes', 'hierarchy_id', small.rootNodeId),
      },
      'list-hierarchy-products': {
        status: 200,
        event: () =>
          nodeEvent(small, '/catalog/hierarchies/{hierarchy_id}/products', 'hierarchy_id', small.rootNodeId),
      },
    },
    operations: [
      {
        function: 'get-catalog',
        expectStatus: 200,
        event: () => catalogEvent(small),
        // The registry, then the release's summary.
        raw: async () => {
          const layout = await layoutOf(small.storeId);
          await catalogLookupRepository.read(layout, { summary: true });
        },
      },
      {
        function: 'get-catalog-product',
        expectStatus: 200,
        event: () => productEvent(small),
        // The registry, then the product.
        raw: async () => {
          const layout = await layoutOf(small.storeId);
          await catalogRepository.readRelease(layout, { products: [small.productId], chunks: [] });
        },
      },
      {
        function: 'list-catalog-products',
        expectStatus: 200,
        event: () => slugEvent(small),
        // The registry, the slug's lookup, the page's product.
        raw: async () => {
          const layout = await layoutOf(small.storeId);
          await catalogLookupRepository.read(layout, { lookups: [{ attribute: 'slug', value: small.slug }] });
          await catalogRepository.readRelease(layout, { products: [small.productId], chunks: [] });
        },
      },
      {
        function: 'get-node',
        expectStatus: 200,
        event: () => nodeEvent(small, '/catalog/nodes/{node_id}', 'node_id', small.leafNodeId),
        // The registry, then the node.
        raw: async () => {
          const layout = await layoutOf(small.storeId);
          await catalogRepository.readNodes(layout, { nodes: [small.leafNodeId], lists: [] });
        },
      },
      {
        function: 'list-nodes',
        expectStatus: 200,
        event: () => breadcrumbEvent(small),
        // The registry, then the two nodes the filter names.
        raw: async () => {
          const layout = await layoutOf(small.storeId);
          await catalogRepository.readNodes(layout, {
            nodes: [small.leafNodeId, small.rootNodeId],
            lists: [],
          });
        },
      },
    ],
    async figures(iterations) {
      const handler = await loadHandler('get-catalog-product');
      const context = createLambdaContext('get-catalog-product');
      const product = await measure(async () => {
        const result = (await handler(productEvent(small), context)) as { statusCode: number };
        if (result.statusCode !== 200) throw new Error(`get-catalog-product answered ${result.statusCode}`);
      }, iterations * 5);
      const slug_100 = await slugFigures(small, iterations);
      progress(`publishing a ${largeProducts.toLocaleString('en-US')}-product release for eq(slug,…)`);
      const large = await setUpProducts(largeProducts);
      const slug_100k = await slugFigures(large, iterations);
      const filters_100k = await releaseFilterFigures(large, iterations);
      return {
        product_warm_p50_ms: round(product.p50_ms, 3),
        product_warm_p99_ms: round(product.p99_ms, 3),
        slug_100,
        slug_100k,
        filters_100k,
      };
    },
  };
}
