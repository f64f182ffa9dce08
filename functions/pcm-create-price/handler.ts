import { pathParameter, requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { priceUrl, renderPriceDocument } from '../../lib/prices/render';
import { createPrice } from '../../lib/prices/service';
import { parseNewPrice } from '../../lib/validation/price';
import { parsePricebookId } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_CREATE_PRICE } from '../routes';

/** POST /pcm/pricebooks/{pricebook_id}/prices: creates a price (one per sku in the book). */
export const handler = createHandler('pcm-create-price', PCM_CREATE_PRICE, {}, async (event) => {
  const pricebookId = parsePricebookId(pathParameter(event, 'pricebook_id'));
  const attributes = parseNewPrice(event.parsedBody);
  const price = await asWriteCaller(event, (caller) =>
    createPrice(event.auth.storeId, pricebookId, attributes, caller),
  );
  const origin = requestOrigin(event);
  return json(201, renderPriceDocument(origin, pricebookId, price), {
    Location: priceUrl(origin, pricebookId, price.id),
  });
});
