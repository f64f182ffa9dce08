import { pathParameter, requestOrigin } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { renderJobErrorPage } from '../../lib/jobs/render';
import { jobErrorsOf, parseJobId } from '../../lib/jobs/service';
import { parsePageRequest } from '../../lib/pagination/index';
import { createHandler } from '../create-handler';
import { PCM_GET_JOB_ERRORS } from '../routes';

/** GET /pcm/jobs/{job_id}/errors: the job's errors (`pim-job-error`), in the order recorded, paginated. */
export const handler = createHandler('pcm-get-job-errors', PCM_GET_JOB_ERRORS, {}, async (event) => {
  const jobId = parseJobId(pathParameter(event, 'job_id'));
  const page = parsePageRequest(event.queryStringParameters, { defaultLimit: 25 });
  const { errors, total } = await jobErrorsOf(event.auth.storeId, jobId, page);
  return ok(renderJobErrorPage(errors, total, page, `${requestOrigin(event)}/pcm/jobs/${jobId}/errors`));
});
