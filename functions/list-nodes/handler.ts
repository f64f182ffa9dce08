import { prefetchRegistry } from '../../lib/catalog/cache';
import { shopperHeaders } from '../../lib/catalog/child-list-response';
import { listNodes, nodePageJson, parseNodeFilter } from '../../lib/catalog/nodes';
import { queryParameter } from '../../lib/http/request';
import { jsonText } from '../../lib/http/response';
import { parsePageRequest } from '../../lib/pagination/index';
import { createHandler } from '../create-handler';
import { LIST_NODES } from '../routes';

/**
 * GET /catalog/nodes: every node of the catalog the shopper's context selects, paginated; with
 * `filter=in(id,...)` the named nodes in the order they were last updated. Any token of the store.
 */
export const handler = createHandler(
  'list-nodes',
  LIST_NODES,
  { prefetch: prefetchRegistry },
  async (event) => {
    const store = event.auth.store;
    const { channel, tag } = shopperHeaders(event.headers, event.auth.store);
    const page = parsePageRequest(event.queryStringParameters, { defaultLimit: store.page_length });
    const filterText = queryParameter(event, 'filter');
    const filter = parseNodeFilter(filterText);
    const result = await listNodes({ storeId: store.id, channel, tag }, filter, page);
    return jsonText(200, nodePageJson('/catalog/nodes', { filter: filterText }, page, result));
  },
);
