import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseVariationId } from '../../lib/validation/variation';
import { deleteOption } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_DELETE_VARIATION_OPTION } from '../routes';

/** DELETE /pcm/variations/{variation_id}/options/{option_id}: deletes the option and its modifiers. */
export const handler = createHandler(
  'pcm-delete-variation-option',
  PCM_DELETE_VARIATION_OPTION,
  {},
  async (event) => {
    const variationId = parseVariationId(pathParameter(event, 'variation_id'));
    const optionId = parseVariationId(pathParameter(event, 'option_id'));
    await asWriteCaller(event, (caller) => deleteOption(event.auth.storeId, variationId, optionId, caller));
    return noContent();
  },
);
