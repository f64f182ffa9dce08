import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { deletePricebook } from '../../lib/pricebooks/service';
import { parsePricebookId } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_DELETE_PRICEBOOK } from '../routes';

/** DELETE /pcm/pricebooks/{pricebook_id}: deletes a price book of the store (204), freeing its name. */
export const handler = createHandler('pcm-delete-pricebook', PCM_DELETE_PRICEBOOK, {}, async (event) => {
  const id = parsePricebookId(pathParameter(event, 'pricebook_id'));
  await asWriteCaller(event, (caller) => deletePricebook(event.auth.storeId, id, caller));
  return noContent();
});
