import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { nodeAtRoute, nodeProductsPage } from '../../lib/nodes/service';
import { parsePageRequest } from '../../lib/pagination/index';
import { fittingResponse, renderProductPage } from '../../lib/products/render';
import { createHandler } from '../create-handler';
import { PCM_LIST_NODE_PRODUCTS } from '../routes';

/**
 * GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/products: the products attached, curated ones first
 * (in curated order), then the others in attach order, as `GET /pcm/products` renders products.
 */
export const handler = createHandler('pcm-list-node-products', PCM_LIST_NODE_PRODUCTS, {}, async (event) => {
  const { storeId, hierarchy, node } = await nodeAtRoute(event);
  const nodeId = node.id;
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const { products, total } = await nodeProductsPage(storeId, node, page);
  const base = `${requestOrigin(event)}/pcm/hierarchies/${hierarchy.id}/nodes/${nodeId}/products`;
  return ok(fittingResponse(renderProductPage(products, total, page, base, undefined)));
});
