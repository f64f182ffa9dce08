import { nodeListHandler } from '../node-list-handler';
import { LIST_HIERARCHY_NODES } from '../routes';

/** GET /catalog/hierarchies/{hierarchy_id}/nodes: every node below a hierarchy. */
export const handler = nodeListHandler('list-hierarchy-nodes', LIST_HIERARCHY_NODES, {
  param: 'hierarchy_id',
  of: 'hierarchy',
  kind: 'descendants',
  path: (id) => `/catalog/hierarchies/${id}/nodes`,
});
