import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest, renderPage } from '../../lib/pagination/index';
import { parseVariationId } from '../../lib/validation/variation';
import { renderModifier } from '../../lib/variations/render';
import { modifiersOf } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_LIST_OPTION_MODIFIERS } from '../routes';

/** GET …/options/{option_id}/modifiers: the option's modifiers, oldest first, paginated. */
export const handler = createHandler(
  'pcm-list-option-modifiers',
  PCM_LIST_OPTION_MODIFIERS,
  {},
  async (event) => {
    const variationId = parseVariationId(pathParameter(event, 'variation_id'));
    const optionId = parseVariationId(pathParameter(event, 'option_id'));
    const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
    const modifiers = await modifiersOf(event.auth.storeId, variationId, optionId);
    const base = `${requestOrigin(event)}/pcm/variations/${variationId}/options/${optionId}/modifiers`;
    return ok(renderPage(modifiers, page, base, renderModifier));
  },
);
