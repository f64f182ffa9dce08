import { NotFoundError } from '../../lib/http/errors';
import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { isUuid } from '../../lib/ids';
import { deltaLink } from '../../lib/pcm/delta-link';
import { renderRelease } from '../../lib/pcm/render';
import { getRelease, LATEST_PUBLISHED, releaseTexts } from '../../lib/pcm/service';
import { parsePcmId } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';
import { PCM_GET_RELEASE } from '../routes';

/** GET /pcm/catalogs/{catalog_id}/releases/{release_id}: one release, or `latestPublished`. */
export const handler = createHandler('pcm-get-release', PCM_GET_RELEASE, {}, async (event) => {
  const catalogId = parsePcmId(pathParameter(event, 'catalog_id'));
  const raw = pathParameter(event, 'release_id');
  if (raw !== LATEST_PUBLISHED && !isUuid(raw)) throw new NotFoundError('release not found');
  const releaseId = raw === LATEST_PUBLISHED ? raw : raw.toLowerCase();
  const { release, current } = await getRelease(event.auth.storeId, catalogId, releaseId);
  const [texts, link] = await Promise.all([releaseTexts(release), deltaLink(release)]);
  return ok({ data: renderRelease(release, requestOrigin(event), current, texts, link) });
});
