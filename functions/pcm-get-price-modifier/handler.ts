import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { renderModifierDocument } from '../../lib/prices/render';
import { modifierOf } from '../../lib/prices/service';
import { parseEntryId } from '../../lib/validation/price';
import { parsePricebookId } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_GET_PRICE_MODIFIER } from '../routes';

/** GET /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}: one price modifier of a book of the store. */
export const handler = createHandler('pcm-get-price-modifier', PCM_GET_PRICE_MODIFIER, {}, async (event) => {
  const pricebookId = parsePricebookId(pathParameter(event, 'pricebook_id'));
  const id = parseEntryId(pathParameter(event, 'modifier_id'), 'price modifier');
  const modifier = await modifierOf(event.auth.storeId, pricebookId, id);
  return ok(renderModifierDocument(requestOrigin(event), pricebookId, modifier));
});
