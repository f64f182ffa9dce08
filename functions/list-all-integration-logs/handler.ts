import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { renderIntegrationLog } from '../../lib/integrations/render';
import { storeLogs } from '../../lib/integrations/service';
import { parsePageRequest, renderPage } from '../../lib/pagination/index';
import { createHandler } from '../create-handler';
import { LIST_ALL_INTEGRATION_LOGS } from '../routes';

/** GET /v2/integrations/logs: the delivery attempts of every integration of the store, newest first. */
export const handler = createHandler(
  'list-all-integration-logs',
  LIST_ALL_INTEGRATION_LOGS,
  {},
  async (event) => {
    const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
    const logs = await storeLogs(event.auth.storeId);
    return ok(renderPage(logs, page, `${requestOrigin(event)}/v2/integrations/logs`, renderIntegrationLog));
  },
);
