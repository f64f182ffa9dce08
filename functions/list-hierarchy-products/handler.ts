import { productListHandler } from '../node-list-handler';
import { LIST_HIERARCHY_PRODUCTS } from '../routes';

/**
 * GET /catalog/hierarchies/{hierarchy_id}/products: the live products placed in any node of a hierarchy
 * (the hierarchy itself included), each once, in document order, paginated, rendered as the child list
 * renders products.
 */
export const handler = productListHandler('list-hierarchy-products', LIST_HIERARCHY_PRODUCTS, {
  param: 'hierarchy_id',
  of: 'hierarchy',
  path: (id) => `/catalog/hierarchies/${id}/products`,
});
