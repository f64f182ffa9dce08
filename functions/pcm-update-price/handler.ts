import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { renderPriceDocument } from '../../lib/prices/render';
import { updatePrice } from '../../lib/prices/service';
import { parseEntryId, parsePriceUpdate } from '../../lib/validation/price';
import { parsePricebookId } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_UPDATE_PRICE } from '../routes';

/** PUT /pcm/pricebooks/{pricebook_id}/prices/{price_id}: changes only the attributes sent. */
export const handler = createHandler('pcm-update-price', PCM_UPDATE_PRICE, {}, async (event) => {
  const pricebookId = parsePricebookId(pathParameter(event, 'pricebook_id'));
  const id = parseEntryId(pathParameter(event, 'price_id'), 'price');
  const changes = parsePriceUpdate(event.parsedBody, id);
  const price = await asWriteCaller(event, (caller) =>
    updatePrice(event.auth.storeId, pricebookId, id, changes, caller),
  );
  return ok(renderPriceDocument(requestOrigin(event), pricebookId, price));
});
