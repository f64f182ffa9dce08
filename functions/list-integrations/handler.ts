import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { renderIntegration } from '../../lib/integrations/render';
import { parsePageRequest, renderPage } from '../../lib/pagination/index';
import { integrationRepository } from '../../lib/store/integration-repository';
import { createHandler } from '../create-handler';
import { LIST_INTEGRATIONS } from '../routes';

/** GET /v2/integrations: the store's integrations (at most 25), oldest first, paginated. */
export const handler = createHandler('list-integrations', LIST_INTEGRATIONS, {}, async (event) => {
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const integrations = await integrationRepository.list(event.auth.storeId);
  const origin = requestOrigin(event);
  return ok(
    renderPage(integrations, page, `${origin}/v2/integrations`, (each) => renderIntegration(each, origin)),
  );
});
