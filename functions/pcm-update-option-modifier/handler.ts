import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseModifierUpdate, parseVariationId } from '../../lib/validation/variation';
import { renderModifier } from '../../lib/variations/render';
import { updateModifier } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_UPDATE_OPTION_MODIFIER } from '../routes';

/** PUT …/options/{option_id}/modifiers/{modifier_id}: replaces the modifier's type and value fields. */
export const handler = createHandler(
  'pcm-update-option-modifier',
  PCM_UPDATE_OPTION_MODIFIER,
  {},
  async (event) => {
    const key = {
      variationId: parseVariationId(pathParameter(event, 'variation_id')),
      optionId: parseVariationId(pathParameter(event, 'option_id')),
      modifierId: parseVariationId(pathParameter(event, 'modifier_id')),
    };
    const definition = parseModifierUpdate(event.parsedBody, key.modifierId);
    const modifier = await asWriteCaller(event, (caller) =>
      updateModifier(event.auth.storeId, key, definition, caller),
    );
    return ok({ data: renderModifier(modifier) });
  },
);
