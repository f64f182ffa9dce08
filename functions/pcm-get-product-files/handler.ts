import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { fileIdentifiers } from '../../lib/products/render';
import { productOf } from '../../lib/products/service';
import { parseProductId } from '../../lib/validation/product';
import { createHandler } from '../create-handler';

/** GET /pcm/products/{product_id}/relationships/files: the files the product lists, in order. */
export const handler = createHandler('pcm-get-product-files', {}, async (event) => {
  const productId = parseProductId(pathParameter(event, 'product_id'));
  return ok({ data: fileIdentifiers(await productOf(event.auth.storeId, productId)) });
});
