import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { renderModifierDocument } from '../../lib/prices/render';
import { updateModifier } from '../../lib/prices/service';
import { parseEntryId, parsePriceModifierUpdate } from '../../lib/validation/price';
import { parsePricebookId } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_UPDATE_PRICE_MODIFIER } from '../routes';

/** PUT /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}: changes only the attributes sent. */
export const handler = createHandler(
  'pcm-update-price-modifier',
  PCM_UPDATE_PRICE_MODIFIER,
  {},
  async (event) => {
    const pricebookId = parsePricebookId(pathParameter(event, 'pricebook_id'));
    const id = parseEntryId(pathParameter(event, 'modifier_id'), 'price modifier');
    const changes = parsePriceModifierUpdate(event.parsedBody, id);
    const modifier = await asWriteCaller(event, (caller) =>
      updateModifier(event.auth.storeId, pricebookId, id, changes, caller),
    );
    return ok(renderModifierDocument(requestOrigin(event), pricebookId, modifier));
  },
);
