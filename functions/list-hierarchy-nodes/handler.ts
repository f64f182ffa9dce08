import { prefetchRegistry } from '../../lib/catalog/cache';
import { shopperHeaders } from '../../lib/catalog/child-list-response';
import { listNodeList, nodePageJson, rejectFilter } from '../../lib/catalog/nodes';
import { pathParameter, queryParameter } from '../../lib/http/request';
import { jsonText } from '../../lib/http/response';
import { parsePageRequest } from '../../lib/pagination/index';
import { createHandler } from '../create-handler';

/**
 * GET /catalog/hierarchies/{hierarchy_id}/nodes: every node below a hierarchy in the catalog the shopper's context selects, in document order, paginated, as nodes. Any token
 * of the store.
 */
export const handler = createHandler(
  'list-hierarchy-nodes',
  { prefetch: prefetchRegistry },
  async (event) => {
    const store = event.auth.store;
    const { channel, tag } = shopperHeaders(event.headers, event.auth.store);
    const page = parsePageRequest(event.queryStringParameters, { defaultLimit: store.page_length });
    rejectFilter(queryParameter(event, 'filter'));
    const id = pathParameter(event, 'hierarchy_id');
    const result = await listNodeList(
      { storeId: store.id, channel, tag },
      id,
      'descendants',
      'hierarchy',
      page,
    );
    return jsonText(200, nodePageJson(`/catalog/hierarchies/${id}/nodes`, {}, page, result));
  },
);
