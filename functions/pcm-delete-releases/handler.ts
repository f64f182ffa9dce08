import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { emitReleasesDeleted } from '../../lib/integrations/events';
import { deleteReleases, reclaimDeleted } from '../../lib/pcm/service';
import { parsePcmId } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';
import { PCM_DELETE_RELEASES } from '../routes';

/**
 * DELETE /pcm/catalogs/{catalog_id}/releases: every release of the catalog but one being published, which
 * unpublishes the catalog (shoppers get what the store's other catalogs and rules give them).
 */
export const handler = createHandler('pcm-delete-releases', PCM_DELETE_RELEASES, {}, async (event) => {
  const catalogId = parsePcmId(pathParameter(event, 'catalog_id'));
  const deleted = await asWriteCaller(event, (caller) =>
    deleteReleases(event.auth.storeId, catalogId, caller),
  );
  // The events and the reclaim of what no reader can hold any more, at once.
  await Promise.all([
    emitReleasesDeleted(event.auth.storeId, deleted),
    reclaimDeleted(event.auth.storeId, catalogId),
  ]);
  return noContent();
});
