import { APPLICATION_KEYS_DEFAULT_LIMIT, renderApplicationKeyList } from '../../lib/application-keys/render';
import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest } from '../../lib/pagination/index';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { createHandler } from '../create-handler';

/** GET /v2/application-keys (seed 4.1): a page of the token's store's keys with the store's totals. */
export const handler = createHandler('list-application-keys', {}, async (event) => {
  const page = parsePageRequest(event.queryStringParameters, {
    defaultLimit: APPLICATION_KEYS_DEFAULT_LIMIT,
  });
  const keys = await applicationKeyRepository.list(event.auth.storeId, page);
  return ok(renderApplicationKeyList(keys, page, requestOrigin(event)));
});
