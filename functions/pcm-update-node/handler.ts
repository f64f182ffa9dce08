import { NotFoundError } from '../../lib/http/errors';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { hierarchyAndNode, nodeDocument, updateNode } from '../../lib/nodes/service';
import { parseNodeUpdate } from '../../lib/validation/node';
import { createHandler } from '../create-handler';
import { PCM_UPDATE_NODE } from '../routes';

/** PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}: changes what is sent (`data.id` names the node). */
export const handler = createHandler('pcm-update-node', PCM_UPDATE_NODE, {}, async (event) => {
  // The node is read with the hierarchy, but a body's errors come before its 404.
  const { storeId, hierarchy, nodeId, node: before } = await hierarchyAndNode(event);
  const update = parseNodeUpdate(event.parsedBody, nodeId);
  if (!before) throw new NotFoundError('node not found');
  const node = await asWriteCaller(event, (caller) =>
    updateNode(storeId, hierarchy.id, nodeId, update, caller, before),
  );
  return ok(await nodeDocument(storeId, hierarchy, node));
});
