import { ConflictError, NotFoundError, ServiceUnavailableError } from '../http/errors';
import { errorFields, log } from '../http/log';
import { isUuid, uuidv7 } from '../ids';
import { countMetric, METRIC } from '../metrics/index';
import type { PageRequest } from '../pagination/index';
import type { WriteCaller } from '../store/caller-check';
import { besideParent } from '../store/items';
import { type JobErrorRecord, type JobRecord, type JobType, jobRepository } from '../store/job-repository';
import { sendJobMessage } from './queue';

/** What the job's errors list says when its message could not be queued. */
export const NOT_QUEUED_MESSAGE = 'the job could not be queued: nothing was done; send the request again';

/**
 * The one way to start asynchronous work: writes the job (`pending`), then sends its queue message (group:
 * the store, so a store's jobs run one at a time in creation order; deduplication: the job id). The job is
 * written first so the worker always finds it. When the send fails, the job is marked `failed` with an
 * error saying it was not queued, and the request answers 503 (retry): no job stays `pending` with no
 * message behind it. Should marking it fail too (DynamoDB unavailable right after it took the write), the
 * job is logged and counted (`JobsNotQueued`, an alarm of the stack); it can still be cancelled.
 */
export async function enqueueJob(
  storeId: string,
  type: JobType,
  meta: Record<string, unknown>,
  requestId: string,
  options: { input?: Record<string, unknown>; caller?: WriteCaller } = {},
): Promise<JobRecord> {
  const at = new Date().toISOString();
  const job: JobRecord = {
    id: uuidv7(),
    type,
    status: 'pending',
    created_at: at,
    updated_at: at,
    started_at: null,
    completed_at: null,
    request_id: requestId,
    meta,
    input: options.input ?? {},
    attempts: 0,
    error_count: 0,
  };
  await jobRepository.create(storeId, job, options.caller);
  try {
    await sendJobMessage({ store_id: storeId, job_id: job.id });
  } catch (error) {
    countMetric(METRIC.jobsNotQueued);
    log('error', 'job not queued', { job_id: job.id, store_id: storeId, error: errorFields(error) });
    try {
      await failJob(storeId, job.id, ['pending'], [{ id: uuidv7(), message: NOT_QUEUED_MESSAGE }]);
    } catch (marking) {
      log('error', 'job left pending: not queued, and could not be marked failed', {
        job_id: job.id,
        store_id: storeId,
        error: errorFields(marking),
      });
    }
    throw new ServiceUnavailableError('the job could not be queued; nothing was done: retry the request', 5);
  }
  return job;
}

/** Records `errors` and moves the job from one of `from` to `failed`: the job, or undefined when it was not in `from`. */
export async function failJob(
  storeId: string,
  jobId: string,
  from: readonly JobRecord['status'][],
  errors: JobErrorRecord[],
): Promise<JobRecord | undefined> {
  await jobRepository.putErrors(storeId, jobId, errors);
  return jobRepository.transition(storeId, jobId, from, {
    status: 'failed',
    completed_at: new Date().toISOString(),
    error_count: errors.length,
  });
}

/** A job id from a path: anything but a UUID is 404 before DynamoDB is asked. */
export function parseJobId(raw: string): string {
  if (!isUuid(raw)) throw new NotFoundError('job not found');
  return raw.toLowerCase();
}

/** The store's job, or 404 (another store's job too). */
export async function jobOf(storeId: string, jobId: string): Promise<JobRecord> {
  const job = await jobRepository.get(storeId, jobId);
  if (!job) throw new NotFoundError('job not found');
  return job;
}

export function listJobs(storeId: string, page: PageRequest) {
  return jobRepository.page(storeId, page);
}

/** The job's errors (404 for a job the store does not have). */
export async function jobErrorsOf(storeId: string, jobId: string, page: PageRequest) {
  return besideParent(jobOf(storeId, jobId), jobRepository.errorsPage(storeId, jobId, page));
}

/**
 * Cancels a pending job (the worker then skips it): 409 for a job that started or ended, since its work
 * is under way or done. Cancelling a cancelled job answers it as it is.
 */
export async function cancelJob(storeId: string, jobId: string, caller: WriteCaller): Promise<JobRecord> {
  const cancelled = await jobRepository.cancel(storeId, jobId, new Date().toISOString(), caller);
  const job = await jobOf(storeId, jobId);
  if (cancelled || job.status === 'cancelled') return job;
  throw new ConflictError(
    `only a pending job can be cancelled; this one is ${job.status}${job.status === 'started' ? ': it is running' : ''}`,
  );
}
