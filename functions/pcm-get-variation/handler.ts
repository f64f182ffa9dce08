import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parseVariationId } from '../../lib/validation/variation';
import { renderVariation } from '../../lib/variations/render';
import { variationOf } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_GET_VARIATION } from '../routes';

/** GET /pcm/variations/{variation_id}: one variation with its options in `meta.options`. */
export const handler = createHandler('pcm-get-variation', PCM_GET_VARIATION, {}, async (event) => {
  const variationId = parseVariationId(pathParameter(event, 'variation_id'));
  return ok({ data: renderVariation(await variationOf(event.auth.storeId, variationId)) });
});
