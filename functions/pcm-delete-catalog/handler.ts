import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { deleteCatalog } from '../../lib/pcm/service';
import { parsePcmId } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';

/** DELETE /pcm/catalogs/{catalog_id}: deletes a catalog without releases (409 while it has any). */
export const handler = createHandler('pcm-delete-catalog', {}, async (event) => {
  const catalogId = parsePcmId(pathParameter(event, 'catalog_id'));
  await asWriteCaller(event, (caller) => deleteCatalog(event.auth.storeId, catalogId, caller));
  return noContent();
});
