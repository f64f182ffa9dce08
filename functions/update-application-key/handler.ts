import { renderApplicationKeyDocument } from '../../lib/application-keys/render';
import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { parseApplicationKeyId, parseApplicationKeyUpdate } from '../../lib/validation/application-key';
import { createHandler } from '../create-handler';
import { UPDATE_APPLICATION_KEY } from '../routes';

/** PUT /v2/application-keys/{id}: renames a key and/or changes its reserved rate limit. */
export const handler = createHandler('update-application-key', UPDATE_APPLICATION_KEY, {}, async (event) => {
  const keyId = parseApplicationKeyId(pathParameter(event, 'id'));
  const changes = parseApplicationKeyUpdate(event.parsedBody);
  const key = await asWriteCaller(event, (caller) =>
    applicationKeyRepository.update(event.auth.storeId, keyId, changes, caller),
  );
  return ok(renderApplicationKeyDocument(key, requestOrigin(event)));
});
