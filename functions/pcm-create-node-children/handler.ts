import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { addChildren, hierarchyNodeAndLinks, nodeDocument } from '../../lib/nodes/service';
import { parseNodeChildren } from '../../lib/validation/node';
import { createHandler } from '../create-handler';
import { PCM_CREATE_NODE_CHILDREN } from '../routes';

/**
 * POST /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/children: moves the nodes listed under
 * this one (a `meta.sort_order` given replaces theirs); 200 with the parent.
 */
export const handler = createHandler(
  'pcm-create-node-children',
  PCM_CREATE_NODE_CHILDREN,
  {},
  async (event) => {
    // The hierarchy's links (the parent's 404, the children) are read with the route.
    const { storeId, hierarchy, nodeId, links } = await hierarchyNodeAndLinks(event);
    const children = parseNodeChildren(event.parsedBody);
    const parent = await asWriteCaller(event, (caller) =>
      addChildren(storeId, hierarchy.id, nodeId, children, caller, links),
    );
    return ok(await nodeDocument(storeId, hierarchy, parent));
  },
);
