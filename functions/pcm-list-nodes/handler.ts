import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { nodeRoute, renderNodePage } from '../../lib/nodes/service';
import { parsePageRequest } from '../../lib/pagination/index';
import { nodeRepository } from '../../lib/store/node-repository';
import { createHandler } from '../create-handler';
import { PCM_LIST_NODES } from '../routes';

/** GET /pcm/hierarchies/{hierarchy_id}/nodes: every node of the hierarchy, whatever its depth, oldest first. */
export const handler = createHandler('pcm-list-nodes', PCM_LIST_NODES, {}, async (event) => {
  const { storeId, hierarchy } = await nodeRoute(event);
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const slice = await nodeRepository.page(storeId, hierarchy.id, page);
  const base = `${requestOrigin(event)}/pcm/hierarchies/${hierarchy.id}/nodes`;
  return ok(await renderNodePage(storeId, hierarchy, slice, page, base));
});
