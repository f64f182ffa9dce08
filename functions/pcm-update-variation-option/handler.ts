import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseOptionUpdate, parseVariationId } from '../../lib/validation/variation';
import { renderOption } from '../../lib/variations/render';
import { optionWithModifiers, updateOption } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_UPDATE_VARIATION_OPTION } from '../routes';

/** PUT /pcm/variations/{variation_id}/options/{option_id}: changes name, description or sort_order. */
export const handler = createHandler(
  'pcm-update-variation-option',
  PCM_UPDATE_VARIATION_OPTION,
  {},
  async (event) => {
    const variationId = parseVariationId(pathParameter(event, 'variation_id'));
    const optionId = parseVariationId(pathParameter(event, 'option_id'));
    const changes = parseOptionUpdate(event.parsedBody, optionId);
    const storeId = event.auth.storeId;
    await asWriteCaller(event, (caller) => updateOption(storeId, variationId, optionId, changes, caller));
    const { option, modifiers } = await optionWithModifiers(storeId, variationId, optionId);
    return ok({ data: renderOption(option, modifiers) });
  },
);
