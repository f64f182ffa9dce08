import { nodeListHandler } from '../node-list-handler';
import { LIST_NODE_CHILDREN } from '../routes';

/** GET /catalog/nodes/{node_id}/relationships/children: the direct children of a node. */
export const handler = nodeListHandler('list-node-children', LIST_NODE_CHILDREN, {
  param: 'node_id',
  of: 'node',
  kind: 'children',
  path: (id) => `/catalog/nodes/${id}/relationships/children`,
});
