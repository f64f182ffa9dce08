import { inflateRawSync } from 'node:zlib';
import { resolveNodePaths } from './breadcrumbs';
import { deflateJson } from './deflated-json';
import { slugFromName } from './derive';
import type { CatalogNode, ReleaseDocument } from './types';

/**
 * Node ids per list item: a page of up to 100 starting at any offset (at most 10,000) touches at most two
 * items, and 1,000 ids deflate to ~30 KB, far below DynamoDB's item limit.
 */
export const NODE_LIST_CHUNK = 1000;

/**
 * The release-wide entry of the node lists: its `children` are the hierarchies (the nodes without parent)
 * and its `descendants` every node, both in document order. Not a UUID, so no node can have this id.
 */
export const RELEASE_NODES = '*';

/**
 * The id lists a release keeps per node, in document order: `children` (direct children), `descendants`
 * (every node below a hierarchy; kept for hierarchies and RELEASE_NODES only), `products` (the live
 * products that name the node in their own `node_ids`) and `hierarchy_products` (hierarchies only: the
 * live products that name any node of the hierarchy, the hierarchy itself included, each once).
 */
export type NodeListKind = 'children' | 'descendants' | 'products' | 'hierarchy_products';

/** An id list of products: a node's `products` or a hierarchy's `hierarchy_products`. */
export interface ProductListRef {
  owner: string;
  kind: 'products' | 'hierarchy_products';
}

/**
 * The product lists a live product is in, given where each node sits (`rootOf`: a node's hierarchy): each
 * of its nodes' `products`, then each of their hierarchies' `hierarchy_products`, once each. The
 * whole-document and the streamed derivations both place products with it.
 */
export function productListsOf(
  nodeIds: readonly string[],
  rootOf: (nodeId: string) => string | undefined,
): ProductListRef[] {
  const nodes = [...new Set(nodeIds)];
  const roots = new Set<string>();
  for (const nodeId of nodes) {
    const root = rootOf(nodeId);
    if (root !== undefined) roots.add(root);
  }
  return [
    ...nodes.map((owner): ProductListRef => ({ owner, kind: 'products' })),
    ...[...roots].map((owner): ProductListRef => ({ owner, kind: 'hierarchy_products' })),
  ];
}

/** Each node's hierarchy (the first id of its path), by node id. */
export function hierarchyOf(paths: ReadonlyMap<string, readonly string[]>): Map<string, string> {
  const roots = new Map<string, string>();
  for (const [id, path] of paths) roots.set(id, path[0] ?? id);
  return roots;
}

/** A node as a release stores it: rendered once at publish, with the lengths of its id lists. */
export interface StoredNode {
  /** The node resource as JSON text (absent for RELEASE_NODES). */
  node?: string;
  /** The hierarchy resource as JSON text (nodes without parent only). */
  hierarchy?: string;
  /** The `filter=in(id,...)` order: oldest first, ties by id. */
  updated_at: string;
  /** Where the node sits (filters on a node's lists check it); absent for RELEASE_NODES. */
  parent_id?: string | null;
  hierarchy_id?: string;
  children: number;
  descendants: number;
  products: number;
  /** Hierarchies only: the length of their `hierarchy_products`. */
  hierarchy_products?: number;
}

export interface NodeList {
  owner: string;
  kind: NodeListKind;
  /** Chunk number: ids at positions chunk*NODE_LIST_CHUNK onwards. */
  chunk: number;
  ids: string[];
}

export interface HierarchyItems {
  /** Every node by id, plus RELEASE_NODES. */
  nodes: Map<string, StoredNode>;
  lists: NodeList[];
}

export const nodePath = (id: string) => `/catalog/nodes/${id}`;
export const hierarchyPath = (id: string) => `/catalog/hierarchies/${id}`;

/** One id list as stored: a JSON array, deflated. */
export function encodeIdList(ids: readonly string[]): Uint8Array {
  return deflateJson(ids);
}

export function decodeIdList(bytes: Uint8Array): string[] {
  return JSON.parse(inflateRawSync(bytes).toString('utf8')) as string[];
}

function chunked(owner: string, kind: NodeListKind, ids: string[], into: NodeList[]): number {
  for (let start = 0, chunk = 0; start < ids.length; start += NODE_LIST_CHUNK, chunk += 1) {
    into.push({ owner, kind, chunk, ids: ids.slice(start, start + NODE_LIST_CHUNK) });
  }
  return ids.length;
}

function attributes(node: CatalogNode, publishedAt: string) {
  return {
    name: node.name,
    description: node.description ?? '',
    slug: node.slug ?? slugFromName(node.name, node.id),
    created_at: node.created_at ?? publishedAt,
    updated_at: node.updated_at ?? publishedAt,
    published_at: publishedAt,
  };
}

/**
 * The node resource of the platform's shopper catalog: attributes, links to its children and products,
 * its parent and hierarchy (below a hierarchy), and `meta.bread_crumb` (the ids of its ancestors from the
 * hierarchy down to its parent).
 */
export function renderNode(
  node: CatalogNode,
  context: { path: string[]; hasChildren: boolean; catalogId: string; publishedAt: string },
): Record<string, unknown> {
  const rootId = context.path[0] ?? node.id;
  const relationships: Record<string, unknown> = {
    children: { links: { related: `${nodePath(node.id)}/relationships/children` } },
    products: { links: { related: `${nodePath(node.id)}/relationships/products` } },
  };
  if (node.parent_id !== null) {
    relationships.parent = {
      data: { type: 'node', id: node.parent_id },
      links: { related: nodePath(node.parent_id) },
    };
    relationships.hierarchy = {
      data: { type: 'hierarchy', id: rootId },
      links: { related: hierarchyPath(rootId) },
    };
  }
  return {
    id: node.id,
    type: 'node',
    attributes: attributes(node, context.publishedAt),
    relationships,
    meta: {
      bread_crumb: context.path.slice(0, -1),
      has_children: context.hasChildren,
      hierarchy_id: rootId,
      catalog_id: context.catalogId,
    },
  };
}

/** The hierarchy resource of the platform's shopper catalog for a node without parent. */
export function renderHierarchy(
  node: CatalogNode,
  context: { hasChildren: boolean; catalogId: string; publishedAt: string },
): Record<string, unknown> {
  return {
    id: node.id,
    type: 'hierarchy',
    attributes: attributes(node, context.publishedAt),
    relationships: {
      children: { links: { related: `${hierarchyPath(node.id)}/children` } },
      nodes: { links: { related: `${hierarchyPath(node.id)}/nodes` } },
    },
    meta: { has_children: context.hasChildren, catalog_id: context.catalogId },
  };
}

/**
 * What the node and hierarchy reads need, built once at publish from a validated document: every node
 * rendered, and per node the ids of its children, of its live products and (hierarchies) of all its
 * nodes and of all their live products, chunked so that any page is one or two small items whatever the
 * catalog's size.
 */
export function buildHierarchyItems(
  document: Pick<ReleaseDocument, 'nodes' | 'products'>,
  context: { catalogId: string; publishedAt: string },
): HierarchyItems {
  const { paths } = resolveNodePaths(document.nodes);
  const children = new Map<string, string[]>();
  const descendants = new Map<string, string[]>();
  const products = new Map<string, string[]>();
  const hierarchyProducts = new Map<string, string[]>();
  const roots: string[] = [];
  for (const node of document.nodes) {
    if (node.parent_id === null) roots.push(node.id);
    else {
      const siblings = children.get(node.parent_id) ?? [];
      siblings.push(node.id);
      children.set(node.parent_id, siblings);
      const rootId = paths.get(node.id)?.[0] ?? node.id;
      const below = descendants.get(rootId) ?? [];
      below.push(node.id);
      descendants.set(rootId, below);
    }
  }
  const rootOf = hierarchyOf(paths);
  for (const product of document.products) {
    if (product.attributes.status !== 'live') continue;
    for (const { owner, kind } of productListsOf(product.node_ids, (id) => rootOf.get(id))) {
      const lists = kind === 'products' ? products : hierarchyProducts;
      const list = lists.get(owner) ?? [];
      list.push(product.id);
      lists.set(owner, list);
    }
  }
  const lists: NodeList[] = [];
  const nodes = new Map<string, StoredNode>();
  nodes.set(RELEASE_NODES, {
    updated_at: context.publishedAt,
    children: chunked(RELEASE_NODES, 'children', roots, lists),
    descendants: chunked(
      RELEASE_NODES,
      'descendants',
      document.nodes.map((node) => node.id),
      lists,
    ),
    products: 0,
  });
  for (const node of document.nodes) {
    const hasChildren = children.has(node.id);
    const rendered = renderNode(node, {
      path: paths.get(node.id) ?? [node.id],
      hasChildren,
      catalogId: context.catalogId,
      publishedAt: context.publishedAt,
    });
    const stored: StoredNode = {
      node: JSON.stringify(rendered),
      updated_at: node.updated_at ?? context.publishedAt,
      parent_id: node.parent_id,
      hierarchy_id: paths.get(node.id)?.[0] ?? node.id,
      children: chunked(node.id, 'children', children.get(node.id) ?? [], lists),
      descendants: chunked(node.id, 'descendants', descendants.get(node.id) ?? [], lists),
      products: chunked(node.id, 'products', products.get(node.id) ?? [], lists),
    };
    if (node.parent_id === null) {
      stored.hierarchy_products = chunked(
        node.id,
        'hierarchy_products',
        hierarchyProducts.get(node.id) ?? [],
        lists,
      );
      stored.hierarchy = JSON.stringify(
        renderHierarchy(node, {
          hasChildren,
          catalogId: context.catalogId,
          publishedAt: context.publishedAt,
        }),
      );
    }
    nodes.set(node.id, stored);
  }
  return { nodes, lists };
}
