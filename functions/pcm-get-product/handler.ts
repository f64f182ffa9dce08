import { parentMeta } from '../../lib/builds/links';
import { pathParameter, queryParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { fittingResponse, renderProduct } from '../../lib/products/render';
import { includedFor, productOf } from '../../lib/products/service';
import { parseProductId, parseProductInclude } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_GET_PRODUCT } from '../routes';

/**
 * GET /pcm/products/{product_id}: one product of the token's store (a parent with its variations and
 * variation matrix); `include` its component products.
 */
export const handler = createHandler('pcm-get-product', PCM_GET_PRODUCT, {}, async (event) => {
  const productId = parseProductId(pathParameter(event, 'product_id'));
  const includes = parseProductInclude(queryParameter(event, 'include'));
  const product = await productOf(event.auth.storeId, productId);
  const [included, parent] = await Promise.all([
    includedFor(event.auth.storeId, [product], includes, requestOrigin(event)),
    parentMeta(event.auth.storeId, product),
  ]);
  return ok(
    fittingResponse({
      data: renderProduct(product, parent),
      ...(included === undefined ? {} : { included }),
    }),
  );
});
