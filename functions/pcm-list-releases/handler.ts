import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest, renderPage } from '../../lib/pagination/index';
import { deltaLink } from '../../lib/pcm/delta-link';
import { catalogUrl, renderRelease } from '../../lib/pcm/render';
import { listReleases, releaseTexts } from '../../lib/pcm/service';
import { parsePcmId } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';
import { PCM_LIST_RELEASES } from '../routes';

/** GET /pcm/catalogs/{catalog_id}/releases: the catalog's releases, newest first, paginated. */
export const handler = createHandler('pcm-list-releases', PCM_LIST_RELEASES, {}, async (event) => {
  const catalogId = parsePcmId(pathParameter(event, 'catalog_id'));
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const origin = requestOrigin(event);
  const { releases, current } = await listReleases(event.auth.storeId, catalogId);
  const [texts, links] = await Promise.all([
    Promise.all(releases.map(releaseTexts)),
    Promise.all(releases.map((release) => deltaLink(release))),
  ]);
  return ok(
    renderPage(releases, page, `${catalogUrl(origin, catalogId)}/releases`, (release) => {
      const at = releases.indexOf(release);
      return renderRelease(release, origin, release.release_id === current, texts[at], links[at]);
    }),
  );
});
