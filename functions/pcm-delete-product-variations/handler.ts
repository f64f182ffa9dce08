import { changeVariationLinks } from '../../lib/builds/links';
import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseProductId } from '../../lib/validation/product';
import { parseVariationLinks } from '../../lib/validation/variation';
import { createHandler } from '../create-handler';
import { PCM_DELETE_PRODUCT_VARIATIONS } from '../routes';

/** DELETE /pcm/products/{product_id}/relationships/variations: unlinks the variations listed; 204. */
export const handler = createHandler(
  'pcm-delete-product-variations',
  PCM_DELETE_PRODUCT_VARIATIONS,
  {},
  async (event) => {
    const productId = parseProductId(pathParameter(event, 'product_id'));
    const ids = parseVariationLinks(event.parsedBody);
    await asWriteCaller(event, (caller) =>
      changeVariationLinks(event.auth.storeId, productId, 'remove', ids, caller),
    );
    return noContent();
  },
);
