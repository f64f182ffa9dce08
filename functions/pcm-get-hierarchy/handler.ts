import { renderHierarchy } from '../../lib/hierarchies/render';
import { hierarchyOf } from '../../lib/hierarchies/service';
import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parseHierarchyId } from '../../lib/validation/hierarchy';
import { createHandler } from '../create-handler';
import { PCM_GET_HIERARCHY } from '../routes';

/** GET /pcm/hierarchies/{hierarchy_id}: one hierarchy of the store. */
export const handler = createHandler('pcm-get-hierarchy', PCM_GET_HIERARCHY, {}, async (event) => {
  const hierarchyId = parseHierarchyId(pathParameter(event, 'hierarchy_id'));
  return ok({ data: renderHierarchy(await hierarchyOf(event.auth.storeId, hierarchyId)) });
});
