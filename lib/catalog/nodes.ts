import type { FilterExpression, FilterGrammar } from '../filter/index';
import { parseFilter } from '../filter/index';
import { BadRequestError, ConflictError, NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import { countMetric, METRIC } from '../metrics/index';
import { type PageRequest, pageLinks, pageMeta, pageUrl } from '../pagination/index';
import { catalogRepository, type NodeListRef, nodeListId } from '../store/catalog-repository';
import { currentRegistry, nodeCache, nodeListCache, productCache } from './cache';
import { chunksForPage, HEAP_PER_SERIALIZED_CHAR } from './child-index';
import {
  decodeIdList,
  encodeIdList,
  type HierarchyItems,
  hierarchyPath,
  NODE_LIST_CHUNK,
  type NodeListKind,
  nodePath,
  RELEASE_NODES,
  type StoredNode,
} from './hierarchy-items';
import { type Include, includedJson, releaseFor } from './list-children';
import { productLocale, renderProductJson } from './render';
import type { ReleaseLayout, StoredProduct } from './types';

export const NODE_NOT_FOUND = 'node not found in the catalog';
export const HIERARCHY_NOT_FOUND = 'hierarchy not found in the catalog';

/** The release's items for the node and hierarchy reads (built by buildHierarchyItems), as table items. */
export function hierarchyReleaseItems(
  built: HierarchyItems,
  layout: ReleaseLayout,
): ReturnType<typeof catalogRepository.nodeItem>[] {
  const items: ReturnType<typeof catalogRepository.nodeItem>[] = [];
  for (const [id, stored] of built.nodes)
    items.push(catalogRepository.nodeItem(layout, id, JSON.stringify(stored)));
  for (const list of built.lists)
    items.push(catalogRepository.nodeListItem(layout, list, encodeIdList(list.ids)));
  return items;
}

/** What `filter` may name on `/catalog/nodes` and `/catalog/hierarchies`: node ids (`eq` or `in`). */
export const NODE_FILTER: FilterGrammar<'id'> = {
  attributes: new Map([['id', 'id']]),
  description: 'id',
  inOnly: new Set(),
  lowerCase: new Set(['id']),
};

/** Parses a node `filter` (absent: none). */
export function parseNodeFilter(text: string | undefined): FilterExpression<'id'>[] {
  return text === undefined ? [] : parseFilter(text, NODE_FILTER);
}

/** The shopper context a node read selects its release by, and what the product lists render with. */
export interface NodeReadContext {
  storeId: string;
  /** Undefined: the request sent none (only rules without channels can match). */
  channel: string | undefined;
  tag: string | undefined;
  now?: Date;
}

export interface NodePageResult {
  /** The page's resources as JSON text. */
  data: string[];
  total: number;
  included?: string;
}

const cacheKey = (layout: ReleaseLayout, id: string) => `${layout.id}|${id}`;
/** Heap of a cached id list: a 36-character id string and its array slot (measured ~60 bytes). */
const ID_WEIGHT = 64;

interface LoadedNodes {
  nodes: Map<string, StoredNode | null>;
  lists: Map<string, string[]>;
}

/**
 * Nodes (null when not in the release) and list chunks (absent ones left out), from the caches, reading
 * whatever is missing in one round trip and caching it.
 */
async function loadNodes(
  layout: ReleaseLayout,
  nodeIds: string[],
  lists: NodeListRef[],
  speculativeLists = false,
): Promise<LoadedNodes> {
  const loaded: LoadedNodes = { nodes: new Map(), lists: new Map() };
  const missingNodes: string[] = [];
  for (const id of new Set(nodeIds)) {
    const cached = nodeCache.get(cacheKey(layout, id));
    if (cached === undefined) missingNodes.push(id);
    else loaded.nodes.set(id, cached);
  }
  const missingLists: NodeListRef[] = [];
  for (const list of lists) {
    const cached = nodeListCache.get(cacheKey(layout, nodeListId(list)));
    if (cached === undefined) missingLists.push(list);
    else loaded.lists.set(nodeListId(list), cached);
  }
  const missing = missingNodes.length + missingLists.length;
  countMetric(METRIC.catalogCacheHits, loaded.nodes.size + loaded.lists.size);
  countMetric(METRIC.catalogCacheMisses, missing);
  if (missing === 0) return loaded;
  const read = await catalogRepository.readNodes(layout, {
    nodes: missingNodes,
    lists: missingLists,
    speculativeLists,
  });
  for (const id of missingNodes) {
    const json = read.nodes.get(id)?.json;
    const stored = json === undefined ? null : (JSON.parse(json) as StoredNode);
    loaded.nodes.set(id, stored);
    nodeCache.set(
      cacheKey(layout, id),
      stored,
      Math.ceil((json?.length ?? 0) * HEAP_PER_SERIALIZED_CHAR) + 100,
    );
  }
  for (const list of missingLists) {
    const bytes = read.lists.get(nodeListId(list));
    if (!bytes) continue;
    const ids = decodeIdList(bytes);
    loaded.lists.set(nodeListId(list), ids);
    nodeListCache.set(cacheKey(layout, nodeListId(list)), ids, ids.length * ID_WEIGHT + 100);
  }
  return loaded;
}

async function releaseOf(context: NodeReadContext): Promise<ReleaseLayout> {
  const now = context.now ?? new Date();
  const registry = await currentRegistry(context.storeId, now.getTime());
  return releaseFor(registry, { channel: context.channel, tag: context.tag, now });
}

/** A path id as stored (ids are lower case), or undefined when it cannot be a node's. */
function nodeIdOf(id: string): string | undefined {
  return isUuid(id) ? id.toLowerCase() : undefined;
}

const listRefs = (owner: string, kind: NodeListKind, chunks: number[]): NodeListRef[] =>
  chunks.map((chunk) => ({ owner, kind, chunk }));

/**
 * The ids at one page of an owner's list, with the list's length: the owner is read with the page's
 * chunks (their numbers depend only on the offset), and a chunk an eventually consistent read missed is
 * read again, strongly. `accept` says whether the owner is one this route serves (404 otherwise).
 */
async function listPage(
  layout: ReleaseLayout,
  owner: string,
  kind: NodeListKind,
  page: PageRequest,
  accept: (stored: StoredNode) => boolean,
  notFound: string,
): Promise<{ ids: string[]; total: number }> {
  const speculative = chunksForPage(page.offset, page.limit, Number.POSITIVE_INFINITY, NODE_LIST_CHUNK);
  const first = await loadNodes(layout, [owner], listRefs(owner, kind, speculative), true);
  const stored = first.nodes.get(owner);
  if (!stored || !accept(stored)) throw new NotFoundError(notFound);
  const total = stored[kind] ?? 0;
  const needed = chunksForPage(page.offset, page.limit, total, NODE_LIST_CHUNK);
  const missed = needed.filter((chunk) => !first.lists.has(nodeListId({ owner, kind, chunk })));
  if (missed.length > 0) {
    for (const [id, ids] of (await loadNodes(layout, [], listRefs(owner, kind, missed))).lists)
      first.lists.set(id, ids);
  }
  const ids: string[] = [];
  const end = Math.min(page.offset + page.limit, total);
  for (let position = page.offset; position < end; position += 1) {
    const chunk = Math.floor(position / NODE_LIST_CHUNK);
    const list = first.lists.get(nodeListId({ owner, kind, chunk }));
    const id = list?.[position - chunk * NODE_LIST_CHUNK];
    if (id === undefined)
      throw new Error(`release ${layout.id} lacks entry ${position} of ${owner}'s ${kind}`);
    ids.push(id);
  }
  return { ids, total };
}

/** The nodes' resources (`node` or `hierarchy` JSON), in the order given, read in one round trip at most. */
async function renderedNodes(
  layout: ReleaseLayout,
  ids: string[],
  as: 'node' | 'hierarchy',
): Promise<string[]> {
  const { nodes } = await loadNodes(layout, ids, []);
  return ids.map((id) => {
    const json = nodes.get(id)?.[as];
    if (json === undefined) throw new Error(`release ${layout.id} lists ${as} ${id} but lacks it`);
    return json;
  });
}

/** `in(id,...)` order: oldest `updated_at` first, ties by id. */
function oldestUpdateFirst(a: [string, StoredNode], b: [string, StoredNode]): number {
  if (a[1].updated_at !== b[1].updated_at) return a[1].updated_at < b[1].updated_at ? -1 : 1;
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/**
 * A filtered node list: the ids every expression names (a filter is an AND), read in one round trip,
 * those that are nodes of the release (hierarchies only when `as` is `hierarchy`), oldest `updated_at`
 * first (ties by id), then paginated.
 */
async function filteredPage(
  layout: ReleaseLayout,
  filter: FilterExpression<'id'>[],
  page: PageRequest,
  as: 'node' | 'hierarchy',
  belongs: (stored: StoredNode) => boolean = () => true,
): Promise<NodePageResult> {
  let named: Set<string> | undefined;
  for (const expression of filter) {
    const values = new Set(expression.values.map((value) => value.toLowerCase()));
    named = named === undefined ? values : new Set([...named].filter((id) => values.has(id)));
  }
  const candidates = [...(named ?? [])].filter(isUuid);
  const { nodes } = await loadNodes(layout, candidates, []);
  const found: [string, StoredNode][] = [];
  for (const id of candidates) {
    const stored = nodes.get(id);
    if (stored?.[as] !== undefined && belongs(stored)) found.push([id, stored]);
  }
  found.sort(oldestUpdateFirst);
  const shown = found.slice(page.offset, page.offset + page.limit);
  return { data: shown.map(([, stored]) => stored[as] as string), total: found.length };
}

/**
 * `GET /catalog/nodes`: every node of the selected release (hierarchies included) in document order, or,
 * with `filter=in(id,...)`, the named nodes in the order they were last updated.
 */
export async function listNodes(
  context: NodeReadContext,
  filter: FilterExpression<'id'>[],
  page: PageRequest,
): Promise<NodePageResult> {
  const layout = await releaseOf(context);
  if (filter.length > 0) return filteredPage(layout, filter, page, 'node');
  const { ids, total } = await listPage(
    layout,
    RELEASE_NODES,
    'descendants',
    page,
    () => true,
    NODE_NOT_FOUND,
  );
  return { data: await renderedNodes(layout, ids, 'node'), total };
}

/** `GET /catalog/hierarchies`: the release's nodes without parent, as hierarchies (filter as on nodes). */
export async function listHierarchies(
  context: NodeReadContext,
  filter: FilterExpression<'id'>[],
  page: PageRequest,
): Promise<NodePageResult> {
  const layout = await releaseOf(context);
  if (filter.length > 0) return filteredPage(layout, filter, page, 'hierarchy');
  const { ids, total } = await listPage(layout, RELEASE_NODES, 'children', page, () => true, NODE_NOT_FOUND);
  return { data: await renderedNodes(layout, ids, 'hierarchy'), total };
}

/** `GET /catalog/nodes/{id}` and `GET /catalog/hierarchies/{id}`: one node or hierarchy as JSON text. */
export async function getNode(
  context: NodeReadContext,
  id: string,
  as: 'node' | 'hierarchy',
): Promise<string> {
  const layout = await releaseOf(context);
  const notFound = as === 'node' ? NODE_NOT_FOUND : HIERARCHY_NOT_FOUND;
  const nodeId = nodeIdOf(id);
  if (nodeId === undefined) throw new NotFoundError(notFound);
  const { nodes } = await loadNodes(layout, [nodeId], []);
  const json = nodes.get(nodeId)?.[as];
  if (json === undefined) throw new NotFoundError(notFound);
  return json;
}

/**
 * A page of a node's or hierarchy's node list, rendered as nodes: a node's or hierarchy's direct
 * `children`, or a hierarchy's `descendants` (all its nodes). With `filter=in(id,...)`: those of the
 * named nodes that are in the list, in the order they were last updated.
 */
export async function listNodeList(
  context: NodeReadContext,
  id: string,
  kind: 'children' | 'descendants',
  of: 'node' | 'hierarchy',
  page: PageRequest,
  filter: FilterExpression<'id'>[] = [],
): Promise<NodePageResult> {
  const layout = await releaseOf(context);
  const notFound = of === 'node' ? NODE_NOT_FOUND : HIERARCHY_NOT_FOUND;
  const nodeId = nodeIdOf(id);
  if (nodeId === undefined) throw new NotFoundError(notFound);
  if (filter.length > 0) {
    const owner = (await loadNodes(layout, [nodeId], [])).nodes.get(nodeId);
    if (owner?.[of] === undefined) throw new NotFoundError(notFound);
    return filteredPage(layout, filter, page, 'node', (stored) =>
      kind === 'children'
        ? stored.parent_id === nodeId
        : stored.hierarchy_id === nodeId && stored.parent_id !== null,
    );
  }
  const { ids, total } = await listPage(
    layout,
    nodeId,
    kind,
    page,
    (stored) => stored[of] !== undefined,
    notFound,
  );
  return { data: await renderedNodes(layout, ids, 'node'), total };
}

export interface NodeProductsRequest extends NodeReadContext {
  defaultLocale: string;
  acceptLanguage: string | undefined;
  include?: ReadonlySet<Include>;
  currency?: string;
}

/** Products of the release by id (null when absent), from the product cache, the rest in one round trip. */
async function loadProducts(
  layout: ReleaseLayout,
  ids: string[],
): Promise<Map<string, StoredProduct | null>> {
  const found = new Map<string, StoredProduct | null>();
  const missing: string[] = [];
  for (const id of ids) {
    const cached = productCache.get(cacheKey(layout, id));
    if (cached === undefined) missing.push(id);
    else found.set(id, cached);
  }
  countMetric(METRIC.catalogCacheHits, ids.length - missing.length);
  countMetric(METRIC.catalogCacheMisses, missing.length);
  if (missing.length === 0) return found;
  const read = await catalogRepository.readRelease(layout, { products: missing, chunks: [] });
  for (const id of missing) {
    const entry = read.products.get(id);
    found.set(id, entry?.stored ?? null);
    productCache.set(
      cacheKey(layout, id),
      entry?.stored ?? null,
      Math.ceil((entry?.bytes ?? 0) * HEAP_PER_SERIALIZED_CHAR) + 100,
    );
  }
  return found;
}

export const HIERARCHY_PRODUCTS_MISSING =
  'the selected release was published before hierarchies listed their products: publish the catalog again';

/** A hierarchy of a release published before `hierarchy_products` were kept (lib/catalog/hierarchy-items.ts). */
function acceptHierarchyWithProducts(stored: StoredNode): boolean {
  if (stored.hierarchy === undefined) return false;
  if (stored.hierarchy_products === undefined) throw new ConflictError(HIERARCHY_PRODUCTS_MISSING);
  return true;
}

/**
 * A page of the live products of a node (`GET /catalog/nodes/{id}/relationships/products`: those that
 * name the node in their `node_ids`) or of a hierarchy (`GET /catalog/hierarchies/{id}/products`: those
 * that name any node of it, the hierarchy itself included, each once), in document order, rendered as the
 * child list renders products (locale, display currency, `include`). Two round trips: the node with the
 * page's list chunks, then the page's products (and what `include` names).
 */
export async function listNodeProducts(
  request: NodeProductsRequest,
  id: string,
  page: PageRequest,
  of: 'node' | 'hierarchy' = 'node',
): Promise<NodePageResult> {
  const layout = await releaseOf(request);
  const notFound = of === 'node' ? NODE_NOT_FOUND : HIERARCHY_NOT_FOUND;
  const nodeId = nodeIdOf(id);
  if (nodeId === undefined) throw new NotFoundError(notFound);
  const { ids, total } = await listPage(
    layout,
    nodeId,
    of === 'node' ? 'products' : 'hierarchy_products',
    page,
    of === 'node' ? (stored) => stored.node !== undefined : acceptHierarchyWithProducts,
    notFound,
  );
  const products = await loadProducts(layout, ids);
  const shown: StoredProduct[] = [];
  for (const productId of ids) {
    const stored = products.get(productId);
    if (!stored)
      throw new Error(`release ${layout.id} lacks product ${productId} listed under ${of} ${nodeId}`);
    if (stored.live) shown.push(stored);
  }
  const data = shown.map((stored) =>
    renderProductJson(
      stored,
      productLocale(stored, request.acceptLanguage, request.defaultLocale),
      request.currency,
    ),
  );
  if (request.include === undefined || request.include.size === 0) return { data, total };
  const included = await includedJson(layout, shown, request.include, {
    defaultLocale: request.defaultLocale,
    acceptLanguage: request.acceptLanguage,
    ...(request.currency === undefined ? {} : { currency: request.currency }),
  });
  return { data, total, included };
}

/** Rejects a `filter` on a route that takes none (rather than ignoring it). */
export function rejectFilter(text: string | undefined): void {
  if (text !== undefined) throw new BadRequestError('filter is not supported on this route', 'filter');
}

/**
 * A list's 200 body as JSON text: `data` (resources already serialized), `included` when asked for,
 * `meta.results.total`, `meta.page` and relative `links` keeping `filter` and `include`.
 */
export function nodePageJson(
  path: string,
  query: { filter?: string; include?: string },
  page: PageRequest,
  result: NodePageResult,
): string {
  const meta = { results: { total: result.total }, page: pageMeta(page, result.total) };
  const extra: Record<string, string> = {};
  if (query.filter !== undefined) extra.filter = query.filter;
  if (query.include !== undefined) extra.include = query.include;
  const links = pageLinks(page, result.total, (offset, limit) => pageUrl(path, offset, limit, extra), {
    nullLastWhenSinglePage: true,
  });
  const included = result.included === undefined ? '' : `,"included":${result.included}`;
  return `{"data":[${result.data.join(',')}]${included},"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`;
}

export { hierarchyPath, nodePath };
