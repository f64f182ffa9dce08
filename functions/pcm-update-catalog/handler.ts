import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { renderCatalog } from '../../lib/pcm/render';
import { updateCatalog } from '../../lib/pcm/service';
import { parseCatalogUpdate, parsePcmId } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';
import { PCM_UPDATE_CATALOG } from '../routes';

/** PUT /pcm/catalogs/{catalog_id}: changes the catalog's attributes (its next release shows the name). */
export const handler = createHandler('pcm-update-catalog', PCM_UPDATE_CATALOG, {}, async (event) => {
  const catalogId = parsePcmId(pathParameter(event, 'catalog_id'));
  const changes = parseCatalogUpdate(event.parsedBody, catalogId);
  const catalog = await asWriteCaller(event, (caller) =>
    updateCatalog(event.auth.storeId, catalogId, changes, caller),
  );
  return ok({ data: renderCatalog(catalog, requestOrigin(event)) });
});
