import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest, renderPage } from '../../lib/pagination/index';
import { parseVariationId } from '../../lib/validation/variation';
import { renderOption } from '../../lib/variations/render';
import { optionsOf } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_LIST_VARIATION_OPTIONS } from '../routes';

/** GET /pcm/variations/{variation_id}/options: the variation's options with their modifiers, paginated. */
export const handler = createHandler(
  'pcm-list-variation-options',
  PCM_LIST_VARIATION_OPTIONS,
  {},
  async (event) => {
    const variationId = parseVariationId(pathParameter(event, 'variation_id'));
    const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
    const options = await optionsOf(event.auth.storeId, variationId);
    const base = `${requestOrigin(event)}/pcm/variations/${variationId}/options`;
    return ok(renderPage(options, page, base, ({ option, modifiers }) => renderOption(option, modifiers)));
  },
);
