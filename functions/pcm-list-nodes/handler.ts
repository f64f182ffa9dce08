import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { listBesideRoute, nodeRoute, renderNodePage } from '../../lib/nodes/service';
import { nodeRepository } from '../../lib/store/node-repository';
import { createHandler } from '../create-handler';
import { PCM_LIST_NODES } from '../routes';

/** GET /pcm/hierarchies/{hierarchy_id}/nodes: every node of the hierarchy, whatever its depth, oldest first. */
export const handler = createHandler('pcm-list-nodes', PCM_LIST_NODES, {}, async (event) => {
  const { storeId, hierarchy, page, slice } = await listBesideRoute(event, nodeRoute(event), (ids, page) =>
    nodeRepository.page(event.auth.storeId, ids.hierarchyId, page),
  );
  const base = `${requestOrigin(event)}/pcm/hierarchies/${hierarchy.id}/nodes`;
  return ok(await renderNodePage(storeId, hierarchy, slice, page, base));
});
