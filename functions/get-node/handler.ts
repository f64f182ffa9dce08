import { prefetchRegistry } from '../../lib/catalog/cache';
import { shopperHeaders } from '../../lib/catalog/child-list-response';
import { getNode, rejectFilter } from '../../lib/catalog/nodes';
import { pathParameter, queryParameter } from '../../lib/http/request';
import { jsonText } from '../../lib/http/response';
import { createHandler } from '../create-handler';
import { GET_NODE } from '../routes';

/** GET /catalog/nodes/{node_id}: one node of the catalog the shopper's context selects (404 when it has none by that id). Any token of the store. */
export const handler = createHandler('get-node', GET_NODE, { prefetch: prefetchRegistry }, async (event) => {
  const store = event.auth.store;
  const { channel, tag } = shopperHeaders(event.headers, event.auth.store);
  rejectFilter(queryParameter(event, 'filter'));
  const json = await getNode({ storeId: store.id, channel, tag }, pathParameter(event, 'node_id'), 'node');
  return jsonText(200, `{"data":${json}}`);
});
