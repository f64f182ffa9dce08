import { mainImageSource, parseMainImageBody } from '../../lib/files/relationships';
import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { removeMainImage, setMainImage } from '../../lib/products/files';
import { parseProductId } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_WRITE_PRODUCT_MAIN_IMAGE } from '../routes';

/**
 * POST and PUT /pcm/products/{product_id}/relationships/main_image: make a file of the store the product's
 * main image (204); DELETE: remove it (204). The bodies are lib/files/relationships.ts's.
 */
export const handler = createHandler(
  'pcm-write-product-main-image',
  PCM_WRITE_PRODUCT_MAIN_IMAGE,
  {},
  async (event) => {
    const productId = parseProductId(pathParameter(event, 'product_id'));
    const { storeId } = event.auth;
    if (event.requestContext.http.method === 'DELETE') {
      const fileId = parseMainImageBody('DELETE', event.parsedBody);
      await asWriteCaller(event, (caller) => removeMainImage(storeId, productId, fileId, caller));
    } else {
      const method = event.requestContext.http.method === 'PUT' ? 'PUT' : 'POST';
      const fileId = parseMainImageBody(method, event.parsedBody);
      const source = mainImageSource(event.parsedBody);
      await asWriteCaller(event, (caller) => setMainImage(storeId, productId, fileId, source, caller));
    }
    return noContent();
  },
);
