import { pathParameter } from '../../lib/http/request';
import { noContent } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { parseApplicationKeyId } from '../../lib/validation/application-key';
import { createHandler } from '../create-handler';
import { DELETE_APPLICATION_KEY } from '../routes';

/** DELETE /v2/application-keys/{id}: deletes a key; its credentials and tokens stop working. */
export const handler = createHandler('delete-application-key', DELETE_APPLICATION_KEY, {}, async (event) => {
  const keyId = parseApplicationKeyId(pathParameter(event, 'id'));
  await asWriteCaller(event, (caller) => applicationKeyRepository.delete(event.auth.storeId, keyId, caller));
  return noContent();
});
