import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { productNodesPage, renderNodePage } from '../../lib/nodes/service';
import { parsePageRequest } from '../../lib/pagination/index';
import { productOf } from '../../lib/products/service';
import { besideParent } from '../../lib/store/items';
import { parseProductId } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_LIST_PRODUCT_NODES } from '../routes';

/** GET /pcm/products/{product_id}/nodes: the nodes the product is attached to, in any hierarchy. */
export const handler = createHandler('pcm-list-product-nodes', PCM_LIST_PRODUCT_NODES, {}, async (event) => {
  const storeId = event.auth.storeId;
  const productId = parseProductId(pathParameter(event, 'product_id'));
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const { hierarchies, ...slice } = await besideParent(
    productOf(storeId, productId),
    productNodesPage(storeId, productId, page),
  );
  const base = `${requestOrigin(event)}/pcm/products/${productId}/nodes`;
  return ok(await renderNodePage(storeId, hierarchies, slice, page, base));
});
