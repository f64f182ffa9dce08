import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { renderPricebookDocument } from '../../lib/pricebooks/render';
import { pricebookOf, refuseUnservedParameters } from '../../lib/pricebooks/service';
import { parsePricebookId } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';

/** GET /pcm/pricebooks/{pricebook_id}: one price book of the token's store; 404 for any other id. */
export const handler = createHandler('pcm-get-pricebook', {}, async (event) => {
  refuseUnservedParameters(event.queryStringParameters);
  const id = parsePricebookId(pathParameter(event, 'pricebook_id'));
  return ok(renderPricebookDocument(await pricebookOf(event.auth.storeId, id), requestOrigin(event)));
});
