import { parseKeyFilter, planKeyFilter } from '../../lib/application-keys/filter';
import { APPLICATION_KEYS_DEFAULT_LIMIT, renderApplicationKeyList } from '../../lib/application-keys/render';
import { queryParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { parsePageRequest } from '../../lib/pagination/index';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { createHandler } from '../create-handler';
import { LIST_APPLICATION_KEYS } from '../routes';

/**
 * GET /v2/application-keys: a page of the token's store's keys with the store's totals;
 * `filter` (`eq`/`in` on name and client_id) narrows the list and its count.
 */
export const handler = createHandler('list-application-keys', LIST_APPLICATION_KEYS, {}, async (event) => {
  const page = parsePageRequest(event.queryStringParameters, {
    defaultLimit: APPLICATION_KEYS_DEFAULT_LIMIT,
  });
  const filter = queryParameter(event, 'filter');
  const plan = filter === undefined ? undefined : planKeyFilter(parseKeyFilter(filter));
  const keys =
    plan === undefined
      ? await applicationKeyRepository.list(event.auth.storeId, page)
      : await applicationKeyRepository.listMatching(event.auth.storeId, plan, page);
  return ok(renderApplicationKeyList(keys, page, requestOrigin(event), filter));
});
