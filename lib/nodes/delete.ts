import { ConflictError, WRITE_CONFLICT } from '../http/errors';
import type { WriteCaller } from '../store/caller-check';
import { backoff } from '../store/items';
import { type NodeRecord, NodeWriteRefusedError, nodeRepository } from '../store/node-repository';
import { firstRoundRead } from '../store/transact-retrying';
import { NODE_PRODUCTS_PER_REQUEST } from '../validation/node';

/** Times a delete reads the tree again after losing to a write meanwhile (a new child or product) before 409. */
const ROUNDS = 32;

/** Detaches every product of a node being deleted, a transaction of at most 25 at a time. */
async function detachAll(storeId: string, node: NodeRecord, caller: WriteCaller): Promise<void> {
  for (;;) {
    const batch = await nodeRepository.firstAttachments(storeId, node, NODE_PRODUCTS_PER_REQUEST);
    if (batch.size === 0) return;
    await nodeRepository.detach(storeId, node, batch, caller, false);
  }
}

/** Every node of the hierarchy, by id (one consistent Query, paged). */
export async function nodeTree(storeId: string, hierarchyId: string): Promise<Map<string, NodeRecord>> {
  const nodes = new Map<string, NodeRecord>();
  for await (const node of nodeRepository.nodesOf(storeId, hierarchyId)) nodes.set(node.id, node);
  return nodes;
}

/**
 * Deletes the subtrees of `rootIds` (undefined: every node of the hierarchy), leaves first, each node's
 * products detached before it goes. Every step leaves a tree (a node goes only once it has no children nor
 * products), so a delete cut short (a timeout, a crash) leaves a smaller tree, and deleting again finishes it.
 */
export async function deleteSubtrees(
  storeId: string,
  hierarchyId: string,
  rootIds: string[] | undefined,
  caller: WriteCaller,
  treeRead?: Promise<Map<string, NodeRecord>>,
): Promise<void> {
  // The caller's read of the tree, when it made one (beside the route's), serves the first round.
  const readTree = firstRoundRead(treeRead, () => nodeTree(storeId, hierarchyId));
  for (let round = 1; round <= ROUNDS; round += 1) {
    const nodes = await readTree();
    const children = new Map<string | null, NodeRecord[]>();
    for (const node of nodes.values()) {
      const siblings = children.get(node.parent_id);
      if (siblings) siblings.push(node);
      else children.set(node.parent_id, [node]);
    }
    const order: NodeRecord[] = [];
    const visit = (node: NodeRecord) => {
      for (const child of children.get(node.id) ?? []) visit(child);
      order.push(node);
    };
    const roots = rootIds === undefined ? (children.get(null) ?? []) : rootIds.map((id) => nodes.get(id));
    for (const root of roots) if (root) visit(root);
    if (order.length === 0) return;
    try {
      for (const node of order) {
        // A node read without products is not queried for them: its delete conditions on none (a product
        // attached meanwhile refuses it, and the tree is read again).
        if (node.products > 0) await detachAll(storeId, node, caller);
        await nodeRepository.deleteLeaf(storeId, { ...node, products: 0 }, caller);
      }
      return;
    } catch (error) {
      // A child or product arrived, or a node changed: read the tree again and go on from there.
      if (!(error instanceof NodeWriteRefusedError)) throw error;
      await backoff(Math.min(round, 6));
    }
  }
  throw new ConflictError(WRITE_CONFLICT);
}
