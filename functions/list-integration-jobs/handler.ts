import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { integrationUrl, renderIntegrationJob } from '../../lib/integrations/render';
import { integrationJobs } from '../../lib/integrations/service';
import { parsePageRequest, renderPage } from '../../lib/pagination/index';
import { parseIntegrationId } from '../../lib/validation/integration';
import { createHandler } from '../create-handler';
import { LIST_INTEGRATION_JOBS } from '../routes';

/** GET /v2/integrations/{integration_id}/jobs: the integration's deliveries (one per event), newest first. */
export const handler = createHandler('list-integration-jobs', LIST_INTEGRATION_JOBS, {}, async (event) => {
  const integrationId = parseIntegrationId(pathParameter(event, 'integration_id'));
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const jobs = await integrationJobs(event.auth.storeId, integrationId);
  const base = `${integrationUrl(requestOrigin(event), integrationId)}/jobs`;
  return ok(renderPage(jobs, page, base, renderIntegrationJob));
});
