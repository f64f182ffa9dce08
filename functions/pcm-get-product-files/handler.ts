import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { fileIdentifiers } from '../../lib/products/render';
import { productOf } from '../../lib/products/service';
import { parseProductId } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_GET_PRODUCT_FILES } from '../routes';

/** GET /pcm/products/{product_id}/relationships/files: the files the product lists, in order. */
export const handler = createHandler('pcm-get-product-files', PCM_GET_PRODUCT_FILES, {}, async (event) => {
  const productId = parseProductId(pathParameter(event, 'product_id'));
  return ok({ data: fileIdentifiers(await productOf(event.auth.storeId, productId)) });
});
