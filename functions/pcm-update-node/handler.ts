import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { nodeDocument, nodeRoute, updateNode } from '../../lib/nodes/service';
import { parseNodeUpdate } from '../../lib/validation/node';
import { createHandler } from '../create-handler';

/** PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}: changes what is sent (`data.id` names the node). */
export const handler = createHandler('pcm-update-node', {}, async (event) => {
  const { storeId, hierarchy, nodeId } = await nodeRoute(event);
  const update = parseNodeUpdate(event.parsedBody, nodeId);
  const node = await asWriteCaller(event, (caller) =>
    updateNode(storeId, hierarchy.id, nodeId, update, caller),
  );
  return ok(await nodeDocument(storeId, hierarchy, node));
});
