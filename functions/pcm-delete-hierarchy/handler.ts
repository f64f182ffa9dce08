import { deleteHierarchy } from '../../lib/hierarchies/service';
import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { parseHierarchyId } from '../../lib/validation/hierarchy';
import { createHandler } from '../create-handler';
import { PCM_DELETE_HIERARCHY } from '../routes';

/** DELETE /pcm/hierarchies/{hierarchy_id}: deletes the hierarchy, freeing its slug. */
export const handler = createHandler('pcm-delete-hierarchy', PCM_DELETE_HIERARCHY, {}, async (event) => {
  const hierarchyId = parseHierarchyId(pathParameter(event, 'hierarchy_id'));
  await asWriteCaller(event, (caller) => deleteHierarchy(event.auth.storeId, hierarchyId, caller));
  return noContent();
});
