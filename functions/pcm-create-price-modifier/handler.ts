import { pathParameter, requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { modifierUrl, renderModifierDocument } from '../../lib/prices/render';
import { createModifier } from '../../lib/prices/service';
import { parseNewPriceModifier } from '../../lib/validation/price';
import { parsePricebookId } from '../../lib/validation/pricebook';
import { createHandler } from '../create-handler';
import { PCM_CREATE_PRICE_MODIFIER } from '../routes';

/** POST /pcm/pricebooks/{pricebook_id}/modifiers: creates a price modifier (its name unique in the book). */
export const handler = createHandler(
  'pcm-create-price-modifier',
  PCM_CREATE_PRICE_MODIFIER,
  {},
  async (event) => {
    const pricebookId = parsePricebookId(pathParameter(event, 'pricebook_id'));
    const attributes = parseNewPriceModifier(event.parsedBody);
    const modifier = await asWriteCaller(event, (caller) =>
      createModifier(event.auth.storeId, pricebookId, attributes, caller),
    );
    const origin = requestOrigin(event);
    return json(201, renderModifierDocument(origin, pricebookId, modifier), {
      Location: modifierUrl(origin, pricebookId, modifier.id),
    });
  },
);
