import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { renderPriceDocument } from '../../lib/prices/render';
import { priceOf } from '../../lib/prices/service';
import { parseEntryId } from '../../lib/validation/price';
import { parsePricebookId } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_GET_PRICE } from '../routes';

/** GET /pcm/pricebooks/{pricebook_id}/prices/{price_id}: one price of a book of the store. */
export const handler = createHandler('pcm-get-price', PCM_GET_PRICE, {}, async (event) => {
  const pricebookId = parsePricebookId(pathParameter(event, 'pricebook_id'));
  const id = parseEntryId(pathParameter(event, 'price_id'), 'price');
  const price = await priceOf(event.auth.storeId, pricebookId, id);
  return ok(renderPriceDocument(requestOrigin(event), pricebookId, price));
});
