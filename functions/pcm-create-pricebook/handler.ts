import { requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { pricebookUrl, renderPricebookDocument } from '../../lib/pricebooks/render';
import { createPricebook } from '../../lib/pricebooks/service';
import { parseNewPricebook } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_CREATE_PRICEBOOK } from '../routes';

/** POST /pcm/pricebooks: creates a price book (its name unique in the store). */
export const handler = createHandler('pcm-create-pricebook', PCM_CREATE_PRICEBOOK, {}, async (event) => {
  const attributes = parseNewPricebook(event.parsedBody);
  const book = await asWriteCaller(event, (caller) =>
    createPricebook(event.auth.storeId, attributes, caller),
  );
  const origin = requestOrigin(event);
  return json(201, renderPricebookDocument(book, origin), { Location: pricebookUrl(origin, book.id) });
});
