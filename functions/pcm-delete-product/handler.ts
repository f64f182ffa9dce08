import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { deleteProduct } from '../../lib/products/service';
import { parseProductId } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_DELETE_PRODUCT } from '../routes';

/** DELETE /pcm/products/{product_id}: deletes it and frees its sku; 409 while a bundle uses it. */
export const handler = createHandler('pcm-delete-product', PCM_DELETE_PRODUCT, {}, async (event) => {
  const productId = parseProductId(pathParameter(event, 'product_id'));
  await asWriteCaller(event, (caller) => deleteProduct(event.auth.storeId, productId, caller));
  return noContent();
});
