import { created, ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { attachProducts, detachProducts, hierarchyAndNode, nodeDocument } from '../../lib/nodes/service';
import { parseNodeProducts } from '../../lib/validation/node';
import { createHandler } from '../create-handler';
import { PCM_WRITE_NODE_PRODUCTS } from '../routes';

/**
 * POST (attach; 201) and DELETE (detach; 200) /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products:
 * `{data: [{type: "product", id}]}`, answered with the node.
 */
export const handler = createHandler(
  'pcm-write-node-products',
  PCM_WRITE_NODE_PRODUCTS,
  {},
  async (event) => {
    // The node is read with the hierarchy (absent: the write answers 404 after the body's errors).
    const { storeId, hierarchy, nodeId, node: read } = await hierarchyAndNode(event);
    const productIds = parseNodeProducts(event.parsedBody);
    const attach = event.requestContext.http.method === 'POST';
    const write = attach ? attachProducts : detachProducts;
    const node = await asWriteCaller(event, (caller) =>
      write(storeId, hierarchy.id, nodeId, productIds, caller, read),
    );
    const body = await nodeDocument(storeId, hierarchy, node);
    return attach ? created(body) : ok(body);
  },
);
