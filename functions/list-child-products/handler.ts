import { prefetchRegistry } from '../../lib/catalog/cache';
import {
  acceptLanguage,
  childListJson,
  displayCurrency,
  parseInclude,
  shopperHeaders,
} from '../../lib/catalog/child-list-response';
import { listChildProducts } from '../../lib/catalog/list-children';
import { parseFilter } from '../../lib/filter/index';
import { pathParameter, queryParameter } from '../../lib/http/request';
import { jsonText } from '../../lib/http/response';
import { parsePageRequest } from '../../lib/pagination/index';
import { createHandler } from '../create-handler';
import { LIST_CHILD_PRODUCTS } from '../routes';

/**
 * GET /catalog/products/{product_id}/relationships/children: the live children of a base product
 * in the catalog the shopper's context selects, filtered and paginated. Any token of the store.
 */
export const handler = createHandler(
  'list-child-products',
  LIST_CHILD_PRODUCTS,
  { prefetch: prefetchRegistry },
  async (event) => {
    const store = event.auth.store;
    const { channel, tag } = shopperHeaders(event.headers, store);
    const page = parsePageRequest(event.queryStringParameters, { defaultLimit: store.page_length });
    const filterText = queryParameter(event, 'filter');
    const filter = filterText === undefined ? [] : parseFilter(filterText);
    const includeText = queryParameter(event, 'include');
    const include = parseInclude(includeText);
    const currency = displayCurrency(event.headers, store.currencies);
    const productId = pathParameter(event, 'product_id');
    const result = await listChildProducts({
      storeId: store.id,
      defaultLocale: store.default_locale,
      productId,
      channel,
      tag,
      acceptLanguage: acceptLanguage(event.headers),
      filter,
      page,
      ...(include === undefined ? {} : { include }),
      ...(currency === undefined ? {} : { currency }),
    });
    return jsonText(
      200,
      childListJson(productId, { filter: filterText, include: includeText }, page, result),
    );
  },
);
