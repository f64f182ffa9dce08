import { requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { renderJobPage } from '../../lib/jobs/render';
import { listJobs } from '../../lib/jobs/service';
import { parsePageRequest } from '../../lib/pagination/index';
import { createHandler } from '../create-handler';
import { PCM_LIST_JOBS } from '../routes';

/** GET /pcm/jobs: the store's jobs, newest first, paginated, with `meta.results.total`. */
export const handler = createHandler('pcm-list-jobs', PCM_LIST_JOBS, {}, async (event) => {
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const { jobs, total } = await listJobs(event.auth.storeId, page);
  return ok(renderJobPage(jobs, total, page, `${requestOrigin(event)}/pcm/jobs`));
});
