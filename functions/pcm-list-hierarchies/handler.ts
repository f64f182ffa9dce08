import { renderHierarchy } from '../../lib/hierarchies/render';
import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest, renderPageOf } from '../../lib/pagination/index';
import { hierarchyRepository } from '../../lib/store/hierarchy-repository';
import { createHandler } from '../create-handler';
import { PCM_LIST_HIERARCHIES } from '../routes';

/** GET /pcm/hierarchies: the store's hierarchies, oldest first, paginated. */
export const handler = createHandler('pcm-list-hierarchies', PCM_LIST_HIERARCHIES, {}, async (event) => {
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const { hierarchies, total } = await hierarchyRepository.page(event.auth.storeId, page);
  const base = `${requestOrigin(event)}/pcm/hierarchies`;
  return ok(renderPageOf(hierarchies, total, page, base, renderHierarchy));
});
