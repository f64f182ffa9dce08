import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { componentProductIds } from '../../lib/products/render';
import { productOf } from '../../lib/products/service';
import { parseProductId } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_GET_COMPONENT_PRODUCTS } from '../routes';

/** GET /pcm/products/{product_id}/relationships/component_products: the products a bundle names. */
export const handler = createHandler(
  'pcm-get-component-products',
  PCM_GET_COMPONENT_PRODUCTS,
  {},
  async (event) => {
    const productId = parseProductId(pathParameter(event, 'product_id'));
    const product = await productOf(event.auth.storeId, productId);
    return ok({ data: componentProductIds(product).map((id) => ({ type: 'product', id })) });
  },
);
