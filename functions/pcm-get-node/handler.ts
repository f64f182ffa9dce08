import { ok } from '../../lib/http/response';
import { nodeAtRoute, nodeDocument } from '../../lib/nodes/service';
import { createHandler } from '../create-handler';
import { PCM_GET_NODE } from '../routes';

/** GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}: one node of the hierarchy. */
export const handler = createHandler('pcm-get-node', PCM_GET_NODE, {}, async (event) => {
  const { storeId, hierarchy, node } = await nodeAtRoute(event);
  return ok(await nodeDocument(storeId, hierarchy, node));
});
