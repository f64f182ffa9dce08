import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { childrenPage, nodeRoute, renderNodePage } from '../../lib/nodes/service';
import { parsePageRequest } from '../../lib/pagination/index';
import { createHandler } from '../create-handler';
import { PCM_LIST_HIERARCHY_CHILDREN } from '../routes';

/** GET /pcm/hierarchies/{hierarchy_id}/children: the top-level nodes, highest sort_order first. */
export const handler = createHandler(
  'pcm-list-hierarchy-children',
  PCM_LIST_HIERARCHY_CHILDREN,
  {},
  async (event) => {
    const { storeId, hierarchy } = await nodeRoute(event);
    const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
    const slice = await childrenPage(storeId, hierarchy.id, null, page);
    const base = `${requestOrigin(event)}/pcm/hierarchies/${hierarchy.id}/children`;
    return ok(await renderNodePage(storeId, hierarchy, slice, page, base));
  },
);
