import { prefetchRegistry } from '../../lib/catalog/cache';
import {
  acceptLanguage,
  displayCurrency,
  parseInclude,
  shopperHeaders,
} from '../../lib/catalog/child-list-response';
import { listNodeProducts, nodePageJson, rejectFilter } from '../../lib/catalog/nodes';
import { pathParameter, queryParameter } from '../../lib/http/request';
import { jsonText } from '../../lib/http/response';
import { parsePageRequest } from '../../lib/pagination/index';
import { createHandler } from '../create-handler';

/**
 * GET /catalog/nodes/{node_id}/relationships/products: the live products placed in a node (their own
 * `node_ids`), in document order, paginated, rendered as the child list renders products. Any token of
 * the store.
 */
export const handler = createHandler('list-node-products', { prefetch: prefetchRegistry }, async (event) => {
  const store = event.auth.store;
  const { channel, tag } = shopperHeaders(event.headers, event.auth.store);
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: store.page_length });
  rejectFilter(queryParameter(event, 'filter'));
  const includeText = queryParameter(event, 'include');
  const include = parseInclude(includeText);
  const currency = displayCurrency(event.headers, store.currencies);
  const id = pathParameter(event, 'node_id');
  const result = await listNodeProducts(
    {
      storeId: store.id,
      channel,
      tag,
      defaultLocale: store.default_locale,
      acceptLanguage: acceptLanguage(event.headers),
      ...(include === undefined ? {} : { include }),
      ...(currency === undefined ? {} : { currency }),
    },
    id,
    page,
  );
  return jsonText(
    200,
    nodePageJson(`/catalog/nodes/${id}/relationships/products`, { include: includeText }, page, result),
  );
});
