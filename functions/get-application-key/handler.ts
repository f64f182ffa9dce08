import { renderApplicationKeyDocument } from '../../lib/application-keys/render';
import { NotFoundError } from '../../lib/http/errors';
import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { parseApplicationKeyId } from '../../lib/validation/application-key';
import { createHandler } from '../create-handler';
import { GET_APPLICATION_KEY } from '../routes';

/** GET /v2/application-keys/{id}: one key of the token's store; 404 for any other id. */
export const handler = createHandler('get-application-key', GET_APPLICATION_KEY, {}, async (event) => {
  const keyId = parseApplicationKeyId(pathParameter(event, 'id'));
  const key = await applicationKeyRepository.get(event.auth.storeId, keyId, true);
  if (!key) throw new NotFoundError();
  return ok(renderApplicationKeyDocument(key, requestOrigin(event)));
});
