import type { NodeRecord } from '../store/node-repository';

/**
 * A node as the platform's tools read it (`type: "node"`): `slug` and `locales` only when set, its parent
 * (the hierarchy's id for a top-level node: the hierarchy is the root node), links to its children and
 * products, `meta.sort_order` only when it has one, `meta.parent_name` its parent's name (the hierarchy's
 * for a top-level node).
 */
export function renderNode(node: NodeRecord, parentName: string): Record<string, unknown> {
  const base = `/hierarchies/${node.hierarchy_id}/nodes/${node.id}`;
  return {
    id: node.id,
    type: 'node',
    attributes: {
      name: node.name,
      description: node.description,
      ...(node.slug === undefined ? {} : { slug: node.slug }),
      curated_products: node.curated_products,
      ...(node.locales === undefined ? {} : { locales: node.locales }),
    },
    relationships: {
      children: { links: { related: `${base}/children` } },
      parent: { data: { type: 'node', id: node.parent_id ?? node.hierarchy_id } },
      products: { links: { related: `${base}/products` } },
    },
    meta: {
      ...(node.sort_order === null ? {} : { sort_order: node.sort_order }),
      created_at: node.created_at,
      updated_at: node.updated_at,
      parent_name: parentName,
      owner: 'store',
    },
  };
}
