import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { renderIntegration } from '../../lib/integrations/render';
import { integrationOf } from '../../lib/integrations/service';
import { parseIntegrationId } from '../../lib/validation/integration';
import { createHandler } from '../create-handler';
import { GET_INTEGRATION } from '../routes';

/** GET /v2/integrations/{integration_id}: one integration of the token's store; 404 for any other id. */
export const handler = createHandler('get-integration', GET_INTEGRATION, {}, async (event) => {
  const integrationId = parseIntegrationId(pathParameter(event, 'integration_id'));
  const integration = await integrationOf(event.auth.storeId, integrationId);
  return ok({ data: renderIntegration(integration, requestOrigin(event)) });
});
