import { renderHierarchy } from '../../lib/hierarchies/render';
import { updateHierarchy } from '../../lib/hierarchies/service';
import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseHierarchyId, parseHierarchyUpdate } from '../../lib/validation/hierarchy';
import { createHandler } from '../create-handler';
import { PCM_UPDATE_HIERARCHY } from '../routes';

/** PUT /pcm/hierarchies/{hierarchy_id}: changes the attributes sent (`data.id` names the hierarchy). */
export const handler = createHandler('pcm-update-hierarchy', PCM_UPDATE_HIERARCHY, {}, async (event) => {
  const hierarchyId = parseHierarchyId(pathParameter(event, 'hierarchy_id'));
  const changes = parseHierarchyUpdate(event.parsedBody, hierarchyId);
  const hierarchy = await asWriteCaller(event, (caller) =>
    updateHierarchy(event.auth.storeId, hierarchyId, changes, caller),
  );
  return ok({ data: renderHierarchy(hierarchy) });
});
