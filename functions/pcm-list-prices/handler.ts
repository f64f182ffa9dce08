import { pathParameter, queryParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest, renderFilteredPage } from '../../lib/pagination/index';
import { pricebookUrl } from '../../lib/pricebooks/render';
import { BOOK_PRICE_FILTER, parseEntryFilter } from '../../lib/prices/filter';
import { renderPrice } from '../../lib/prices/render';
import { listPrices } from '../../lib/prices/service';
import { parsePricebookId } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_LIST_PRICES } from '../routes';

/** GET /pcm/pricebooks/{pricebook_id}/prices: a page of the book's prices, oldest first, filtered. */
export const handler = createHandler('pcm-list-prices', PCM_LIST_PRICES, {}, async (event) => {
  const pricebookId = parsePricebookId(pathParameter(event, 'pricebook_id'));
  const text = queryParameter(event, 'filter');
  const filter = parseEntryFilter(text, BOOK_PRICE_FILTER);
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const { prices, total } = await listPrices(event.auth.storeId, pricebookId, page, filter);
  const base = `${pricebookUrl(requestOrigin(event), pricebookId)}/prices`;
  return ok(renderFilteredPage(prices, total, page, base, text, (price) => renderPrice(pricebookId, price)));
});
