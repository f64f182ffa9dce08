import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { integrationUrl, renderIntegrationLog } from '../../lib/integrations/render';
import { jobLogs } from '../../lib/integrations/service';
import { parsePageRequest, renderPage } from '../../lib/pagination/index';
import { parseIntegrationId, parseIntegrationJobId } from '../../lib/validation/integration';
import { createHandler } from '../create-handler';
import { GET_INTEGRATION_JOB_LOGS } from '../routes';

/** GET /v2/integrations/{integration_id}/jobs/{job_id}/logs: the attempts of one delivery, newest first. */
export const handler = createHandler(
  'get-integration-job-logs',
  GET_INTEGRATION_JOB_LOGS,
  {},
  async (event) => {
    const integrationId = parseIntegrationId(pathParameter(event, 'integration_id'));
    const jobId = parseIntegrationJobId(pathParameter(event, 'job_id'));
    const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
    const logs = await jobLogs(event.auth.storeId, integrationId, jobId);
    const base = `${integrationUrl(requestOrigin(event), integrationId)}/jobs/${jobId}/logs`;
    return ok(renderPage(logs, page, base, renderIntegrationLog));
  },
);
