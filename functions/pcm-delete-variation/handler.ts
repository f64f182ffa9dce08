import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseVariationId } from '../../lib/validation/variation';
import { deleteVariation } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_DELETE_VARIATION } from '../routes';

/** DELETE /pcm/variations/{variation_id}: deletes the variation, its options and their modifiers. */
export const handler = createHandler('pcm-delete-variation', PCM_DELETE_VARIATION, {}, async (event) => {
  const variationId = parseVariationId(pathParameter(event, 'variation_id'));
  await asWriteCaller(event, (caller) => deleteVariation(event.auth.storeId, variationId, caller));
  return noContent();
});
