import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { deleteSubtrees } from '../../lib/nodes/delete';
import { nodeAtRoute } from '../../lib/nodes/service';
import { createHandler } from '../create-handler';
import { PCM_DELETE_NODE } from '../routes';

/** DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}: the node and its descendants; products stay. */
export const handler = createHandler('pcm-delete-node', PCM_DELETE_NODE, {}, async (event) => {
  const { storeId, hierarchy, node } = await nodeAtRoute(event);
  await asWriteCaller(event, (caller) => deleteSubtrees(storeId, hierarchy.id, [node.id], caller));
  return noContent();
});
