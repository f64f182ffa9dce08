import { pathParameter } from '../../lib/http/request';
import { ok } from '../../lib/http/response';
import { asWriteCaller } from '../../lib/http/write-caller';
import { renderJob } from '../../lib/jobs/render';
import { cancelJob, parseJobId } from '../../lib/jobs/service';
import { createHandler } from '../create-handler';
import { PCM_CANCEL_JOB } from '../routes';

/** POST /pcm/jobs/{job_id}/cancel: a pending job becomes `cancelled` (200); 409 once it started or ended. */
export const handler = createHandler('pcm-cancel-job', PCM_CANCEL_JOB, {}, async (event) => {
  const jobId = parseJobId(pathParameter(event, 'job_id'));
  const job = await asWriteCaller(event, (caller) => cancelJob(event.auth.storeId, jobId, caller));
  return ok({ data: renderJob(job) });
});
