import { created } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseNewVariation } from '../../lib/validation/variation';
import { renderVariation } from '../../lib/variations/render';
import { createVariation } from '../../lib/variations/service';
import { createHandler } from '../create-handler';
import { PCM_CREATE_VARIATION } from '../routes';

/** POST /pcm/variations: a new variation, without options. */
export const handler = createHandler('pcm-create-variation', PCM_CREATE_VARIATION, {}, async (event) => {
  const attributes = parseNewVariation(event.parsedBody);
  const variation = await asWriteCaller(event, (caller) =>
    createVariation(event.auth.storeId, attributes, caller),
  );
  return created({ data: renderVariation(variation) });
});
