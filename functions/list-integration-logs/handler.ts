import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { integrationUrl, renderIntegrationLog } from '../../lib/integrations/render';
import { integrationLogs } from '../../lib/integrations/service';
import { parsePageRequest, renderPage } from '../../lib/pagination/index';
import { parseIntegrationId } from '../../lib/validation/integration';
import { createHandler } from '../create-handler';
import { LIST_INTEGRATION_LOGS } from '../routes';

/** GET /v2/integrations/{integration_id}/logs: the integration's delivery attempts, newest first. */
export const handler = createHandler('list-integration-logs', LIST_INTEGRATION_LOGS, {}, async (event) => {
  const integrationId = parseIntegrationId(pathParameter(event, 'integration_id'));
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const logs = await integrationLogs(event.auth.storeId, integrationId);
  const base = `${integrationUrl(requestOrigin(event), integrationId)}/logs`;
  return ok(renderPage(logs, page, base, renderIntegrationLog));
});
