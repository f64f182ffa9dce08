import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { deletePrice } from '../../lib/prices/service';
import { parseEntryId } from '../../lib/validation/price';
import { parsePricebookId } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_DELETE_PRICE } from '../routes';

/** DELETE /pcm/pricebooks/{pricebook_id}/prices/{price_id}: deletes a price (204), freeing its sku. */
export const handler = createHandler('pcm-delete-price', PCM_DELETE_PRICE, {}, async (event) => {
  const pricebookId = parsePricebookId(pathParameter(event, 'pricebook_id'));
  const id = parseEntryId(pathParameter(event, 'price_id'), 'price');
  await asWriteCaller(event, (caller) => deletePrice(event.auth.storeId, pricebookId, id, caller));
  return noContent();
});
