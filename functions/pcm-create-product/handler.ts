import { requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { productUrl, renderProduct } from '../../lib/products/render';
import { createProduct } from '../../lib/products/service';
import { parseNewProduct, parseNewProductLinks } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_CREATE_PRODUCT } from '../routes';

/**
 * POST /pcm/products: a new product (`draft` unless told), linking the variations of
 * `data.relationships.variations`; 409 when its sku or external_ref is taken.
 */
export const handler = createHandler('pcm-create-product', PCM_CREATE_PRODUCT, {}, async (event) => {
  const attributes = parseNewProduct(event.parsedBody);
  const variationIds = parseNewProductLinks(event.parsedBody);
  const product = await asWriteCaller(event, (caller) =>
    createProduct(event.auth.storeId, attributes, caller, variationIds),
  );
  return json(
    201,
    { data: renderProduct(product) },
    { Location: productUrl(requestOrigin(event), product.id) },
  );
});
