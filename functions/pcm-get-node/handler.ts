import { ok } from '../../lib/http/response';
import { nodeDocument, nodeOf, nodeRoute } from '../../lib/nodes/service';
import { createHandler } from '../create-handler';

/** GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}: one node of the hierarchy. */
export const handler = createHandler('pcm-get-node', {}, async (event) => {
  const { storeId, hierarchy, nodeId } = await nodeRoute(event);
  return ok(await nodeDocument(storeId, hierarchy, await nodeOf(storeId, hierarchy.id, nodeId)));
});
