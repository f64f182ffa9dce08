import { pathParameter, requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { emitReleaseEvent, integrationsOf } from '../../lib/integrations/events';
import { createRelease } from '../../lib/pcm/publishing';
import { releaseUrl, renderRelease } from '../../lib/pcm/render';
import { parseNewRelease, parsePcmId } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';
import { PCM_CREATE_RELEASE } from '../routes';

/**
 * POST /pcm/catalogs/{catalog_id}/releases: publishes the catalog's current document. Answers 201 at once
 * with `release_status: PENDING`; the publishing workflow moves it to IN_PROGRESS, then PUBLISHED or FAILED.
 */
export const handler = createHandler('pcm-create-release', PCM_CREATE_RELEASE, {}, async (event) => {
  const catalogId = parsePcmId(pathParameter(event, 'catalog_id'));
  const { fullDelta } = parseNewRelease(event.parsedBody);
  // The store's integrations, for the event, are read beside the release's writes (docs/webhooks.md).
  const integrations = integrationsOf(event.auth.storeId);
  const release = await asWriteCaller(event, (caller) =>
    createRelease(event.auth.storeId, catalogId, caller, { fullDelta }),
  );
  await emitReleaseEvent(
    event.auth.storeId,
    catalogId,
    release.release_id,
    'catalog-release.created',
    integrations,
  );
  const origin = requestOrigin(event);
  return json(
    201,
    { data: renderRelease(release, origin, false) },
    { Location: releaseUrl(origin, catalogId, release.release_id) },
  );
});
