import { nodeListHandler } from '../node-list-handler';
import { LIST_HIERARCHY_CHILDREN } from '../routes';

/** GET /catalog/hierarchies/{hierarchy_id}/children: the direct children of a hierarchy, as nodes. */
export const handler = nodeListHandler('list-hierarchy-children', LIST_HIERARCHY_CHILDREN, {
  param: 'hierarchy_id',
  of: 'hierarchy',
  kind: 'children',
  path: (id) => `/catalog/hierarchies/${id}/children`,
});
