import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { childrenPage, listBesideRoute, nodeRoute, renderNodePage } from '../../lib/nodes/service';
import { createHandler } from '../create-handler';
import { PCM_LIST_HIERARCHY_CHILDREN } from '../routes';

/** GET /pcm/hierarchies/{hierarchy_id}/children: the top-level nodes, highest sort_order first. */
export const handler = createHandler(
  'pcm-list-hierarchy-children',
  PCM_LIST_HIERARCHY_CHILDREN,
  {},
  async (event) => {
    const { storeId, hierarchy, page, slice } = await listBesideRoute(event, nodeRoute(event), (ids, page) =>
      childrenPage(event.auth.storeId, ids.hierarchyId, null, page),
    );
    const base = `${requestOrigin(event)}/pcm/hierarchies/${hierarchy.id}/children`;
    return ok(await renderNodePage(storeId, hierarchy, slice, page, base));
  },
);
