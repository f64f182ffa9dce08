import { applicationKeyUrl, renderCreatedApplicationKey } from '../../lib/application-keys/render';
import { requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { parseNewApplicationKey } from '../../lib/validation/application-key';
import { createHandler } from '../create-handler';
import { CREATE_APPLICATION_KEY } from '../routes';

/** POST /v2/application-keys: creates a key; the response is the only place its client secret appears. */
export const handler = createHandler('create-application-key', CREATE_APPLICATION_KEY, {}, async (event) => {
  const input = parseNewApplicationKey(event.parsedBody);
  const { key, clientSecret } = await asWriteCaller(event, (caller) =>
    applicationKeyRepository.create(event.auth.storeId, input, undefined, caller),
  );
  const origin = requestOrigin(event);
  return json(201, renderCreatedApplicationKey(key, clientSecret, origin), {
    Location: applicationKeyUrl(origin, key.id),
  });
});
