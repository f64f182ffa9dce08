import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest, renderPage } from '../../lib/pagination/index';
import { variationRepository } from '../../lib/store/variation-repository';
import { renderVariation } from '../../lib/variations/render';
import { createHandler } from '../create-handler';
import { PCM_LIST_VARIATIONS } from '../routes';

/** GET /pcm/variations: the store's variations with their options, oldest first, paginated. */
export const handler = createHandler('pcm-list-variations', PCM_LIST_VARIATIONS, {}, async (event) => {
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const variations = await variationRepository.listVariations(event.auth.storeId);
  return ok(renderPage(variations, page, `${requestOrigin(event)}/pcm/variations`, renderVariation));
});
