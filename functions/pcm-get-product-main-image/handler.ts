import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { mainImageIdentifier } from '../../lib/products/render';
import { productOf } from '../../lib/products/service';
import { parseProductId } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_GET_PRODUCT_MAIN_IMAGE } from '../routes';

/** GET /pcm/products/{product_id}/relationships/main_image: `{data: [{type: "file", id}]}`, or `[]`. */
export const handler = createHandler(
  'pcm-get-product-main-image',
  PCM_GET_PRODUCT_MAIN_IMAGE,
  {},
  async (event) => {
    const productId = parseProductId(pathParameter(event, 'product_id'));
    const image = mainImageIdentifier(await productOf(event.auth.storeId, productId));
    return ok({ data: image === null ? [] : [image] });
  },
);
