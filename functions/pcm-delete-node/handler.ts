import { NotFoundError } from '../../lib/http/errors';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { deleteSubtrees, nodeTree } from '../../lib/nodes/delete';
import { hierarchyAndNodeBeside } from '../../lib/nodes/service';
import { createHandler } from '../create-handler';
import { PCM_DELETE_NODE } from '../routes';

/** DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}: the node and its descendants; products stay. */
export const handler = createHandler('pcm-delete-node', PCM_DELETE_NODE, {}, async (event) => {
  // The hierarchy's tree is read beside the route's hierarchy and node (404 for either first).
  const { storeId, hierarchy, node, beside } = await hierarchyAndNodeBeside(event, (hierarchyId) =>
    nodeTree(event.auth.storeId, hierarchyId),
  );
  if (!node) throw new NotFoundError('node not found');
  await asWriteCaller(event, (caller) => deleteSubtrees(storeId, hierarchy.id, [node.id], caller, beside));
  return noContent();
});
