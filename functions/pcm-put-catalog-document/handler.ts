import { BadRequestError } from '../../lib/http/errors';
import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { putDocument } from '../../lib/pcm/publishing';
import { renderCatalog } from '../../lib/pcm/render';
import { parsePcmId } from '../../lib/validation/pcm-catalog';
import { createHandler } from '../create-handler';
import { PCM_PUT_CATALOG_DOCUMENT } from '../routes';

/**
 * PUT /pcm/catalogs/{catalog_id}/document: the release document (JSON, up to 5 MB) the catalog's next
 * release publishes, stored as sent in the documents bucket. It is validated when a release is created.
 */
export const handler = createHandler(
  'pcm-put-catalog-document',
  PCM_PUT_CATALOG_DOCUMENT,
  {},
  async (event) => {
    const catalogId = parsePcmId(pathParameter(event, 'catalog_id'));
    const bytes = event.parsedBody;
    if (!(bytes instanceof Uint8Array)) throw new BadRequestError('the release document is required', 'body');
    const catalog = await asWriteCaller(event, (caller) =>
      putDocument(event.auth.storeId, catalogId, bytes, caller),
    );
    return ok({ data: renderCatalog(catalog, requestOrigin(event)) });
  },
);
