import { prefetchRegistry } from '../../lib/catalog/cache';
import { getCatalogProduct } from '../../lib/catalog/catalog-reads';
import {
  acceptLanguage,
  displayCurrency,
  parseInclude,
  shopperHeaders,
} from '../../lib/catalog/child-list-response';
import { pathParameter, queryParameter } from '../../lib/http/request';
import { jsonText } from '../../lib/http/response';
import { createHandler } from '../create-handler';
import { GET_CATALOG_PRODUCT } from '../routes';

/**
 * GET /catalog/products/{product_id}: one live product of the release the shopper's context selects,
 * rendered like the child list, with `include`. Any token of the store.
 */
export const handler = createHandler(
  'get-catalog-product',
  GET_CATALOG_PRODUCT,
  { prefetch: prefetchRegistry },
  async (event) => {
    const store = event.auth.store;
    const { channel, tag } = shopperHeaders(event.headers, store);
    const include = parseInclude(queryParameter(event, 'include'));
    const currency = displayCurrency(event.headers, store.currencies);
    const body = await getCatalogProduct({
      storeId: store.id,
      defaultLocale: store.default_locale,
      productId: pathParameter(event, 'product_id'),
      channel,
      tag,
      acceptLanguage: acceptLanguage(event.headers),
      ...(include === undefined ? {} : { include }),
      ...(currency === undefined ? {} : { currency }),
    });
    return jsonText(200, body);
  },
);
