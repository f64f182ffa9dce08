import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { renderPricebookDocument } from '../../lib/pricebooks/render';
import { pricebookOf, refuseUnservedParameters } from '../../lib/pricebooks/service';
import { renderPrice } from '../../lib/prices/render';
import { priceRepository } from '../../lib/store/price-repository';
import { parsePricebookId } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_GET_PRICEBOOK } from '../routes';

/** Prices `include=prices` shows: the book's first, oldest first (the rest through its price list). */
export const INCLUDED_PRICES = 100;

/**
 * GET /pcm/pricebooks/{pricebook_id}: one price book of the token's store; 404 for any other id. With
 * `include=prices`, its first INCLUDED_PRICES prices in `included` and how many it has in `meta.prices`.
 */
export const handler = createHandler('pcm-get-pricebook', PCM_GET_PRICEBOOK, {}, async (event) => {
  const withPrices = refuseUnservedParameters(event.queryStringParameters, 'prices');
  const id = parsePricebookId(pathParameter(event, 'pricebook_id'));
  const storeId = event.auth.storeId;
  const book = await pricebookOf(storeId, id);
  const document = renderPricebookDocument(book, requestOrigin(event));
  if (!withPrices) return ok(document);
  const { prices, total } = await priceRepository.pricePage(storeId, id, {
    limit: INCLUDED_PRICES,
    offset: 0,
  });
  return ok({
    ...document,
    included: prices.map((price) => renderPrice(id, price)),
    meta: { prices: { total, included: prices.length } },
  });
});
