import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { renderMapping, updateMappingPrefix } from '../../lib/merchant-realm-mappings/service';
import { parseMappingUpdate } from '../../lib/validation/merchant-realm-mapping';
import { createHandler } from '../create-handler';

/** PUT /v2/merchant-realm-mappings/{mapping_id}: sets the store's unique prefix. */
export const handler = createHandler('update-merchant-realm-mapping', {}, async (event) => {
  const request = parseMappingUpdate(event.parsedBody);
  const mapping = await updateMappingPrefix(event.auth, pathParameter(event, 'mapping_id'), request);
  return ok({ data: renderMapping(mapping) });
});
