import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { hierarchyNodeAndLinks, moveNode } from '../../lib/nodes/service';
import { createHandler } from '../create-handler';
import { PCM_DELETE_NODE_PARENT } from '../routes';

/**
 * DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent: the node goes back to the top
 * level (a child of the hierarchy itself), its subtree along; 204.
 */
export const handler = createHandler('pcm-delete-node-parent', PCM_DELETE_NODE_PARENT, {}, async (event) => {
  // The node and the hierarchy's links are read with the route.
  const { storeId, hierarchy, nodeId, node, links } = await hierarchyNodeAndLinks(event);
  await asWriteCaller(event, (caller) =>
    moveNode(storeId, hierarchy.id, nodeId, null, undefined, caller, undefined, links, node),
  );
  return noContent();
});
