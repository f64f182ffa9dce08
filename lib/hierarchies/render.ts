import type { Hierarchy } from '../store/hierarchy-repository';

/**
 * A hierarchy as the platform's tools read it (`type: "hierarchy"`): `slug` and `locales` only when set,
 * `relationships.children.links.related` to its top-level nodes.
 */
export function renderHierarchy(hierarchy: Hierarchy): Record<string, unknown> {
  return {
    id: hierarchy.id,
    type: 'hierarchy',
    attributes: {
      name: hierarchy.name,
      description: hierarchy.description,
      ...(hierarchy.slug === undefined ? {} : { slug: hierarchy.slug }),
      ...(hierarchy.locales === undefined ? {} : { locales: hierarchy.locales }),
    },
    relationships: {
      children: { links: { related: `/hierarchies/${hierarchy.id}/children` } },
    },
    meta: { created_at: hierarchy.created_at, updated_at: hierarchy.updated_at, owner: 'store' },
  };
}
