import { requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { catalogUrl, renderCatalog } from '../../lib/pcm/render';
import { createCatalog } from '../../lib/pcm/service';
import { parseNewCatalog } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';
import { PCM_CREATE_CATALOG } from '../routes';

/** POST /pcm/catalogs: a new, empty catalog; its content is a release document (PUT …/document). */
export const handler = createHandler('pcm-create-catalog', PCM_CREATE_CATALOG, {}, async (event) => {
  const attributes = parseNewCatalog(event.parsedBody);
  const catalog = await asWriteCaller(event, (caller) =>
    createCatalog(event.auth.storeId, attributes, caller),
  );
  const origin = requestOrigin(event);
  return json(201, { data: renderCatalog(catalog, origin) }, { Location: catalogUrl(origin, catalog.id) });
});
