import { pathParameter } from '../../lib/http/request';
import { created } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseNewModifier, parseVariationId } from '../../lib/validation/variation';
import { renderModifier } from '../../lib/variations/render';
import { createModifier } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_CREATE_OPTION_MODIFIER } from '../routes';

/** POST …/options/{option_id}/modifiers: a new modifier, its value checked against its type. */
export const handler = createHandler(
  'pcm-create-option-modifier',
  PCM_CREATE_OPTION_MODIFIER,
  {},
  async (event) => {
    const variationId = parseVariationId(pathParameter(event, 'variation_id'));
    const optionId = parseVariationId(pathParameter(event, 'option_id'));
    const definition = parseNewModifier(event.parsedBody);
    const modifier = await asWriteCaller(event, (caller) =>
      createModifier(event.auth.storeId, variationId, optionId, definition, caller),
    );
    return created({ data: renderModifier(modifier) });
  },
);
