import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { renderMapping, updateMappingPrefix } from '../../lib/merchant-realm-mappings/service';
import { parseMappingUpdate } from '../../lib/validation/merchant-realm-mapping';
import { createHandler } from '../create-handler';
import { UPDATE_MERCHANT_REALM_MAPPING } from '../routes';

/** PUT /v2/merchant-realm-mappings/{mapping_id}: sets the store's unique prefix. */
export const handler = createHandler(
  'update-merchant-realm-mapping',
  UPDATE_MERCHANT_REALM_MAPPING,
  {},
  async (event) => {
    const request = parseMappingUpdate(event.parsedBody);
    const mappingId = pathParameter(event, 'mapping_id');
    const mapping = await asWriteCaller(event, (caller) =>
      updateMappingPrefix(event.auth, mappingId, request, caller),
    );
    return ok({ data: renderMapping(mapping) });
  },
);
