import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest, renderPageOf } from '../../lib/pagination/index';
import { renderCatalog } from '../../lib/pcm/render';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { createHandler } from '../create-handler';
import { PCM_LIST_CATALOGS } from '../routes';

/** GET /pcm/catalogs: the store's catalogs, oldest first, paginated in the database. */
export const handler = createHandler('pcm-list-catalogs', PCM_LIST_CATALOGS, {}, async (event) => {
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const origin = requestOrigin(event);
  const { catalogs, total } = await pcmRepository.pageOfCatalogs(event.auth.storeId, page);
  return ok(
    renderPageOf(catalogs, total, page, `${origin}/pcm/catalogs`, (catalog) =>
      renderCatalog(catalog, origin),
    ),
  );
});
