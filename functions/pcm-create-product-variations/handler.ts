import { changeVariationLinks } from '../../lib/builds/links';
import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseProductId } from '../../lib/validation/product';
import { parseVariationLinks } from '../../lib/validation/variation';
import { createHandler } from '../create-handler';
import { PCM_CREATE_PRODUCT_VARIATIONS } from '../routes';

/** POST /pcm/products/{product_id}/relationships/variations: links the variations listed (after those linked); 204. */
export const handler = createHandler(
  'pcm-create-product-variations',
  PCM_CREATE_PRODUCT_VARIATIONS,
  {},
  async (event) => {
    const productId = parseProductId(pathParameter(event, 'product_id'));
    const ids = parseVariationLinks(event.parsedBody);
    await asWriteCaller(event, (caller) =>
      changeVariationLinks(event.auth.storeId, productId, 'add', ids, caller),
    );
    return noContent();
  },
);
