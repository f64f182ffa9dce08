import { queryParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest, renderFilteredPage } from '../../lib/pagination/index';
import { ALL_PRICES_FILTER, parseEntryFilter } from '../../lib/prices/filter';
import { renderPrice } from '../../lib/prices/render';
import { listAllPrices } from '../../lib/prices/service';
import { createHandler } from '../create-handler';
import { PCM_LIST_ALL_PRICES } from '../routes';

/** GET /pcm/pricebooks/prices: a page of the prices of every book of the store, filtered. */
export const handler = createHandler('pcm-list-all-prices', PCM_LIST_ALL_PRICES, {}, async (event) => {
  const text = queryParameter(event, 'filter');
  const filter = parseEntryFilter(text, ALL_PRICES_FILTER);
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const { prices, total } = await listAllPrices(event.auth.storeId, page, filter);
  const base = `${requestOrigin(event)}/pcm/pricebooks/prices`;
  return ok(
    renderFilteredPage(prices, total, page, base, text, ({ book, price }) =>
      renderPrice(book.id, price, book.external_ref),
    ),
  );
});
