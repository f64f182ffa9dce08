import { prefetchRegistry } from '../../lib/catalog/cache';
import { listCatalogProducts, productListJson } from '../../lib/catalog/catalog-reads';
import {
  acceptLanguage,
  displayCurrency,
  parseInclude,
  shopperHeaders,
} from '../../lib/catalog/child-list-response';
import { parseFilter } from '../../lib/filter/index';
import { queryParameter } from '../../lib/http/request';
import { jsonText } from '../../lib/http/response';
import { parsePageRequest } from '../../lib/pagination/index';
import { createHandler } from '../create-handler';
import { LIST_CATALOG_PRODUCTS } from '../routes';

/**
 * GET /catalog/products: the live products of the release the shopper's context selects, filtered and
 * paginated like the child list. Any token of the store.
 */
export const handler = createHandler(
  'list-catalog-products',
  LIST_CATALOG_PRODUCTS,
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
    const result = await listCatalogProducts({
      storeId: store.id,
      defaultLocale: store.default_locale,
      channel,
      tag,
      acceptLanguage: acceptLanguage(event.headers),
      filter,
      page,
      ...(include === undefined ? {} : { include }),
      ...(currency === undefined ? {} : { currency }),
    });
    return jsonText(200, productListJson({ filter: filterText, include: includeText }, page, result));
  },
);
