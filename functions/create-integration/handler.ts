import { requestOrigin } from '../../lib/http/request';
import { json } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { integrationUrl, renderIntegration } from '../../lib/integrations/render';
import { createIntegration } from '../../lib/integrations/service';
import { parseNewIntegration } from '../../lib/validation/integration';
import { createHandler } from '../create-handler';
import { CREATE_INTEGRATION } from '../routes';

/** POST /v2/integrations: creates a webhook integration (200, as the platform answers; its URL checked first). */
export const handler = createHandler('create-integration', CREATE_INTEGRATION, {}, async (event) => {
  const fields = parseNewIntegration(event.parsedBody);
  const origin = requestOrigin(event);
  const integration = await asWriteCaller(event, (caller) =>
    createIntegration(event.auth.storeId, fields, origin, caller),
  );
  return json(
    200,
    { data: renderIntegration(integration, origin) },
    { Location: integrationUrl(origin, integration.id) },
  );
});
