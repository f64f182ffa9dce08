import { NotFoundError } from '../../lib/http/errors';
import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { renderCatalog } from '../../lib/pcm/render';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { parsePcmId } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';
import { PCM_GET_CATALOG } from '../routes';

/** GET /pcm/catalogs/{catalog_id}: one catalog of the token's store; 404 for any other id. */
export const handler = createHandler('pcm-get-catalog', PCM_GET_CATALOG, {}, async (event) => {
  const catalogId = parsePcmId(pathParameter(event, 'catalog_id'));
  const catalog = await pcmRepository.getCatalog(event.auth.storeId, catalogId);
  if (!catalog) throw new NotFoundError('catalog not found');
  return ok({ data: renderCatalog(catalog, requestOrigin(event)) });
});
