import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { deleteCatalogWithObjects } from '../../lib/pcm/publishing';
import { parsePcmId } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';
import { PCM_DELETE_CATALOG } from '../routes';

/** DELETE /pcm/catalogs/{catalog_id}: deletes a catalog without releases (409 while it has any), and its documents. */
export const handler = createHandler('pcm-delete-catalog', PCM_DELETE_CATALOG, {}, async (event) => {
  const catalogId = parsePcmId(pathParameter(event, 'catalog_id'));
  await asWriteCaller(event, (caller) => deleteCatalogWithObjects(event.auth.storeId, catalogId, caller));
  return noContent();
});
