import { deleteCurrency } from '../../lib/currencies/service';
import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseCurrencyId } from '../../lib/validation/currency';
import { createHandler } from '../create-handler';
import { DELETE_CURRENCY } from '../routes';

/** DELETE /v2/currencies/{currency_id}: deletes a currency that is not the default (204). */
export const handler = createHandler('delete-currency', DELETE_CURRENCY, {}, async (event) => {
  const currencyId = parseCurrencyId(pathParameter(event, 'currency_id'));
  await asWriteCaller(event, (caller) => deleteCurrency(event.auth.storeId, currencyId, caller));
  return noContent();
});
