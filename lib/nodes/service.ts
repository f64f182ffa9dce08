import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { hierarchyOf } from '../hierarchies/service';
import { ApiError, ConflictError, NotFoundError, WRITE_CONFLICT } from '../http/errors';
import { pathParameter } from '../http/request';
import { uuidv7, uuidv7After } from '../ids';
import { type PageRequest, pageLinks, pageMeta, pageUrl, parsePageRequest } from '../pagination/index';
import { assertCallerExists, type WriteCaller } from '../store/caller-check';
import type { Hierarchy } from '../store/hierarchy-repository';
import { backoff, startedEarly } from '../store/items';
import {
  type NodeLink,
  type NodeRecord,
  NodeWriteRefusedError,
  nodeRepository,
} from '../store/node-repository';
import { type ProductRecord, productRepository } from '../store/product-repository';
import { firstRoundRead } from '../store/transact-retrying';
import { parseHierarchyId } from '../validation/hierarchy';
import { checkNodeSize, type NewNode, type NodeUpdate, parseNodeId } from '../validation/node';
import { renderNode } from './render';

/**
 * The nodes of a hierarchy and the products attached to them (docs/hierarchies.md): sibling names and slugs
 * unique, at most MAX_LEVELS levels, no cycles, curated products attached, whatever runs concurrently.
 * Every write reads what it depends on, writes on condition that it did not change, and reads again when it
 * did (409 once it kept changing for ROUNDS rounds).
 */

/** Levels of a hierarchy, the hierarchy itself the first (the catalog's breadcrumbs show at most 10). */
export const MAX_LEVELS = 10;
const ROUNDS = 8;

const unprocessable = (detail: string, source?: string) =>
  new ApiError(422, detail, source === undefined ? {} : { source });
const taken = (field: 'name' | 'slug') =>
  new ConflictError(
    `data.attributes.${field}: Must be unique amongst the siblings of the node.`,
    `data.attributes.${field}`,
  );
/** A node the chain of a write read went away or changed meanwhile: read again. */
class ReadAgain extends Error {}

export async function nodeOf(storeId: string, hierarchyId: string, nodeId: string): Promise<NodeRecord> {
  const node = await nodeRepository.get(storeId, hierarchyId, nodeId);
  if (!node) throw new NotFoundError('node not found');
  return node;
}

/** The node and its ancestors, the node first; ReadAgain when one is missing (a delete under way). */
async function chainOf(storeId: string, hierarchyId: string, node: NodeRecord): Promise<NodeRecord[]> {
  const chain = [node];
  let parentId = node.parent_id;
  while (parentId !== null) {
    if (chain.length >= MAX_LEVELS || chain.some((link) => link.id === parentId)) throw new ReadAgain();
    const parent = await nodeRepository.get(storeId, hierarchyId, parentId);
    if (!parent) throw new ReadAgain();
    chain.push(parent);
    parentId = parent.parent_id;
  }
  return chain;
}

/** The chain of the parent a body names, 422 when it is not a node of the hierarchy. */
async function parentChain(
  storeId: string,
  hierarchyId: string,
  parentId: string | null,
  source: string,
): Promise<NodeRecord[]> {
  if (parentId === null) return [];
  const parent = await nodeRepository.get(storeId, hierarchyId, parentId);
  if (!parent) throw unprocessable(`${source}: no node ${parentId} in this hierarchy`, source);
  return chainOf(storeId, hierarchyId, parent);
}

/** The links (place and version) of every node of the hierarchy by id, from one consistent Query. */
async function hierarchyLinks(storeId: string, hierarchyId: string): Promise<Map<string, NodeLink>> {
  const links = new Map<string, NodeLink>();
  for await (const link of nodeRepository.linksOf(storeId, hierarchyId)) links.set(link.id, link);
  return links;
}

/** The node and its ancestors out of `nodes`, the node first; ReadAgain when one is missing or a loop. */
function chainIn(nodes: Map<string, NodeLink>, node: NodeLink): NodeLink[] {
  const chain = [node];
  for (let parentId = node.parent_id; parentId !== null; ) {
    const parent = nodes.get(parentId);
    if (!parent || chain.length >= MAX_LEVELS || chain.includes(parent)) throw new ReadAgain();
    chain.push(parent);
    parentId = parent.parent_id;
  }
  return chain;
}

/** Levels of the subtree below and including `nodeId` (1: a node without children). */
function subtreeLevels(nodes: Map<string, NodeLink>, nodeId: string): number {
  let levels = 1;
  for (const id of nodes.keys()) {
    let depth = 1;
    let at: string | null | undefined = id;
    while (at !== nodeId && at !== null && at !== undefined && depth <= MAX_LEVELS) {
      at = nodes.get(at)?.parent_id;
      depth += 1;
    }
    if (at === nodeId) levels = Math.max(levels, depth);
  }
  return levels;
}

/**
 * Runs `write` until it is not refused for something read changing: the hierarchy gone is 404, then
 * anything read that changed is read again, a taken name or slug is 409, and `refused` maps other reasons
 * to an error (undefined: read again).
 */
async function rounds<T>(
  write: () => Promise<T>,
  refused?: (reasons: string[]) => Error | undefined,
): Promise<T> {
  for (let round = 1; round <= ROUNDS; round += 1) {
    if (round > 1) await backoff(round);
    try {
      return await write();
    } catch (error) {
      if (error instanceof ReadAgain) continue;
      if (!(error instanceof NodeWriteRefusedError)) throw error;
      if (error.reasons.includes('hierarchy')) throw new NotFoundError('hierarchy not found');
      // Something read changed (the node deleted meanwhile, say): read again before judging a claim, which
      // is no answer for a node gone by then and may be held by a concurrent write of this very node.
      if (error.reasons.includes('changed')) continue;
      if (error.reasons.includes('name')) throw taken('name');
      if (error.reasons.includes('slug')) throw taken('slug');
      const mapped = refused?.(error.reasons);
      if (mapped) throw mapped;
    }
  }
  throw new ConflictError(WRITE_CONFLICT);
}

function checkLevels(ancestors: number, subtree: number): void {
  if (ancestors + subtree + 1 > MAX_LEVELS) {
    throw unprocessable(
      `a hierarchy may have at most ${MAX_LEVELS} levels (the hierarchy itself the first): this would make ${ancestors + subtree + 1}`,
    );
  }
}

/** 422 naming the curated products that are not attached to the node. */
async function checkCurated(storeId: string, node: NodeRecord, curated: string[]): Promise<void> {
  const attached = await nodeRepository.attachmentsOf(storeId, node, curated);
  const missing = curated.filter((id) => !attached.has(id));
  if (missing.length > 0) {
    throw unprocessable(
      `data.attributes.curated_products: not attached to the node: ${missing.join(', ')}`,
      'data.attributes.curated_products',
    );
  }
}

const curatedRefused = (reasons: string[]) => {
  const gone = reasons.filter((reason) => reason.startsWith('curated:')).map((reason) => reason.slice(8));
  return gone.length === 0
    ? undefined
    : unprocessable(
        `data.attributes.curated_products: not attached to the node: ${gone.join(', ')}`,
        'data.attributes.curated_products',
      );
};

export function createNode(
  storeId: string,
  hierarchy: Hierarchy,
  input: NewNode,
  caller: WriteCaller,
): Promise<NodeRecord> {
  const curated = input.attributes.curated_products ?? [];
  if (curated.length > 0) {
    throw unprocessable(
      `data.attributes.curated_products: not attached to the node: ${curated.join(', ')}`,
      'data.attributes.curated_products',
    );
  }
  return rounds(async () => {
    const ancestors = await parentChain(
      storeId,
      hierarchy.id,
      input.parentId ?? null,
      'data.relationships.parent.data.id',
    );
    checkLevels(ancestors.length, 1);
    const at = new Date().toISOString();
    const node: NodeRecord = {
      ...input.attributes,
      id: uuidv7(),
      hierarchy_id: hierarchy.id,
      description: input.attributes.description ?? '',
      curated_products: [],
      parent_id: input.parentId ?? null,
      sort_order: input.sortOrder ?? null,
      created_at: at,
      updated_at: at,
      version: 1,
      children: 0,
      products: 0,
    };
    await nodeRepository.create(storeId, node, ancestors, caller);
    return node;
  });
}

/** Applies the attributes (and sort order) sent to the node as it is now. */
export function updateNode(
  storeId: string,
  hierarchyId: string,
  nodeId: string,
  update: NodeUpdate,
  caller: WriteCaller,
  nodeRead?: NodeRecord,
): Promise<NodeRecord> {
  // The caller's read of the node, when it made one, serves the first round.
  const read = firstRoundRead(nodeRead, () => nodeOf(storeId, hierarchyId, nodeId));
  return rounds(async () => {
    const before = await read();
    const after: NodeRecord = {
      ...before,
      ...update.attributes,
      sort_order: update.sortOrder === undefined ? before.sort_order : update.sortOrder,
      updated_at: new Date().toISOString(),
      version: before.version + 1,
    };
    const { name, description, slug, locales, curated_products } = after;
    checkNodeSize({ name, description, slug, locales, curated_products });
    await checkCurated(storeId, before, curated_products);
    await nodeRepository.replace(storeId, before, after, [], undefined, caller);
    return after;
  }, curatedRefused);
}

/**
 * Moves the node (its subtree along) under `parentId` (null: top level), giving it `sortOrder` when one
 * is given: 422 for a parent not in the hierarchy, the node itself or below it, or past MAX_LEVELS.
 */
export function moveNode(
  storeId: string,
  hierarchyId: string,
  nodeId: string,
  parentId: string | null,
  sortOrder: number | undefined,
  caller: WriteCaller,
  source = 'data.id',
  linksRead?: Map<string, NodeLink>,
  nodeRead?: NodeRecord,
): Promise<NodeRecord> {
  // The caller's reads of the hierarchy's links and of the node, when it made them, serve the first round.
  const readLinks = firstRoundRead(linksRead, () => hierarchyLinks(storeId, hierarchyId));
  const readNode = firstRoundRead(nodeRead, () => nodeOf(storeId, hierarchyId, nodeId));
  return rounds(async () => {
    // The node, and the links of the hierarchy's nodes (one consistent Query) for the new parent's chain,
    // the subtree's height and the old parent, read at once: the transaction conditions on each version.
    const [before, nodes] = await Promise.all([readNode(), readLinks()]);
    const parent = parentId === null ? undefined : nodes.get(parentId);
    if (parentId !== null && !parent) {
      throw unprocessable(`${source}: no node ${parentId} in this hierarchy`, source);
    }
    const ancestors = parent ? chainIn(nodes, parent) : [];
    if (parentId === nodeId || ancestors.some((node) => node.id === nodeId)) {
      throw unprocessable(`${source}: a node cannot move under itself or one of its descendants`, source);
    }
    if (parentId !== before.parent_id) checkLevels(ancestors.length, subtreeLevels(nodes, nodeId));
    const oldParent =
      before.parent_id === null || before.parent_id === parentId ? undefined : nodes.get(before.parent_id);
    if (before.parent_id !== null && before.parent_id !== parentId && !oldParent) throw new ReadAgain();
    const after: NodeRecord = {
      ...before,
      parent_id: parentId,
      sort_order: sortOrder === undefined ? before.sort_order : sortOrder,
      updated_at: new Date().toISOString(),
      version: before.version + 1,
    };
    await nodeRepository.replace(storeId, before, after, ancestors, oldParent, caller);
    return after;
  });
}

/** Moves each child under the parent (in the order given, each its own write); the parent as it is then. */
export async function addChildren(
  storeId: string,
  hierarchyId: string,
  parentId: string,
  children: { id: string; sortOrder: number | undefined }[],
  caller: WriteCaller,
  linksRead?: Map<string, NodeLink>,
): Promise<NodeRecord> {
  // The parent (404 first) and the children, from the read of the hierarchy's links the first move uses
  // (the caller's, when it made one).
  const nodes = linksRead ?? (await hierarchyLinks(storeId, hierarchyId));
  if (!nodes.has(parentId)) throw new NotFoundError('node not found');
  const missing = children.findIndex((child) => !nodes.has(child.id));
  if (missing >= 0) {
    throw unprocessable(
      `data[${missing}].id: no node ${children[missing]?.id} in this hierarchy`,
      `data[${missing}].id`,
    );
  }
  for (const [index, child] of children.entries()) {
    const source = `data[${index}].id`;
    await moveNode(
      storeId,
      hierarchyId,
      child.id,
      parentId,
      child.sortOrder,
      caller,
      source,
      index === 0 ? nodes : undefined,
    );
  }
  return nodeOf(storeId, hierarchyId, parentId);
}

/** 422 naming the product ids that are no products of the store (or are being deleted). */
function checkProducts(productIds: string[], found: ProductRecord[]): void {
  const unknown = productIds.filter((id) => !found.some((product) => product.id === id && !product.deleting));
  if (unknown.length > 0) throw unprocessable(`data: no such products: ${unknown.join(', ')}`, 'data');
}

const productsRefused = (reasons: string[]) => {
  const gone = reasons.filter((reason) => reason.startsWith('product:')).map((reason) => reason.slice(8));
  return gone.length === 0 ? undefined : unprocessable(`data: no such products: ${gone.join(', ')}`, 'data');
};

/** The node as it is, 422 unless every id is a product of the store, and which of them it has attached. */
async function attachmentsRead(storeId: string, productIds: string[], readNode: () => Promise<NodeRecord>) {
  const node = await readNode();
  // After the node, whose attach_seq the write conditions on (an attach between the two reads changes it):
  // the products and the node's attachments of them, in one request.
  const { products, attached } = await nodeRepository.productsAndAttachments(storeId, node, productIds);
  checkProducts(productIds, products);
  return { node, attached };
}

export function attachProducts(
  storeId: string,
  hierarchyId: string,
  nodeId: string,
  productIds: string[],
  caller: WriteCaller,
  nodeRead?: NodeRecord,
): Promise<NodeRecord> {
  if (nodeId === hierarchyId)
    throw unprocessable('products cannot be attached to the hierarchy itself, only to its nodes');
  // The caller's read of the node, when it made one, serves the first round.
  const readNode = firstRoundRead(nodeRead, () => nodeOf(storeId, hierarchyId, nodeId));
  return rounds(async () => {
    const { node, attached } = await attachmentsRead(storeId, productIds, readNode);
    const added = productIds.filter((id) => !attached.has(id));
    if (added.length === 0) {
      await assertCallerExists(caller);
      return node;
    }
    // After the node's latest: the attach commits only while that is still its latest, so a node's
    // products list in the order their attaches committed.
    const seqs: string[] = [];
    for (const _ of added) seqs.push(uuidv7After(seqs.at(-1) ?? node.attach_seq));
    await nodeRepository.attach(storeId, node, added, seqs, caller, attached);
    return { ...node, products: node.products + added.length };
  }, productsRefused);
}

export function detachProducts(
  storeId: string,
  hierarchyId: string,
  nodeId: string,
  productIds: string[],
  caller: WriteCaller,
  nodeRead?: NodeRecord,
): Promise<NodeRecord> {
  const readNode = firstRoundRead(nodeRead, () => nodeOf(storeId, hierarchyId, nodeId));
  return rounds(async () => {
    const { node, attached } = await attachmentsRead(storeId, productIds, readNode);
    if (attached.size === 0) {
      await assertCallerExists(caller);
      return node;
    }
    const absent = [...new Set(productIds)].filter((id) => !attached.has(id));
    await nodeRepository.detach(storeId, node, attached, caller, true, absent);
    return {
      ...node,
      products: node.products - attached.size,
      curated_products: node.curated_products.filter((id) => !attached.has(id)),
    };
  });
}

/** A product's attachment, as listed for detaching it everywhere. */
export type ProductAttachment = Awaited<ReturnType<typeof nodeRepository.attachmentsOfProduct>>[number];

/**
 * Detaches a product from every node of `attachments` (a product being deleted: its attachments as read
 * once it was marked, so that no attach comes after them).
 */
export async function detachEverywhere(
  storeId: string,
  productId: string,
  attachments: ProductAttachment[],
  caller?: WriteCaller,
): Promise<void> {
  for (const attachment of attachments) {
    await rounds(async () => {
      const node = await nodeRepository.get(storeId, attachment.hierarchy_id, attachment.id);
      if (!node) return;
      const still = await nodeRepository.attachmentsOf(storeId, node, [productId]);
      if (still.size > 0) await nodeRepository.detach(storeId, node, still, caller);
    });
  }
}

/** A page of the node's products: its curated products first, in curated order, then the rest as attached. */
export async function nodeProductsPage(
  storeId: string,
  node: NodeRecord,
  page: PageRequest,
): Promise<{ products: ProductRecord[]; total: number }> {
  const curated = node.curated_products;
  const ids = curated.slice(page.offset, page.offset + page.limit);
  if (ids.length < page.limit) {
    const rest = await nodeRepository.attachedPage(storeId, node, curated, {
      offset: Math.max(0, page.offset - curated.length),
      limit: page.limit - ids.length,
    });
    ids.push(...rest);
  }
  const found = new Map(
    (await productRepository.getMany(storeId, ids)).map((product) => [product.id, product]),
  );
  const products = ids.map((id) => found.get(id)).filter((product): product is ProductRecord => !!product);
  return { products, total: node.products };
}

/** The name shown as each node's `meta.parent_name`: its parent's, or the hierarchy's for a top-level node. */
export async function parentNames(
  storeId: string,
  hierarchies: Map<string, Hierarchy>,
  nodes: NodeRecord[],
): Promise<Map<string, string>> {
  const refs = [
    ...new Map(
      nodes
        .filter((node) => node.parent_id !== null)
        .map((node) => [node.parent_id, { hierarchy_id: node.hierarchy_id, id: node.parent_id as string }]),
    ).values(),
  ];
  const parents = new Map(
    (await nodeRepository.getMany(storeId, refs)).map((parent) => [parent.id, parent.name]),
  );
  return new Map(
    nodes.map((node) => [
      node.id,
      (node.parent_id === null ? hierarchies.get(node.hierarchy_id)?.name : parents.get(node.parent_id)) ??
        '',
    ]),
  );
}

/**
 * The store, hierarchy and node (`''` on a route without one) of a node route's path: 404 when the hierarchy
 * is not the store's, or the node id no UUID.
 */
export async function nodeRoute(
  event: APIGatewayProxyEventV2 & { auth: { storeId: string } },
): Promise<{ storeId: string; hierarchy: Hierarchy; nodeId: string }> {
  const storeId = event.auth.storeId;
  const hierarchy = await hierarchyOf(storeId, parseHierarchyId(pathParameter(event, 'hierarchy_id')));
  const rawNodeId = event.pathParameters?.node_id;
  return { storeId, hierarchy, nodeId: rawNodeId === undefined ? '' : parseNodeId(rawNodeId) };
}

/**
 * The route's store, hierarchy and node (undefined when it is not there), both read in one request: 404
 * for the hierarchy first, as when the node's id is no id.
 */
export async function hierarchyAndNode(
  event: APIGatewayProxyEventV2 & { auth: { storeId: string } },
): Promise<{ storeId: string; hierarchy: Hierarchy; nodeId: string; node: NodeRecord | undefined }> {
  const storeId = event.auth.storeId;
  const hierarchyId = parseHierarchyId(pathParameter(event, 'hierarchy_id'));
  let nodeId: string;
  try {
    nodeId = parseNodeId(event.pathParameters?.node_id ?? '');
  } catch (error) {
    await hierarchyOf(storeId, hierarchyId);
    throw error;
  }
  const { hierarchy, node } = await nodeRepository.getWithHierarchy(storeId, hierarchyId, nodeId);
  if (!hierarchy || hierarchy.deleting) throw new NotFoundError('hierarchy not found');
  return { storeId, hierarchy, nodeId, node };
}

/**
 * The route's store, hierarchy and node (as `hierarchyAndNode`) and the links of the hierarchy's nodes,
 * read beside them: what a move's first round reads, in one round trip. The route's 404s come first; the
 * links of a hierarchy that is not there are dropped unused.
 */
export async function hierarchyNodeAndLinks(
  event: APIGatewayProxyEventV2 & { auth: { storeId: string } },
): Promise<{
  storeId: string;
  hierarchy: Hierarchy;
  nodeId: string;
  node: NodeRecord | undefined;
  links: Map<string, NodeLink> | undefined;
}> {
  const { beside, ...route } = await hierarchyAndNodeBeside(event, (hierarchyId) =>
    hierarchyLinks(event.auth.storeId, hierarchyId),
  );
  return { ...route, links: await beside };
}

/**
 * The route's store, hierarchy and node (as `hierarchyAndNode`) and `read` of the route's hierarchy,
 * started beside them (undefined when the route's ids do not parse: its 404 comes first). What `read`
 * answers is the caller's to await; a hierarchy that is not there drops it unread, and never unhandled.
 */
export async function hierarchyAndNodeBeside<T>(
  event: APIGatewayProxyEventV2 & { auth: { storeId: string } },
  read: (hierarchyId: string) => Promise<T>,
): Promise<{
  storeId: string;
  hierarchy: Hierarchy;
  nodeId: string;
  node: NodeRecord | undefined;
  beside: Promise<T> | undefined;
}> {
  const ids = routeIds(event);
  const beside = ids === undefined ? undefined : startedEarly(read(ids.hierarchyId));
  return { ...(await hierarchyAndNode(event)), beside };
}

/** The route's store, hierarchy and node, read in one request: 404 for the hierarchy, then the node. */
export async function nodeAtRoute(
  event: APIGatewayProxyEventV2 & { auth: { storeId: string } },
): Promise<{ storeId: string; hierarchy: Hierarchy; node: NodeRecord }> {
  const { storeId, hierarchy, node } = await hierarchyAndNode(event);
  if (!node) throw new NotFoundError('node not found');
  return { storeId, hierarchy, node };
}

/** A node list's page of the route's hierarchy or node, and the route's store, hierarchy (and node). */
type ListedRoute<R, T> = R & { page: PageRequest; slice: T };

/**
 * A node list's read started beside its route's checks (the hierarchy's and the node's reads, their 404s):
 * one round trip for both, not one after the other. The route's errors come first, the page parameters'
 * next, and what `read` answered for a hierarchy or node that is not there is dropped unused. `read` takes
 * the route's ids as parsed from the path.
 */
export async function listBesideRoute<R extends { hierarchy: Hierarchy; node?: NodeRecord }, T>(
  event: APIGatewayProxyEventV2,
  route: Promise<R>,
  read: (ids: { hierarchyId: string; nodeId: string | null }, page: PageRequest) => Promise<T>,
): Promise<ListedRoute<R, T>> {
  let page: PageRequest | undefined;
  let pageError: unknown;
  try {
    page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  } catch (error) {
    pageError = error;
  }
  const ids = routeIds(event);
  const early = ids === undefined || page === undefined ? undefined : startedEarly(read(ids, page));
  const routed = await route;
  if (page === undefined) throw pageError;
  const slice = await (early ??
    read({ hierarchyId: routed.hierarchy.id, nodeId: routed.node?.id ?? null }, page));
  return { ...routed, page, slice };
}

/** The route's hierarchy and node ids when they parse (undefined: the route's own reading refuses them). */
function routeIds(event: APIGatewayProxyEventV2): { hierarchyId: string; nodeId: string | null } | undefined {
  try {
    const hierarchyId = parseHierarchyId(pathParameter(event, 'hierarchy_id'));
    const rawNodeId = event.pathParameters?.node_id;
    return { hierarchyId, nodeId: rawNodeId === undefined ? null : parseNodeId(rawNodeId) };
  } catch {
    return undefined;
  }
}

/** Nodes as the platform renders them, each with its parent's name (`hierarchies`: theirs). */
export async function renderNodesOf(
  storeId: string,
  hierarchies: Hierarchy | Map<string, Hierarchy>,
  nodes: NodeRecord[],
): Promise<Record<string, unknown>[]> {
  const map = hierarchies instanceof Map ? hierarchies : new Map([[hierarchies.id, hierarchies]]);
  const names = await parentNames(storeId, map, nodes);
  return nodes.map((node) => renderNode(node, names.get(node.id) ?? ''));
}

/** A page of nodes in the platform's list shape: `data`, `links`, `meta.page` and `meta.results`. */
export async function renderNodePage(
  storeId: string,
  hierarchies: Hierarchy | Map<string, Hierarchy>,
  slice: { nodes: NodeRecord[]; total: number },
  page: PageRequest,
  base: string,
): Promise<Record<string, unknown>> {
  const { total } = slice;
  return {
    data: await renderNodesOf(storeId, hierarchies, slice.nodes),
    links: pageLinks(page, total, (offset, limit) => pageUrl(base, offset, limit)),
    meta: { page: pageMeta(page, total), results: { total } },
  };
}

/** One node's response body (`{data}`). */
export async function nodeDocument(
  storeId: string,
  hierarchy: Hierarchy,
  node: NodeRecord,
): Promise<{ data: Record<string, unknown> }> {
  const [data] = await renderNodesOf(storeId, hierarchy, [node]);
  return { data: data as Record<string, unknown> };
}

/** A page of a node's children (null: the hierarchy's top-level nodes) in sibling order. */
export async function childrenPage(
  storeId: string,
  hierarchyId: string,
  parentId: string | null,
  page: PageRequest,
): Promise<{ nodes: NodeRecord[]; total: number }> {
  const all = await nodeRepository.childrenOf(storeId, hierarchyId, parentId);
  return { nodes: all.slice(page.offset, page.offset + page.limit), total: all.length };
}

/** A page of the nodes a product is attached to, in any hierarchy, with those hierarchies. */
export async function productNodesPage(
  storeId: string,
  productId: string,
  page: PageRequest,
): Promise<{ nodes: NodeRecord[]; total: number; hierarchies: Map<string, Hierarchy> }> {
  const { refs, total } = await nodeRepository.nodesOfProduct(storeId, productId, page);
  // The nodes and their hierarchies (the refs name both), in one read.
  const read = await nodeRepository.getManyWithHierarchies(storeId, refs);
  const found = new Map(read.nodes.map((node) => [node.id, node]));
  const nodes = refs.map((ref) => found.get(ref.id)).filter((node): node is NodeRecord => !!node);
  const hierarchies = new Map(read.hierarchies.map((hierarchy) => [hierarchy.id, hierarchy]));
  return { nodes, total, hierarchies };
}
