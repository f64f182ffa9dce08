import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parseVariationId } from '../../lib/validation/variation';
import { renderModifier } from '../../lib/variations/render';
import { modifierOf } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_GET_OPTION_MODIFIER } from '../routes';

/** GET …/options/{option_id}/modifiers/{modifier_id}: one modifier. */
export const handler = createHandler(
  'pcm-get-option-modifier',
  PCM_GET_OPTION_MODIFIER,
  {},
  async (event) => {
    const variationId = parseVariationId(pathParameter(event, 'variation_id'));
    const optionId = parseVariationId(pathParameter(event, 'option_id'));
    const modifierId = parseVariationId(pathParameter(event, 'modifier_id'));
    const modifier = await modifierOf(event.auth.storeId, variationId, optionId, modifierId);
    return ok({ data: renderModifier(modifier) });
  },
);
