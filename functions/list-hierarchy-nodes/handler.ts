import { prefetchRegistry } from '../../lib/catalog/cache';
import { shopperHeaders } from '../../lib/catalog/child-list-response';
import { listNodeList, nodePageJson, parseNodeFilter } from '../../lib/catalog/nodes';
import { pathParameter, queryParameter } from '../../lib/http/request';
import { jsonText } from '../../lib/http/response';
import { parsePageRequest } from '../../lib/pagination/index';
import { createHandler } from '../create-handler';

/**
 * GET /catalog/hierarchies/{hierarchy_id}/nodes: every node below a hierarchy in the catalog the shopper's
 * context selects, in document order, paginated, as nodes; `filter=in(id,...)` keeps the named ones, in
 * the order they were last updated. Any token of the store.
 */
export const handler = createHandler(
  'list-hierarchy-nodes',
  { prefetch: prefetchRegistry },
  async (event) => {
    const store = event.auth.store;
    const { channel, tag } = shopperHeaders(event.headers, event.auth.store);
    const page = parsePageRequest(event.queryStringParameters, { defaultLimit: store.page_length });
    const filterText = queryParameter(event, 'filter');
    const filter = parseNodeFilter(filterText);
    const id = pathParameter(event, 'hierarchy_id');
    const result = await listNodeList(
      { storeId: store.id, channel, tag },
      id,
      'descendants',
      'hierarchy',
      page,
      filter,
    );
    return jsonText(
      200,
      nodePageJson(`/catalog/hierarchies/${id}/nodes`, { filter: filterText }, page, result),
    );
  },
);
