import { currencyUrl, renderCurrency } from '../../lib/currencies/render';
import { createCurrency } from '../../lib/currencies/service';
import { requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseNewCurrency } from '../../lib/validation/currency';
import { createHandler } from '../create-handler';
import { CREATE_CURRENCY } from '../routes';

/** POST /v2/currencies: adds a currency to the store (at most 10; its first is the default). */
export const handler = createHandler('create-currency', CREATE_CURRENCY, {}, async (event) => {
  const fields = parseNewCurrency(event.parsedBody);
  const currency = await asWriteCaller(event, (caller) => createCurrency(event.auth.storeId, fields, caller));
  const origin = requestOrigin(event);
  return json(
    201,
    { data: renderCurrency(currency, origin) },
    { Location: currencyUrl(origin, currency.id) },
  );
});
