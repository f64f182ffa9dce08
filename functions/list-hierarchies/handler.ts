import { prefetchRegistry } from '../../lib/catalog/cache';
import { shopperHeaders } from '../../lib/catalog/child-list-response';
import { listHierarchies, nodePageJson, parseNodeFilter } from '../../lib/catalog/nodes';
import { queryParameter } from '../../lib/http/request';
import { jsonText } from '../../lib/http/response';
import { parsePageRequest } from '../../lib/pagination/index';
import { createHandler } from '../create-handler';
import { LIST_HIERARCHIES } from '../routes';

/**
 * GET /catalog/hierarchies: the hierarchies (nodes without parent) of the catalog the shopper's context
 * selects, paginated; `filter=in(id,...)` as on /catalog/nodes. Any token of the store.
 */
export const handler = createHandler(
  'list-hierarchies',
  LIST_HIERARCHIES,
  { prefetch: prefetchRegistry },
  async (event) => {
    const store = event.auth.store;
    const { channel, tag } = shopperHeaders(event.headers, event.auth.store);
    const page = parsePageRequest(event.queryStringParameters, { defaultLimit: store.page_length });
    const filterText = queryParameter(event, 'filter');
    const filter = parseNodeFilter(filterText);
    const result = await listHierarchies({ storeId: store.id, channel, tag }, filter, page);
    return jsonText(200, nodePageJson('/catalog/hierarchies', { filter: filterText }, page, result));
  },
);
