import type { CatalogNode } from './types';

/** A node may sit at most this many levels deep (the root is level 1), as validation enforces. */
export const MAX_NODE_DEPTH = 10;

export interface NodePathProblem {
  /** Index of the offending node in the document's `nodes`. */
  index: number;
  rule: 'reference' | 'cycle' | 'depth';
  message: string;
}

/**
 * The path of every node from its root down to itself, or the problems that prevent one: a parent that
 * is not a node of the release, a cycle, or more than MAX_NODE_DEPTH levels.
 */
export function resolveNodePaths(nodes: readonly CatalogNode[]): {
  paths: Map<string, string[]>;
  problems: NodePathProblem[];
} {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const paths = new Map<string, string[]>();
  const problems: NodePathProblem[] = [];
  nodes.forEach((node, index) => {
    const path: string[] = [node.id];
    const seen = new Set([node.id]);
    let current = node;
    while (current.parent_id !== null) {
      const parent = byId.get(current.parent_id);
      if (parent === undefined) {
        if (current === node) {
          problems.push({ index, rule: 'reference', message: 'must be the id of a node of this release' });
        }
        return;
      }
      if (seen.has(parent.id)) {
        problems.push({ index, rule: 'cycle', message: "the node's ancestors form a cycle" });
        return;
      }
      seen.add(parent.id);
      path.unshift(parent.id);
      current = parent;
    }
    if (path.length > MAX_NODE_DEPTH) {
      problems.push({
        index,
        rule: 'depth',
        message: `the node is ${path.length} levels deep; at most ${MAX_NODE_DEPTH} are allowed`,
      });
      return;
    }
    paths.set(node.id, path);
  });
  return { paths, problems };
}

/** `meta.bread_crumbs` (node id -> ids from the root down to the node) and `meta.bread_crumb_nodes`. */
export function breadcrumbsFor(
  nodeIds: readonly string[],
  paths: ReadonlyMap<string, string[]>,
): { bread_crumbs: Record<string, string[]>; bread_crumb_nodes: string[] } {
  const crumbs: Record<string, string[]> = {};
  for (const id of nodeIds) {
    const path = paths.get(id);
    if (path) crumbs[id] = [...path];
  }
  return { bread_crumbs: crumbs, bread_crumb_nodes: [...nodeIds] };
}
