import { renderCurrency } from '../../lib/currencies/render';
import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest, renderPage } from '../../lib/pagination/index';
import { currencyRepository } from '../../lib/store/currency-repository';
import { createHandler } from '../create-handler';
import { LIST_CURRENCIES } from '../routes';

/** GET /v2/currencies: the store's currencies (at most 10), oldest first, paginated. */
export const handler = createHandler('list-currencies', LIST_CURRENCIES, {}, async (event) => {
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const currencies = await currencyRepository.list(event.auth.storeId);
  const origin = requestOrigin(event);
  return ok(
    renderPage(currencies, page, `${origin}/v2/currencies`, (currency) => renderCurrency(currency, origin)),
  );
});
