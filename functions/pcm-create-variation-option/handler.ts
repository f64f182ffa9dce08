import { pathParameter } from '../../lib/http/request';
import { created } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseNewOption, parseVariationId } from '../../lib/validation/variation';
import { renderOption } from '../../lib/variations/render';
import { createOption } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_CREATE_VARIATION_OPTION } from '../routes';

/** POST /pcm/variations/{variation_id}/options: a new option of the variation (404 when it is gone). */
export const handler = createHandler(
  'pcm-create-variation-option',
  PCM_CREATE_VARIATION_OPTION,
  {},
  async (event) => {
    const variationId = parseVariationId(pathParameter(event, 'variation_id'));
    const attributes = parseNewOption(event.parsedBody);
    const option = await asWriteCaller(event, (caller) =>
      createOption(event.auth.storeId, variationId, attributes, caller),
    );
    return created({ data: renderOption(option, []) });
  },
);
