import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { renderProduct } from '../../lib/products/render';
import { updateProduct } from '../../lib/products/service';
import { parseProductId, parseProductUpdate } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_UPDATE_PRODUCT } from '../routes';

/** PUT /pcm/products/{product_id}: changes only the attributes sent; `data.id` must be the path's. */
export const handler = createHandler('pcm-update-product', PCM_UPDATE_PRODUCT, {}, async (event) => {
  const productId = parseProductId(pathParameter(event, 'product_id'));
  const changes = parseProductUpdate(event.parsedBody, productId);
  const product = await asWriteCaller(event, (caller) =>
    updateProduct(event.auth.storeId, productId, changes, caller),
  );
  return ok({ data: renderProduct(product) });
});
