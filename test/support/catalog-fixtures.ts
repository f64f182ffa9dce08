import { handler } from '../../functions/list-child-products/handler';
import { RELEASE_SHARDS } from '../../lib/catalog/release-settings';
import { resetConfig } from '../../lib/config/index';
import { catalogKeys } from '../../lib/store/catalog-repository';
import { getDocumentClient } from '../../lib/store/client';
import { QueryCommand } from '../../lib/store/dynamodb';
import { tableName } from '../../lib/store/schema';
import {
  bearer,
  createTestStore,
  type InvokeResult,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  tokenFor,
} from './fixtures';

/** Items stored under a release's own partitions (`REL#<release>#<shard>`), counted strongly consistent. */
export async function itemsOfRelease(releaseId: string): Promise<number> {
  let count = 0;
  for (let shard = 0; shard < RELEASE_SHARDS; shard += 1) {
    const page = await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName('products'),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': catalogKeys.shardPartition(releaseId, shard) },
        Select: 'COUNT',
        ConsistentRead: true,
      }),
    );
    count += page.Count ?? 0;
  }
  return count;
}

/** A new store and the headers of its admin's JSON requests to https://api.example.test. */
export async function adminOfNewStore(): Promise<{ storeId: string; headers: Record<string, string> }> {
  const store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  const headers = bearer(await tokenFor(store), {
    host: 'api.example.test',
    'x-forwarded-proto': 'https',
    'content-type': 'application/json',
  });
  return { storeId: store.store.id, headers };
}

/** For a test file whose readers must see every switch or rule write at once: no registry caching in it. */
export function readRegistryEveryRequest(): void {
  beforeAll(() => {
    process.env.RELEASE_CACHE_SECONDS = '0';
    resetConfig();
  });
  afterAll(() => {
    delete process.env.RELEASE_CACHE_SECONDS;
    resetConfig();
  });
}

/** A readable fixed UUID: `id(1)` is `00000000-0000-4000-8000-000000000001`. */
export const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export const PARENT = id(1);
export const DRAFT_PARENT = id(2);
export const STANDALONE = id(3);
export const EMPTY_PARENT = id(4);
export const ROOT_NODE = id(900);
export const LEAF_NODE = id(901);
/** Live children of PARENT in publish order: id(101) .. id(112). */
/** The members of a product in a release document, for tests that replace one of them. */
export const PRODUCT_FIELDS = [
  'id',
  'attributes',
  'node_ids',
  'files',
  'main_image',
  'variations',
  'variation_options',
  'sale',
] as const;

export const LIVE_CHILDREN = Array.from({ length: 12 }, (_, i) => id(101 + i));
export const COLORS = ['red', 'blue', 'green'] as const;

/** The filterable attributes of live child i (1-based), as the release document gives them. */
export function childAttributes(i: number) {
  return {
    name: `Child ${i}`,
    sku: `CH-${i}`,
    slug: `child-${i}`,
    manufacturer_part_num: `MPN-${i % 3}`,
    upc_ean: `40000000000${String(i).padStart(2, '0')}`,
    tags: [COLORS[i % 3] as string, i % 2 ? 'Odd' : 'Even'],
    // Newest first in publish order, so `in(id,...)` (oldest updated first) reverses it.
    updated_at: `2024-01-${String(30 - i).padStart(2, '0')}T00:00:00Z`,
  };
}

/**
 * A release with: PARENT (12 live children, 3 drafts interleaved, one child with a price modifier and a
 * French name), DRAFT_PARENT (draft, with live children), STANDALONE (not a base product) and EMPTY_PARENT
 * (only a draft child). `namePrefix` marks every child name, to tell releases apart.
 */
export function childrenRelease(
  options: { namePrefix?: string; catalogName?: string; rules?: unknown[]; catalogId?: string } = {},
) {
  const prefix = options.namePrefix ?? '';
  const products: Record<string, unknown>[] = [
    {
      id: PARENT,
      attributes: {
        name: 'Parent',
        description: 'The parent',
        sku: 'PARENT',
        status: 'live',
        commodity_type: 'physical',
        price: { USD: { amount: 1000, includes_tax: false } },
      },
      node_ids: [LEAF_NODE],
    },
  ];
  const draft = (n: number, parent: string, extra: Record<string, unknown> = {}) => ({
    id: id(n),
    attributes: {
      name: `${prefix}Draft ${n}`,
      sku: `CH-DRAFT-${n}`,
      status: 'draft',
      base_product_id: parent,
      tags: ['red'],
      ...extra,
    },
  });
  LIVE_CHILDREN.forEach((childId, index) => {
    const i = index + 1;
    const attributes: Record<string, unknown> = {
      ...childAttributes(i),
      name: `${prefix}Child ${i}`,
      status: 'live',
      base_product_id: PARENT,
    };
    if (i === 1) attributes.locales = { 'fr-FR': { name: `${prefix}Enfant 1` } };
    if (i === 3) attributes.price_modifiers = ['plus'];
    products.push({ id: childId, attributes });
    if (i === 2 || i === 6) products.push(draft(200 + i, PARENT, { name: 'Child 1' }));
  });
  products.push(draft(213, PARENT));
  products.push(
    {
      id: DRAFT_PARENT,
      attributes: { name: 'Draft parent', sku: 'DP', status: 'draft', commodity_type: 'physical' },
    },
    {
      id: id(301),
      attributes: { name: 'DP child', sku: 'DP-1', status: 'live', base_product_id: DRAFT_PARENT },
    },
    {
      id: STANDALONE,
      attributes: { name: 'Standalone', sku: 'SOLO', status: 'live', commodity_type: 'digital' },
    },
    {
      id: EMPTY_PARENT,
      attributes: { name: 'Empty', sku: 'EMPTY', status: 'live', commodity_type: 'physical' },
    },
    draft(401, EMPTY_PARENT),
  );
  return {
    catalog: {
      ...(options.catalogId ? { id: options.catalogId } : {}),
      name: options.catalogName ?? 'Children',
    },
    rules: options.rules ?? [],
    nodes: [
      { id: ROOT_NODE, name: 'Root', parent_id: null },
      { id: LEAF_NODE, name: 'Leaf', parent_id: ROOT_NODE },
    ],
    price_modifiers: {
      plus: { modifier_type: 'price_increment', currencies: { USD: { amount: 250, includes_tax: false } } },
    },
    products,
  };
}

/** GET the children of a product through the handler, in-process. */
export function listChildren(
  token: string | undefined,
  productId: string,
  query = '',
  headers: Record<string, string> = { 'svc-channel': 'web' },
): Promise<InvokeResult> {
  return invoke(handler, {
    method: 'GET',
    path: `/catalog/products/${productId}/relationships/children${query === '' ? '' : `?${query}`}`,
    routeKey: 'GET /catalog/products/{product_id}/relationships/children',
    pathParameters: { product_id: productId },
    headers: token === undefined ? headers : bearer(token, headers),
  });
}

/**
 * What catalog/sample-release.json holds, as the publisher counts it (14 products; 79 items written: the
 * products, 8 files, 2 child-index chunks, the product indexes of the 11 live products (a summary, one
 * index chunk, 33 lookups), 8 node items and 12 node id lists: the release's hierarchies and nodes, 4
 * nodes' children, 2 hierarchies' descendants, 4 nodes' products).
 */
export const SAMPLE_COUNTS = {
  total: 14,
  live: 11,
  draft: 3,
  parents: 2,
  children: 9,
  live_children: 7,
  standard: 2,
  bundles: 1,
};
