import { renderCurrency } from '../../lib/currencies/render';
import { currencyOf } from '../../lib/currencies/service';
import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parseCurrencyId } from '../../lib/validation/currency';
import { createHandler } from '../create-handler';
import { GET_CURRENCY } from '../routes';

/** GET /v2/currencies/{currency_id}: one currency of the token's store; 404 for any other id. */
export const handler = createHandler('get-currency', GET_CURRENCY, {}, async (event) => {
  const currencyId = parseCurrencyId(pathParameter(event, 'currency_id'));
  const currency = await currencyOf(event.auth.storeId, currencyId);
  return ok({ data: renderCurrency(currency, requestOrigin(event)) });
});
