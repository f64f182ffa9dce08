import { created } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { createNode, nodeDocument, nodeRoute } from '../../lib/nodes/service';
import { parseNewNode } from '../../lib/validation/node';
import { createHandler } from '../create-handler';
import { PCM_CREATE_NODE } from '../routes';

/** POST /pcm/hierarchies/{hierarchy_id}/nodes: a new node, under `data.relationships.parent` or the hierarchy. */
export const handler = createHandler('pcm-create-node', PCM_CREATE_NODE, {}, async (event) => {
  const { storeId, hierarchy } = await nodeRoute(event);
  const input = parseNewNode(event.parsedBody);
  const node = await asWriteCaller(event, (caller) => createNode(storeId, hierarchy, input, caller));
  return created(await nodeDocument(storeId, hierarchy, node));
});
