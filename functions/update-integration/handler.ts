import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { renderIntegration } from '../../lib/integrations/render';
import { updateIntegration } from '../../lib/integrations/service';
import { parseIntegrationId, parseIntegrationUpdate } from '../../lib/validation/integration';
import { createHandler } from '../create-handler';
import { UPDATE_INTEGRATION } from '../routes';

/** PUT /v2/integrations/{integration_id}: changes the fields sent (a new URL is checked first). */
export const handler = createHandler('update-integration', UPDATE_INTEGRATION, {}, async (event) => {
  const integrationId = parseIntegrationId(pathParameter(event, 'integration_id'));
  const changes = parseIntegrationUpdate(event.parsedBody, integrationId);
  const origin = requestOrigin(event);
  const integration = await asWriteCaller(event, (caller) =>
    updateIntegration(event.auth.storeId, integrationId, changes, origin, caller),
  );
  return ok({ data: renderIntegration(integration, origin) });
});
