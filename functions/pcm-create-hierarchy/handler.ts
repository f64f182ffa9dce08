import { renderHierarchy } from '../../lib/hierarchies/render';
import { createHierarchy } from '../../lib/hierarchies/service';
import { created } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseNewHierarchy } from '../../lib/validation/hierarchy';
import { createHandler } from '../create-handler';
import { PCM_CREATE_HIERARCHY } from '../routes';

/** POST /pcm/hierarchies: a new hierarchy, without nodes (its slug unique in the store). */
export const handler = createHandler('pcm-create-hierarchy', PCM_CREATE_HIERARCHY, {}, async (event) => {
  const attributes = parseNewHierarchy(event.parsedBody);
  const hierarchy = await asWriteCaller(event, (caller) =>
    createHierarchy(event.auth.storeId, attributes, caller),
  );
  return created({ data: renderHierarchy(hierarchy) });
});
