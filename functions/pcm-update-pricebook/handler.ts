import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { renderPricebookDocument } from '../../lib/pricebooks/render';
import { updatePricebook } from '../../lib/pricebooks/service';
import { parsePricebookId, parsePricebookUpdate } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_UPDATE_PRICEBOOK } from '../routes';

/** PUT /pcm/pricebooks/{pricebook_id}: changes only the attributes sent. */
export const handler = createHandler('pcm-update-pricebook', PCM_UPDATE_PRICEBOOK, {}, async (event) => {
  const id = parsePricebookId(pathParameter(event, 'pricebook_id'));
  const changes = parsePricebookUpdate(event.parsedBody, id);
  const book = await asWriteCaller(event, (caller) =>
    updatePricebook(event.auth.storeId, id, changes, caller),
  );
  return ok(renderPricebookDocument(book, requestOrigin(event)));
});
