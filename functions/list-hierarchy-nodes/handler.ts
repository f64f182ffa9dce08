import { nodeListHandler } from '../node-list-handler';

/** GET /catalog/hierarchies/{hierarchy_id}/nodes: every node below a hierarchy. */
export const handler = nodeListHandler('list-hierarchy-nodes', {
  param: 'hierarchy_id',
  of: 'hierarchy',
  kind: 'descendants',
  path: (id) => `/catalog/hierarchies/${id}/nodes`,
});
