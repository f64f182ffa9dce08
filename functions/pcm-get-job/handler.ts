import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { renderJob } from '../../lib/jobs/render';
import { jobOf, parseJobId } from '../../lib/jobs/service';
import { createHandler } from '../create-handler';
import { PCM_GET_JOB } from '../routes';

/** GET /pcm/jobs/{job_id}: one job of the token's store (404 for another store's). */
export const handler = createHandler('pcm-get-job', PCM_GET_JOB, {}, async (event) => {
  const job = await jobOf(event.auth.storeId, parseJobId(pathParameter(event, 'job_id')));
  return ok({ data: renderJob(job) });
});
