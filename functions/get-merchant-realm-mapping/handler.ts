import { ok } from '../../lib/http/response';
import { getStoreMapping, renderMapping } from '../../lib/merchant-realm-mappings/service';
import { createHandler } from '../create-handler';
import { GET_MERCHANT_REALM_MAPPING } from '../routes';

/**
 * GET /v2/merchant-realm-mappings and GET /v2/merchant-realm-mappings/{mapping_id}: the token's
 * store's single mapping, as an object (the collection has exactly one member).
 */
export const handler = createHandler(
  'get-merchant-realm-mapping',
  GET_MERCHANT_REALM_MAPPING,
  {},
  async (event) => {
    const mappingId = event.pathParameters?.mapping_id;
    const mapping = await getStoreMapping(event.auth, mappingId ?? event.auth.store.mapping_id);
    return ok({ data: renderMapping(mapping) });
  },
);
