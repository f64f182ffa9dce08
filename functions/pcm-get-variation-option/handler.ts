import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parseVariationId } from '../../lib/validation/variation';
import { renderOption } from '../../lib/variations/render';
import { optionWithModifiers } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_GET_VARIATION_OPTION } from '../routes';

/** GET /pcm/variations/{variation_id}/options/{option_id}: one option, its modifiers in `meta.modifiers`. */
export const handler = createHandler(
  'pcm-get-variation-option',
  PCM_GET_VARIATION_OPTION,
  {},
  async (event) => {
    const variationId = parseVariationId(pathParameter(event, 'variation_id'));
    const optionId = parseVariationId(pathParameter(event, 'option_id'));
    const storeId = event.auth.storeId;
    const { option, modifiers } = await optionWithModifiers(storeId, variationId, optionId);
    return ok({ data: renderOption(option, modifiers) });
  },
);
