import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { emitReleasesDeleted } from '../../lib/integrations/events';
import { deleteRelease } from '../../lib/pcm/service';
import { parsePcmId } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';

/**
 * DELETE /pcm/catalogs/{catalog_id}/releases/{release_id}: a release that is not being published; the current
 * one's catalog rolls back to the published release before it, or is unpublished when there is none.
 */
export const handler = createHandler('pcm-delete-release', {}, async (event) => {
  const catalogId = parsePcmId(pathParameter(event, 'catalog_id'));
  const releaseId = parsePcmId(pathParameter(event, 'release_id'));
  await asWriteCaller(event, (caller) => deleteRelease(event.auth.storeId, catalogId, releaseId, caller));
  await emitReleasesDeleted(event.auth.storeId, [releaseId]);
  return noContent();
});
