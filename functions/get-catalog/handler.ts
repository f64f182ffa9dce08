import { prefetchRegistry } from '../../lib/catalog/cache';
import { getCatalogRelease } from '../../lib/catalog/catalog-reads';
import { acceptLanguage, shopperHeaders } from '../../lib/catalog/child-list-response';
import { jsonText } from '../../lib/http/response';
import { createHandler } from '../create-handler';
import { GET_CATALOG } from '../routes';

/** GET /catalog: the release the shopper's context selects, in the platform's shape. Any token of the store. */
export const handler = createHandler(
  'get-catalog',
  GET_CATALOG,
  { prefetch: prefetchRegistry },
  async (event) => {
    const store = event.auth.store;
    const { channel, tag } = shopperHeaders(event.headers, store);
    const body = await getCatalogRelease({
      storeId: store.id,
      defaultLocale: store.default_locale,
      channel,
      tag,
      acceptLanguage: acceptLanguage(event.headers),
    });
    return jsonText(200, body);
  },
);
