import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { deleteModifier } from '../../lib/prices/service';
import { parseEntryId } from '../../lib/validation/price';
import { parsePricebookId } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_DELETE_PRICE_MODIFIER } from '../routes';

/** DELETE /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}: deletes a price modifier, freeing its name. */
export const handler = createHandler(
  'pcm-delete-price-modifier',
  PCM_DELETE_PRICE_MODIFIER,
  {},
  async (event) => {
    const pricebookId = parsePricebookId(pathParameter(event, 'pricebook_id'));
    const id = parseEntryId(pathParameter(event, 'modifier_id'), 'price modifier');
    await asWriteCaller(event, (caller) => deleteModifier(event.auth.storeId, pricebookId, id, caller));
    return noContent();
  },
);
