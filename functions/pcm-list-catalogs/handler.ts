import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest } from '../../lib/pagination/index';
import { renderCatalog, renderPage } from '../../lib/pcm/render';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { createHandler } from '../create-handler';

/** GET /pcm/catalogs: the store's catalogs, oldest first, paginated. */
export const handler = createHandler('pcm-list-catalogs', {}, async (event) => {
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const origin = requestOrigin(event);
  const catalogs = await pcmRepository.listCatalogs(event.auth.storeId);
  return ok(
    renderPage(catalogs, page, `${origin}/pcm/catalogs`, (catalog) => renderCatalog(catalog, origin)),
  );
});
