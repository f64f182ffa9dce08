import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { deleteSubtrees } from '../../lib/nodes/delete';
import { nodeOf, nodeRoute } from '../../lib/nodes/service';
import { createHandler } from '../create-handler';

/** DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}: the node and its descendants; products stay. */
export const handler = createHandler('pcm-delete-node', {}, async (event) => {
  const { storeId, hierarchy, nodeId } = await nodeRoute(event);
  await nodeOf(storeId, hierarchy.id, nodeId);
  await asWriteCaller(event, (caller) => deleteSubtrees(storeId, hierarchy.id, [nodeId], caller));
  return noContent();
});
