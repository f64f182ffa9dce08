import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { deleteReleases } from '../../lib/pcm/service';
import { parsePcmId } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';

/**
 * DELETE /pcm/catalogs/{catalog_id}/releases: every release of the catalog but the current one (which
 * serves shoppers until another replaces it) and one being published.
 */
export const handler = createHandler('pcm-delete-releases', {}, async (event) => {
  const catalogId = parsePcmId(pathParameter(event, 'catalog_id'));
  await asWriteCaller(event, (caller) => deleteReleases(event.auth.storeId, catalogId, caller));
  return noContent();
});
