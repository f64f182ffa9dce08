import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { deleteIntegration } from '../../lib/integrations/service';
import { parseIntegrationId } from '../../lib/validation/integration';
import { createHandler } from '../create-handler';
import { DELETE_INTEGRATION } from '../routes';

/** DELETE /v2/integrations/{integration_id}: deletes an integration (200, as the platform answers). */
export const handler = createHandler('delete-integration', DELETE_INTEGRATION, {}, async (event) => {
  const integrationId = parseIntegrationId(pathParameter(event, 'integration_id'));
  await asWriteCaller(event, (caller) => deleteIntegration(event.auth.storeId, integrationId, caller));
  return ok({ data: { id: integrationId, type: 'integration' } });
});
