import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { childrenPage, listBesideRoute, nodeAtRoute, renderNodePage } from '../../lib/nodes/service';
import { createHandler } from '../create-handler';
import { PCM_LIST_NODE_CHILDREN } from '../routes';

/** GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/children: a node's children, highest sort_order first. */
export const handler = createHandler('pcm-list-node-children', PCM_LIST_NODE_CHILDREN, {}, async (event) => {
  const { storeId, hierarchy, node, page, slice } = await listBesideRoute(
    event,
    nodeAtRoute(event),
    (ids, page) => childrenPage(event.auth.storeId, ids.hierarchyId, ids.nodeId, page),
  );
  const nodeId = node.id;
  const base = `${requestOrigin(event)}/pcm/hierarchies/${hierarchy.id}/nodes/${nodeId}/children`;
  return ok(await renderNodePage(storeId, hierarchy, slice, page, base));
});
