import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest, renderPageOf } from '../../lib/pagination/index';
import { renderPricebook } from '../../lib/pricebooks/render';
import { refuseUnservedParameters } from '../../lib/pricebooks/service';
import { pricebookRepository } from '../../lib/store/pricebook-repository';
import { createHandler } from '../create-handler';
import { PCM_LIST_PRICEBOOKS } from '../routes';

/** GET /pcm/pricebooks: a page of the store's price books, oldest first, with the total. */
export const handler = createHandler('pcm-list-pricebooks', PCM_LIST_PRICEBOOKS, {}, async (event) => {
  refuseUnservedParameters(event.queryStringParameters);
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const { pricebooks, total } = await pricebookRepository.page(event.auth.storeId, page);
  return ok(renderPageOf(pricebooks, total, page, `${requestOrigin(event)}/pcm/pricebooks`, renderPricebook));
});
