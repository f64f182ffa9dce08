import { prefetchRegistry } from '../../lib/catalog/cache';
import { shopperHeaders } from '../../lib/catalog/child-list-response';
import { getNode, rejectFilter } from '../../lib/catalog/nodes';
import { pathParameter, queryParameter } from '../../lib/http/request';
import { jsonText } from '../../lib/http/response';
import { createHandler } from '../create-handler';
import { GET_HIERARCHY } from '../routes';

/** GET /catalog/hierarchies/{hierarchy_id}: one hierarchy of the catalog the shopper's context selects (404 when it has none by that id). Any token of the store. */
export const handler = createHandler(
  'get-hierarchy',
  GET_HIERARCHY,
  { prefetch: prefetchRegistry },
  async (event) => {
    const store = event.auth.store;
    const { channel, tag } = shopperHeaders(event.headers, event.auth.store);
    rejectFilter(queryParameter(event, 'filter'));
    const json = await getNode(
      { storeId: store.id, channel, tag },
      pathParameter(event, 'hierarchy_id'),
      'hierarchy',
    );
    return jsonText(200, `{"data":${json}}`);
  },
);
