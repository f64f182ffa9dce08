import { renderCurrency } from '../../lib/currencies/render';
import { updateCurrency } from '../../lib/currencies/service';
import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseCurrencyId, parseCurrencyUpdate } from '../../lib/validation/currency';
import { createHandler } from '../create-handler';
import { UPDATE_CURRENCY } from '../routes';

/** PUT /v2/currencies/{currency_id}: changes the fields sent; `default: true` makes it the default. */
export const handler = createHandler('update-currency', UPDATE_CURRENCY, {}, async (event) => {
  const currencyId = parseCurrencyId(pathParameter(event, 'currency_id'));
  const changes = parseCurrencyUpdate(event.parsedBody, currencyId);
  const currency = await asWriteCaller(event, (caller) =>
    updateCurrency(event.auth.storeId, currencyId, changes, caller),
  );
  return ok({ data: renderCurrency(currency, requestOrigin(event)) });
});
