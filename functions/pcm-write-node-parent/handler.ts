import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { hierarchyNodeAndLinks, moveNode } from '../../lib/nodes/service';
import { parseNodeParent } from '../../lib/validation/node';
import { createHandler } from '../create-handler';
import { PCM_WRITE_NODE_PARENT } from '../routes';

/**
 * PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent (`{data: {type: "node", id}}`):
 * the node moves under that node, its subtree along; 204.
 */
export const handler = createHandler('pcm-write-node-parent', PCM_WRITE_NODE_PARENT, {}, async (event) => {
  // The node and the hierarchy's links are read with the route (the node's 404 comes after the body's 400).
  const { storeId, hierarchy, nodeId, node, links } = await hierarchyNodeAndLinks(event);
  const parentId = parseNodeParent(event.parsedBody);
  await asWriteCaller(event, (caller) =>
    moveNode(storeId, hierarchy.id, nodeId, parentId, undefined, caller, undefined, links, node),
  );
  return noContent();
});
