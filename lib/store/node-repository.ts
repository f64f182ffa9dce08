import { createHash } from 'node:crypto';
import type { NodeAttributes } from '../validation/node';
import { transactAsCaller, type WriteCaller } from './caller-check';
import { getDocumentClient } from './client';
import { QueryCommand, type TransactWriteCommand, UpdateCommand } from './dynamodb';
import { type Hierarchy, hierarchyKeys, toHierarchy } from './hierarchy-repository';
import { backoff, batchGetItems, countItems, getRecord, type PagedQuery, queryAll, queryPage } from './items';
import { SK_PREFIX_CONDITION, skPrefix } from './key-prefix';
import { type ProductRecord, productKeys, toRecord as toProduct } from './product-repository';
import { tableName } from './schema';

/**
 * The nodes of the merchants' hierarchies and the products attached to them (`/pcm/hierarchies/{id}/nodes…`,
 * docs/hierarchies.md), in the products table, in the store's partition (`pk = STORE#<store>`) beside its
 * hierarchies and products:
 *
 * - `NODE#<hierarchy>#<node>`: a node (`kind: "node"`): name, description, slug, locales,
 *   `curated_products`, `parent_id` (absent for a top-level node, a child of the hierarchy itself),
 *   `sort_order` (absent when none), `created_at`, `updated_at`, a `version` every change of its attributes,
 *   sort order or parent moves, and two counters that move without it: `children` (nodes whose parent it
 *   is) and `products` (products attached), and `attach_seq`, the `seq` of its latest attachment. A
 *   hierarchy's nodes are one range in id (creation) order.
 * - `NODEPROD#<hierarchy>#<node>#<seq>`: a product attached to the node (`product_id`); `seq` is a UUID v7
 *   taken at the attach and after the node's `attach_seq`, which the attach conditions on and moves: so
 *   attaches commit in `seq` order whatever runs concurrently, a node's range is its products in attach
 *   order and a hierarchy's range is every attachment, by node, in attach order.
 * - `PRODNODE#<product>#<hierarchy>#<node>`: the same attachment seen from the product (`seq` names its
 *   `NODEPROD` item): whether a product is attached to a node is one read, a product's nodes one range.
 * - `PNNAME#<store>#<hierarchy>#<parent or ROOT>#<sha256 of the name in lower case>` / `CLAIM` and
 *   `PNSLUG#…` likewise: the node (`node_id`) holding a name or slug among its siblings. Each claim is a
 *   partition of its own, taken and freed in the transaction that creates, renames, moves or deletes the
 *   node, so two siblings never share a name or slug whatever runs concurrently.
 *
 * Trees stay trees under any concurrency: a write that depends on where a node sits (a create under it, a
 * move under it) conditions on the version of every ancestor it read (at most 8: a hierarchy is at most 10
 * levels, itself the first), and a move changes the moved node's version. So a move of A under B and one of
 * B under A cannot both commit (each conditions on the version the other changes), and no create or move
 * lands in a subtree that moved meanwhile (the depth it checked still holds). A node is deleted only with
 * `children = 0 AND products = 0` (a subtree goes leaves first), so no delete leaves an orphan behind, and
 * an attach conditions on the node existing and on the product existing without a delete mark.
 *
 * Costs: a create or move is one transaction of the node, its claims (up to four), its ancestors and the
 * caller's checks (at most 20 items); an attach of n products 3n + 1 items, a detach 2n + 1 (at most 25
 * products a request). The whole-hierarchy reads (`nodesOf`, `attachedProductsOf`) are Queries of one range
 * each, one DynamoDB page (1 MB) in memory at a time. A children list reads the hierarchy's node range with
 * a filter on `parent_id` (read units grow with the hierarchy's nodes, only the children are transferred)
 * and sorts the siblings in memory.
 */
export interface NodeRecord {
  id: string;
  hierarchy_id: string;
  name: string;
  description: string;
  slug?: string;
  locales?: NodeAttributes['locales'];
  curated_products: string[];
  /** null: a top-level node (a child of the hierarchy itself). */
  parent_id: string | null;
  sort_order: number | null;
  created_at: string;
  updated_at: string;
  version: number;
  /** Nodes whose parent it is. */
  children: number;
  /** Products attached. */
  products: number;
  /** The `seq` of the latest attachment (absent before the first): the next ones sort after it. */
  attach_seq?: string;
}

/** One product attached to one node of a hierarchy. */
export interface NodeAttachment {
  node_id: string;
  product_id: string;
}

/**
 * A write refused by a condition: `reasons` says which (`changed`: a node read changed or went; `name`,
 * `slug`: a sibling holds it; `hierarchy`: the hierarchy is gone or being deleted; `busy`: the node still
 * has children or products; `attached`: a product is attached meanwhile; `product:<id>`: that product is
 * gone or being deleted).
 */
export class NodeWriteRefusedError extends Error {
  override name = 'NodeWriteRefusedError';
  constructor(readonly reasons: string[]) {
    super(`the node write was refused (${reasons.join(', ')})`);
  }
}

const NODE = 'NODE#';
const NODEPROD = 'NODEPROD#';
const PRODNODE = 'PRODNODE#';
const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const table = () => tableName('products');
const storePk = (storeId: string) => `STORE#${storeId}`;

export const nodeKeys = {
  node: (storeId: string, hierarchyId: string, nodeId: string) => ({
    pk: storePk(storeId),
    sk: `${NODE}${hierarchyId}#${nodeId}`,
  }),
  nodePrefix: (hierarchyId: string) => `${NODE}${hierarchyId}#`,
  attached: (storeId: string, hierarchyId: string, nodeId: string, seq: string) => ({
    pk: storePk(storeId),
    sk: `${NODEPROD}${hierarchyId}#${nodeId}#${seq}`,
  }),
  attachedPrefix: (hierarchyId: string, nodeId?: string) =>
    `${NODEPROD}${hierarchyId}#${nodeId === undefined ? '' : `${nodeId}#`}`,
  productNode: (storeId: string, productId: string, hierarchyId: string, nodeId: string) => ({
    pk: storePk(storeId),
    sk: `${PRODNODE}${productId}#${hierarchyId}#${nodeId}`,
  }),
  productNodePrefix: (productId: string) => `${PRODNODE}${productId}#`,
  name: (storeId: string, hierarchyId: string, parentId: string | null, name: string) => ({
    pk: `PNNAME#${storeId}#${hierarchyId}#${parentId ?? 'ROOT'}#${hash(name.toLowerCase())}`,
    sk: 'CLAIM',
  }),
  slug: (storeId: string, hierarchyId: string, parentId: string | null, slug: string) => ({
    pk: `PNSLUG#${storeId}#${hierarchyId}#${parentId ?? 'ROOT'}#${hash(slug.toLowerCase())}`,
    sk: 'CLAIM',
  }),
};

type TransactItems = NonNullable<TransactWriteCommand['input']['TransactItems']>;
type TransactItem = TransactItems[number];
/** Transaction items, each with the reason its condition failing means. */
type Tagged = { item: TransactItem; reason: string }[];

const ATTEMPTS = 8;

/** A node's place in its tree and its version: what a move reads of the other nodes and conditions on. */
export type NodeLink = Pick<NodeRecord, 'id' | 'hierarchy_id' | 'parent_id' | 'version'>;

function toNode(item: Record<string, unknown>): NodeRecord {
  const { pk: _pk, sk: _sk, kind: _kind, ...rest } = item;
  const node = rest as unknown as NodeRecord & { parent_id?: string; sort_order?: number };
  return {
    ...node,
    parent_id: node.parent_id ?? null,
    sort_order: node.sort_order ?? null,
    curated_products: node.curated_products ?? [],
    children: node.children ?? 0,
    products: node.products ?? 0,
  };
}

/** The node as an item: `parent_id` and `sort_order` absent rather than null. */
function nodeItem(storeId: string, node: NodeRecord): Record<string, unknown> {
  const { parent_id, sort_order, ...rest } = node;
  return {
    ...nodeKeys.node(storeId, node.hierarchy_id, node.id),
    kind: 'node',
    ...rest,
    ...(parent_id === null ? {} : { parent_id }),
    ...(sort_order === null ? {} : { sort_order }),
  };
}

/** Runs the transaction, retrying while it only lost to concurrent transactions. */
async function transact(tagged: Tagged, caller: WriteCaller | undefined): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const codes = await transactAsCaller(
      tagged.map(({ item }) => item),
      caller,
    );
    if (codes === undefined) return;
    const reasons = tagged
      .filter((_, index) => codes[index] === 'ConditionalCheckFailed')
      .map((t) => t.reason);
    if (reasons.length > 0) throw new NodeWriteRefusedError([...new Set(reasons)]);
    const conflictOnly = codes.every((code) => code === 'None' || code === 'TransactionConflict');
    if (!conflictOnly || attempt >= ATTEMPTS)
      throw new Error(`the node could not be written (${codes.join(', ')})`);
    await backoff(attempt);
  }
}

function claimPut(key: { pk: string; sk: string }, nodeId: string, reason: string) {
  return {
    item: {
      Put: {
        TableName: table(),
        Item: { ...key, node_id: nodeId },
        ConditionExpression: 'attribute_not_exists(pk) OR node_id = :id',
        ExpressionAttributeValues: { ':id': nodeId },
      },
    },
    reason,
  };
}

function claimDelete(key: { pk: string; sk: string }, nodeId: string) {
  return {
    item: {
      Delete: {
        TableName: table(),
        Key: key,
        ConditionExpression: 'node_id = :id',
        ExpressionAttributeValues: { ':id': nodeId },
      },
    },
    reason: 'changed',
  };
}

const sameText = (a: string | undefined, b: string | undefined) => a?.toLowerCase() === b?.toLowerCase();

/** The claim moves from `before` to `after` (either may be undefined: a create, a delete). */
function claimChanges(
  storeId: string,
  before: NodeRecord | undefined,
  after: NodeRecord | undefined,
): Tagged {
  const tagged: Tagged = [];
  const field = (name: 'name' | 'slug') => {
    const was = before?.[name];
    const now = after?.[name];
    const moved = before?.parent_id !== after?.parent_id;
    if (before !== undefined && after !== undefined && !moved && sameText(was, now)) return;
    const key = (node: NodeRecord, text: string) =>
      nodeKeys[name](storeId, node.hierarchy_id, node.parent_id, text);
    if (before !== undefined && was !== undefined) tagged.push(claimDelete(key(before, was), before.id));
    if (after !== undefined && now !== undefined) tagged.push(claimPut(key(after, now), after.id, name));
  };
  field('name');
  field('slug');
  return tagged;
}

/**
 * The ancestors a write depends on, each conditioned on the version read; `delta` moves the `children`
 * counter of some (the old and the new parent of a move) in the same item.
 */
function ancestorItems(storeId: string, nodes: NodeLink[], delta: Map<string, number>): Tagged {
  const seen = new Map<string, NodeLink>();
  for (const node of nodes) seen.set(node.id, node);
  return [...seen.values()].map((node) => {
    const key = nodeKeys.node(storeId, node.hierarchy_id, node.id);
    const change = delta.get(node.id) ?? 0;
    const condition = {
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': node.version } as Record<string, unknown>,
    };
    if (change === 0)
      return { item: { ConditionCheck: { TableName: table(), Key: key, ...condition } }, reason: 'changed' };
    condition.ExpressionAttributeValues[':delta'] = change;
    return {
      item: {
        Update: { TableName: table(), Key: key, UpdateExpression: 'ADD children :delta', ...condition },
      },
      reason: 'changed',
    };
  });
}

function hierarchyCheck(storeId: string, hierarchyId: string) {
  return {
    item: {
      ConditionCheck: {
        TableName: table(),
        Key: hierarchyKeys.hierarchy(storeId, hierarchyId),
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleting)',
      },
    },
    reason: 'hierarchy',
  };
}

/** Sets the node's own fields (never its counters) to `after`'s, on condition it is still `before`'s version. */
function nodeUpdate(storeId: string, before: NodeRecord, after: NodeRecord) {
  const values: Record<string, unknown> = { ':old': before.version };
  const names: Record<string, string> = {};
  const set: string[] = [];
  const remove: string[] = [];
  const fields = [
    'name',
    'description',
    'slug',
    'locales',
    'curated_products',
    'parent_id',
    'sort_order',
  ] as const;
  for (const field of [...fields, 'updated_at', 'version'] as const) {
    const value = after[field];
    names[`#${field}`] = field;
    if (value === undefined || value === null) remove.push(`#${field}`);
    else {
      set.push(`#${field} = :${field}`);
      values[`:${field}`] = value;
    }
  }
  return {
    item: {
      Update: {
        TableName: table(),
        Key: nodeKeys.node(storeId, before.hierarchy_id, before.id),
        UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ConditionExpression: '#version = :old',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    reason: 'changed',
  };
}

/** A product's attachment: checks it exists, unmarked, and is not attached to the node yet. */
function attachItems(storeId: string, node: NodeRecord, productId: string, seq: string): Tagged {
  return [
    {
      item: {
        Put: {
          TableName: table(),
          Item: {
            ...nodeKeys.productNode(storeId, productId, node.hierarchy_id, node.id),
            hierarchy_id: node.hierarchy_id,
            node_id: node.id,
            seq,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      reason: 'attached',
    },
    {
      item: {
        Put: {
          TableName: table(),
          Item: {
            ...nodeKeys.attached(storeId, node.hierarchy_id, node.id, seq),
            node_id: node.id,
            product_id: productId,
          },
        },
      },
      reason: 'changed',
    },
    {
      item: {
        ConditionCheck: {
          TableName: table(),
          Key: productKeys.product(storeId, productId),
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleting)',
        },
      },
      reason: `product:${productId}`,
    },
  ];
}

/** The node's count of products moved by `count` and its latest seq set to `last`, as long as it is the one read. */
function attachedCount(storeId: string, node: NodeRecord, count: number, last: string | undefined) {
  return {
    TableName: table(),
    Key: nodeKeys.node(storeId, node.hierarchy_id, node.id),
    UpdateExpression: 'ADD products :count SET attach_seq = :last',
    ConditionExpression:
      node.attach_seq === undefined
        ? 'attribute_exists(pk) AND attribute_not_exists(attach_seq)'
        : 'attach_seq = :read',
    ExpressionAttributeValues: {
      ':count': count,
      ':last': last,
      ...(node.attach_seq === undefined ? {} : { ':read': node.attach_seq }),
    },
  };
}

/**
 * The items `attach` puts for one product, without the conditions and the product's check: for loading a
 * store known not to have these attachments in batches (the `delta` bench's million products); the node's
 * count and latest seq are then moved by `attachedInBulk`.
 */
export function attachmentItems(
  storeId: string,
  node: NodeRecord,
  productId: string,
  seq: string,
): Record<string, unknown>[] {
  return attachItems(storeId, node, productId, seq).flatMap(({ item }) =>
    item.Put?.Item === undefined ? [] : [item.Put.Item as Record<string, unknown>],
  );
}

function detachItems(
  storeId: string,
  node: { hierarchy_id: string; id: string },
  productId: string,
  seq: string,
): Tagged {
  return [
    {
      item: {
        Delete: {
          TableName: table(),
          Key: nodeKeys.productNode(storeId, productId, node.hierarchy_id, node.id),
          ConditionExpression: 'seq = :seq',
          ExpressionAttributeValues: { ':seq': seq },
        },
      },
      reason: 'changed',
    },
    {
      item: {
        Delete: { TableName: table(), Key: nodeKeys.attached(storeId, node.hierarchy_id, node.id, seq) },
      },
      reason: 'changed',
    },
  ];
}

const rangeQuery = (storeId: string, prefix: string, extra: Partial<PagedQuery> = {}): PagedQuery => ({
  TableName: table(),
  KeyConditionExpression: SK_PREFIX_CONDITION,
  ...extra,
  ExpressionAttributeValues: {
    ':pk': storePk(storeId),
    ...skPrefix(prefix),
    ...extra.ExpressionAttributeValues,
  },
  ConsistentRead: true,
});

/** Every item of a Query, one DynamoDB page in memory at a time. */
async function* queryItems(query: PagedQuery): AsyncIterable<Record<string, unknown>> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await getDocumentClient().send(
      new QueryCommand({ ...query, ExclusiveStartKey: startKey }),
    );
    yield* result.Items ?? [];
    startKey = result.LastEvaluatedKey;
  } while (startKey);
}

/** The children filter of a parent (null: the hierarchy's top-level nodes). */
function childrenFilter(parentId: string | null): Partial<PagedQuery> {
  return parentId === null
    ? { FilterExpression: 'attribute_not_exists(parent_id)' }
    : { FilterExpression: 'parent_id = :parent', ExpressionAttributeValues: { ':parent': parentId } };
}

/** Siblings in the platform's order: `sort_order` highest first, then those without, last updated first. */
export function bySiblingOrder(a: NodeRecord, b: NodeRecord): number {
  if (a.sort_order !== null && b.sort_order !== null && a.sort_order !== b.sort_order)
    return b.sort_order - a.sort_order;
  if (a.sort_order !== null && b.sort_order === null) return -1;
  if (a.sort_order === null && b.sort_order !== null) return 1;
  if (a.updated_at !== b.updated_at) return a.updated_at < b.updated_at ? 1 : -1;
  return a.id < b.id ? -1 : 1;
}

export const nodeRepository = {
  /** The node (strongly consistent), or undefined. */
  async get(storeId: string, hierarchyId: string, nodeId: string): Promise<NodeRecord | undefined> {
    const item = await getRecord<Record<string, unknown>>(
      'products',
      nodeKeys.node(storeId, hierarchyId, nodeId),
      true,
    );
    return item ? toNode(item) : undefined;
  },

  /** The hierarchy and one of its nodes (strongly consistent), each undefined when absent: one request. */
  async getWithHierarchy(
    storeId: string,
    hierarchyId: string,
    nodeId: string,
  ): Promise<{ hierarchy?: Hierarchy; node?: NodeRecord }> {
    const { nodes, hierarchies } = await nodeRepository.getManyWithHierarchies(storeId, [
      { hierarchy_id: hierarchyId, id: nodeId },
    ]);
    return {
      ...(hierarchies[0] && { hierarchy: hierarchies[0] }),
      ...(nodes[0] && { node: nodes[0] }),
    };
  },

  /**
   * The nodes of these ids that exist and the hierarchies they name (strongly consistent, in no particular
   * order): read together, not the hierarchies after the nodes.
   */
  async getManyWithHierarchies(
    storeId: string,
    refs: { hierarchy_id: string; id: string }[],
  ): Promise<{ nodes: NodeRecord[]; hierarchies: Hierarchy[] }> {
    const hierarchySks = new Map<string, { pk: string; sk: string }>();
    for (const ref of refs) {
      const key = hierarchyKeys.hierarchy(storeId, ref.hierarchy_id);
      hierarchySks.set(key.sk, key);
    }
    const nodeKeysRead = refs.map((ref) => nodeKeys.node(storeId, ref.hierarchy_id, ref.id));
    const items = await batchGetItems('products', [...hierarchySks.values(), ...nodeKeysRead], true);
    return {
      nodes: items.filter((item) => !hierarchySks.has(item.sk)).map(toNode),
      hierarchies: items.filter((item) => hierarchySks.has(item.sk)).map(toHierarchy),
    };
  },

  /** The nodes of these ids that exist, in no particular order. */
  async getMany(storeId: string, refs: { hierarchy_id: string; id: string }[]): Promise<NodeRecord[]> {
    const keys = refs.map((ref) => nodeKeys.node(storeId, ref.hierarchy_id, ref.id));
    return (await batchGetItems('products', keys, true)).map(toNode);
  },

  /** A page of the hierarchy's nodes (every depth) in creation order, and how many it has. */
  async page(storeId: string, hierarchyId: string, page: { limit: number; offset: number }) {
    const query = rangeQuery(storeId, nodeKeys.nodePrefix(hierarchyId));
    const [total, items] = await Promise.all([countItems(query), queryPage(query, page)]);
    return { nodes: items.map(toNode), total };
  },

  /** The children of a node (null: the top-level nodes), in sibling order. */
  async childrenOf(storeId: string, hierarchyId: string, parentId: string | null): Promise<NodeRecord[]> {
    const items = await queryAll(
      rangeQuery(storeId, nodeKeys.nodePrefix(hierarchyId), childrenFilter(parentId)),
    );
    return items.map(toNode).sort(bySiblingOrder);
  },

  /** Every node of the hierarchy (not the hierarchy itself), in creation order, a page in memory at a time. */
  async *nodesOf(storeId: string, hierarchyId: string): AsyncIterable<NodeRecord> {
    for await (const item of queryItems(rangeQuery(storeId, nodeKeys.nodePrefix(hierarchyId))))
      yield toNode(item);
  },

  /**
   * Every node of the hierarchy as a link (its place and version), from one consistent Query: a few dozen
   * bytes held a node, whatever the nodes' attributes weigh.
   */
  async *linksOf(storeId: string, hierarchyId: string): AsyncIterable<NodeLink> {
    const query = rangeQuery(storeId, nodeKeys.nodePrefix(hierarchyId), {
      ProjectionExpression: '#id, #hierarchy, #parent, #version',
      ExpressionAttributeNames: {
        '#id': 'id',
        '#hierarchy': 'hierarchy_id',
        '#parent': 'parent_id',
        '#version': 'version',
      },
    });
    for await (const item of queryItems(query)) {
      yield {
        id: item.id as string,
        hierarchy_id: item.hierarchy_id as string,
        parent_id: (item.parent_id as string | undefined) ?? null,
        version: item.version as number,
      };
    }
  },

  /** Every product attachment of the hierarchy, by node (in id order), in attach order. */
  async *attachedProductsOf(storeId: string, hierarchyId: string): AsyncIterable<NodeAttachment> {
    const query = rangeQuery(storeId, nodeKeys.attachedPrefix(hierarchyId), {
      ProjectionExpression: 'node_id, product_id',
    });
    for await (const item of queryItems(query)) {
      yield { node_id: item.node_id as string, product_id: item.product_id as string };
    }
  },

  /**
   * Creates the node under `ancestors[0]` (none: top level), conditioned on each ancestor's version, its
   * parent counting one more child, its name and slug claimed among its siblings.
   */
  async create(
    storeId: string,
    node: NodeRecord,
    ancestors: NodeRecord[],
    caller?: WriteCaller,
  ): Promise<void> {
    const delta = new Map<string, number>();
    if (ancestors[0] !== undefined) delta.set(ancestors[0].id, 1);
    await transact(
      [
        {
          item: {
            Put: {
              TableName: table(),
              Item: nodeItem(storeId, node),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          reason: 'changed',
        },
        hierarchyCheck(storeId, node.hierarchy_id),
        ...ancestorItems(storeId, ancestors, delta),
        ...claimChanges(storeId, undefined, node),
      ],
      caller,
    );
  },

  /**
   * Replaces `before` (as read) by `after`: its attributes, sort order and, when `after.parent_id` differs,
   * its parent (`ancestors`: the new parent's chain, parent first, each conditioned on its version; the old
   * parent counts one child fewer). `curated` product ids must be attached (each checked in the same
   * transaction). Claims move with the name, slug or parent.
   */
  async replace(
    storeId: string,
    before: NodeRecord,
    after: NodeRecord,
    ancestors: NodeLink[],
    oldParent: NodeLink | undefined,
    caller?: WriteCaller,
  ): Promise<void> {
    const delta = new Map<string, number>();
    const moved = before.parent_id !== after.parent_id;
    const conditioned = [...ancestors];
    if (moved && oldParent !== undefined) {
      delta.set(oldParent.id, -1);
      conditioned.push(oldParent);
    }
    if (moved && ancestors[0] !== undefined)
      delta.set(ancestors[0].id, (delta.get(ancestors[0].id) ?? 0) + 1);
    const added = after.curated_products.filter((id) => !before.curated_products.includes(id));
    await transact(
      [
        nodeUpdate(storeId, before, after),
        ...ancestorItems(storeId, conditioned, delta),
        ...claimChanges(storeId, before, after),
        ...added.map((productId) => ({
          item: {
            ConditionCheck: {
              TableName: table(),
              Key: nodeKeys.productNode(storeId, productId, before.hierarchy_id, before.id),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          reason: `curated:${productId}`,
        })),
      ],
      caller,
    );
  },

  /**
   * Deletes a node without children or products (as read: its version), freeing its claims; its parent
   * counts one child fewer. Refused (`busy`) when a child or product arrived meanwhile.
   */
  async deleteLeaf(storeId: string, node: NodeRecord, caller?: WriteCaller): Promise<void> {
    const tagged: Tagged = [
      {
        item: {
          Delete: {
            TableName: table(),
            Key: nodeKeys.node(storeId, node.hierarchy_id, node.id),
            ConditionExpression:
              'version = :version AND (attribute_not_exists(children) OR children = :zero) AND (attribute_not_exists(products) OR products = :zero)',
            ExpressionAttributeValues: { ':version': node.version, ':zero': 0 },
          },
        },
        reason: 'busy',
      },
      ...claimChanges(storeId, node, undefined),
    ];
    if (node.parent_id !== null) {
      tagged.push({
        item: {
          Update: {
            TableName: table(),
            Key: nodeKeys.node(storeId, node.hierarchy_id, node.parent_id),
            UpdateExpression: 'ADD children :minus',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':minus': -1 },
          },
        },
        reason: 'changed',
      });
    }
    await transact(tagged, caller);
  },

  /** Which of these products are attached to the node: product id to its attachment's `seq`. */
  /**
   * The products of these ids that exist, and which of them the node has attached (product id to `seq`):
   * one request.
   */
  async productsAndAttachments(
    storeId: string,
    node: NodeRecord,
    productIds: string[],
  ): Promise<{ products: ProductRecord[]; attached: Map<string, string> }> {
    const ids = [...new Set(productIds)];
    const productSks = new Set(ids.map((id) => productKeys.product(storeId, id).sk));
    const items = await batchGetItems(
      'products',
      [
        ...ids.map((id) => productKeys.product(storeId, id)),
        ...ids.map((id) => nodeKeys.productNode(storeId, id, node.hierarchy_id, node.id)),
      ],
      true,
    );
    return {
      products: items.filter((item) => productSks.has(item.sk)).map(toProduct),
      attached: new Map(
        items
          .filter((item) => item.sk.startsWith(PRODNODE))
          .map((item) => [item.sk.slice(PRODNODE.length).split('#')[0] as string, item.seq as string]),
      ),
    };
  },

  async attachmentsOf(storeId: string, node: NodeRecord, productIds: string[]): Promise<Map<string, string>> {
    const keys = productIds.map((id) => nodeKeys.productNode(storeId, id, node.hierarchy_id, node.id));
    const items = await batchGetItems('products', keys, true);
    return new Map(
      items.map((item) => [item.sk.slice(PRODNODE.length).split('#')[0] as string, item.seq as string]),
    );
  },

  /**
   * Attaches the products (none attached yet), in the order given, counting them on the node: `seqs`
   * ascending and after the node's `attach_seq` as read, which must be unchanged (else `changed`). `kept`:
   * the request's other products, found attached (product id to `seq`), which must still be (else
   * `changed`): a detach of one of them at the same moment would otherwise leave the request half applied.
   */
  async attach(
    storeId: string,
    node: NodeRecord,
    productIds: string[],
    seqs: string[],
    caller?: WriteCaller,
    kept: ReadonlyMap<string, string> = new Map(),
  ) {
    await transact(
      [
        { item: { Update: attachedCount(storeId, node, productIds.length, seqs.at(-1)) }, reason: 'changed' },
        ...productIds.flatMap((id, index) => attachItems(storeId, node, id, seqs[index] as string)),
        ...[...kept].map(([productId, seq]) => ({
          item: {
            ConditionCheck: {
              TableName: table(),
              Key: nodeKeys.productNode(storeId, productId, node.hierarchy_id, node.id),
              ConditionExpression: 'seq = :seq',
              ExpressionAttributeValues: { ':seq': seq },
            },
          },
          reason: 'changed' as const,
        })),
      ],
      caller,
    );
  },

  /**
   * Counts `count` products written by `attachmentItems` on the node, `lastSeq` the greatest of their seqs,
   * on condition that the node's latest seq is still the one read.
   */
  async attachedInBulk(storeId: string, node: NodeRecord, count: number, lastSeq: string): Promise<void> {
    await getDocumentClient().send(new UpdateCommand(attachedCount(storeId, node, count, lastSeq)));
  },

  /**
   * Detaches the products (product id to `seq`, as read) from the node as read (its version), dropping them
   * from its curated products, in one transaction. `versioned: false` (a node being deleted) conditions
   * only on the node existing. `absent`: the request's other products, found not attached, which must still
   * not be (else `changed`): an attach of one of them at the same moment would otherwise leave the request
   * half applied.
   */
  async detach(
    storeId: string,
    node: NodeRecord,
    attached: Map<string, string>,
    caller?: WriteCaller,
    versioned = true,
    absent: readonly string[] = [],
  ) {
    const curated = node.curated_products.filter((id) => !attached.has(id));
    await transact(
      [
        {
          item: {
            Update: {
              TableName: table(),
              Key: nodeKeys.node(storeId, node.hierarchy_id, node.id),
              UpdateExpression: 'ADD products :minus SET curated_products = :curated',
              ConditionExpression: versioned ? 'version = :version' : 'attribute_exists(pk)',
              ExpressionAttributeValues: {
                ':minus': -attached.size,
                ':curated': curated,
                ...(versioned ? { ':version': node.version } : {}),
              },
            },
          },
          reason: 'changed',
        },
        ...[...attached].flatMap(([productId, seq]) => detachItems(storeId, node, productId, seq)),
        ...absent.map((productId) => ({
          item: {
            ConditionCheck: {
              TableName: table(),
              Key: nodeKeys.productNode(storeId, productId, node.hierarchy_id, node.id),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          reason: 'changed' as const,
        })),
      ],
      caller,
    );
  },

  /** The first `limit` attachments of a node (product id to `seq`), for detaching in batches. */
  async firstAttachments(storeId: string, node: NodeRecord, limit: number): Promise<Map<string, string>> {
    const items = await queryPage(rangeQuery(storeId, nodeKeys.attachedPrefix(node.hierarchy_id, node.id)), {
      limit,
      offset: 0,
    });
    return new Map(
      items.map((item) => [item.product_id as string, String(item.sk).split('#').pop() as string]),
    );
  },

  /** A page of the node's product ids in attach order, leaving out `skip` (its curated products). */
  async attachedPage(
    storeId: string,
    node: NodeRecord,
    skip: string[],
    page: { limit: number; offset: number },
  ) {
    const values: Record<string, unknown> = {};
    skip.forEach((id, index) => {
      values[`:c${index}`] = id;
    });
    const filter: Partial<PagedQuery> =
      skip.length === 0
        ? {}
        : {
            FilterExpression: `NOT (product_id IN (${Object.keys(values).join(', ')}))`,
            ExpressionAttributeValues: values,
          };
    const items = await queryPage(
      rangeQuery(storeId, nodeKeys.attachedPrefix(node.hierarchy_id, node.id), filter),
      page,
    );
    return items.map((item) => item.product_id as string);
  },

  /** A page of the nodes a product is attached to (hierarchy and node ids), and how many there are. */
  async nodesOfProduct(storeId: string, productId: string, page: { limit: number; offset: number }) {
    const query = rangeQuery(storeId, nodeKeys.productNodePrefix(productId));
    const [total, items] = await Promise.all([countItems(query), queryPage(query, page)]);
    return {
      refs: items.map((item) => ({ hierarchy_id: item.hierarchy_id as string, id: item.node_id as string })),
      total,
    };
  },

  /** Every attachment of a product: its nodes and each attachment's `seq`. */
  async attachmentsOfProduct(storeId: string, productId: string) {
    const items = await queryAll(rangeQuery(storeId, nodeKeys.productNodePrefix(productId)));
    return items.map((item) => ({
      hierarchy_id: item.hierarchy_id as string,
      id: item.node_id as string,
      seq: item.seq as string,
    }));
  },
};
