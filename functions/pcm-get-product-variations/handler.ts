import { renderVariationLinks } from '../../lib/builds/links';
import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { productOf } from '../../lib/products/service';
import { parseProductId } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_GET_PRODUCT_VARIATIONS } from '../routes';

/** GET /pcm/products/{product_id}/relationships/variations: the linked variations, in link order. */
export const handler = createHandler(
  'pcm-get-product-variations',
  PCM_GET_PRODUCT_VARIATIONS,
  {},
  async (event) => {
    const productId = parseProductId(pathParameter(event, 'product_id'));
    return ok(renderVariationLinks(await productOf(event.auth.storeId, productId)));
  },
);
