import { productListHandler } from '../node-list-handler';
import { LIST_NODE_PRODUCTS } from '../routes';

/**
 * GET /catalog/nodes/{node_id}/relationships/products: the live products placed in a node (their own
 * `node_ids`), in document order, paginated, rendered as the child list renders products.
 */
export const handler = productListHandler('list-node-products', LIST_NODE_PRODUCTS, {
  param: 'node_id',
  of: 'node',
  path: (id) => `/catalog/nodes/${id}/relationships/products`,
});
