import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseVariationId, parseVariationUpdate } from '../../lib/validation/variation';
import { renderVariation } from '../../lib/variations/render';
import { updateVariation } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_UPDATE_VARIATION } from '../routes';

/** PUT /pcm/variations/{variation_id}: changes the name or sort_order (null removes it). */
export const handler = createHandler('pcm-update-variation', PCM_UPDATE_VARIATION, {}, async (event) => {
  const variationId = parseVariationId(pathParameter(event, 'variation_id'));
  const changes = parseVariationUpdate(event.parsedBody, variationId);
  const variation = await asWriteCaller(event, (caller) =>
    updateVariation(event.auth.storeId, variationId, changes, caller),
  );
  return ok({ data: renderVariation(variation) });
});
