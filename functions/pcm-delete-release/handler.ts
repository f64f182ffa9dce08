import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { emitReleasesDeleted } from '../../lib/integrations/events';
import { deleteRelease, reclaimDeleted } from '../../lib/pcm/service';
import { parsePcmId } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';
import { PCM_DELETE_RELEASE } from '../routes';

/**
 * DELETE /pcm/catalogs/{catalog_id}/releases/{release_id}: a release that is not being published; the current
 * one's catalog rolls back to the published release before it, or is unpublished when there is none.
 */
export const handler = createHandler('pcm-delete-release', PCM_DELETE_RELEASE, {}, async (event) => {
  const catalogId = parsePcmId(pathParameter(event, 'catalog_id'));
  const releaseId = parsePcmId(pathParameter(event, 'release_id'));
  await asWriteCaller(event, (caller) => deleteRelease(event.auth.storeId, catalogId, releaseId, caller));
  // The events and the reclaim of what no reader can hold any more, at once.
  await Promise.all([
    emitReleasesDeleted(event.auth.storeId, [releaseId]),
    reclaimDeleted(event.auth.storeId, catalogId),
  ]);
  return noContent();
});
