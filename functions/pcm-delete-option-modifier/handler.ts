import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseVariationId } from '../../lib/validation/variation';
import { deleteModifier } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_DELETE_OPTION_MODIFIER } from '../routes';

/** DELETE …/options/{option_id}/modifiers/{modifier_id}: deletes the modifier. */
export const handler = createHandler(
  'pcm-delete-option-modifier',
  PCM_DELETE_OPTION_MODIFIER,
  {},
  async (event) => {
    const key = {
      variationId: parseVariationId(pathParameter(event, 'variation_id')),
      optionId: parseVariationId(pathParameter(event, 'option_id')),
      modifierId: parseVariationId(pathParameter(event, 'modifier_id')),
    };
    await asWriteCaller(event, (caller) => deleteModifier(event.auth.storeId, key, caller));
    return noContent();
  },
);
