import { childrenOf } from '../../lib/builds/links';
import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest } from '../../lib/pagination/index';
import { fittingResponse, renderProductPage } from '../../lib/products/render';
import { parseProductId } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_GET_CHILD_PRODUCTS } from '../routes';

/** GET /pcm/products/{product_id}/children: a page of the children a build made, in combination order. */
export const handler = createHandler('pcm-get-child-products', PCM_GET_CHILD_PRODUCTS, {}, async (event) => {
  const productId = parseProductId(pathParameter(event, 'product_id'));
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const { products, total } = await childrenOf(event.auth.storeId, productId, page);
  const base = `${requestOrigin(event)}/pcm/products/${productId}/children`;
  return ok(fittingResponse(renderProductPage(products, total, page, base, undefined)));
});
