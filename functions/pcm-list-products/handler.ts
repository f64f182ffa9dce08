import { queryParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest } from '../../lib/pagination/index';
import { fittingResponse, renderProductPage } from '../../lib/products/render';
import { includedFor, listProducts } from '../../lib/products/service';
import { parseProductInclude } from '../../lib/validation/product';
import { createHandler } from '../create-handler';
import { PCM_LIST_PRODUCTS } from '../routes';

/** GET /pcm/products: the store's products, oldest first, `filter`ed (eq, like, in) and paginated. */
export const handler = createHandler('pcm-list-products', PCM_LIST_PRODUCTS, {}, async (event) => {
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const filter = queryParameter(event, 'filter');
  const includes = parseProductInclude(queryParameter(event, 'include'));
  const { products, total } = await listProducts(event.auth.storeId, page, filter);
  const origin = requestOrigin(event);
  const included = await includedFor(event.auth.storeId, products, includes, origin);
  const base = `${origin}/pcm/products`;
  return ok(fittingResponse(renderProductPage(products, total, page, base, filter, included)));
});
