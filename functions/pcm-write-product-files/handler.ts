import { parseFileRelationshipsBody } from '../../lib/files/relationships';
import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { addFiles, removeFiles, replaceFiles } from '../../lib/products/files';
import { parseProductId } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_WRITE_PRODUCT_FILES } from '../routes';

const WRITES = { POST: addFiles, PUT: replaceFiles, DELETE: removeFiles } as const;

/**
 * POST (add), PUT (replace) and DELETE (remove those listed) /pcm/products/{product_id}/relationships/files:
 * `{data: [{type: "file", id, meta?: {tags}}]}`, 204.
 */
export const handler = createHandler(
  'pcm-write-product-files',
  PCM_WRITE_PRODUCT_FILES,
  {},
  async (event) => {
    const productId = parseProductId(pathParameter(event, 'product_id'));
    const method = event.requestContext.http.method as keyof typeof WRITES;
    const write = WRITES[method];
    const files = parseFileRelationshipsBody(method, event.parsedBody);
    await asWriteCaller(event, (caller) => write(event.auth.storeId, productId, files, caller));
    return noContent();
  },
);
