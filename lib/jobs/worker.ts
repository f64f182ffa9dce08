import { errorFields, log } from '../http/log';
import { uuidv7 } from '../ids';
import { type JobErrorRecord, type JobRecord, jobRepository } from '../store/job-repository';
import type { JobMessage } from './queue';
import {
  JOB_RUNNERS,
  type JobContext,
  type JobOutcome,
  type JobRunner,
  MAX_RECORDED_ERRORS,
} from './runners';
import { failJob } from './service';

/**
 * How many times the queue hands a job's message to the worker before it moves it to the dead-letter queue
 * (the queue's `maxReceiveCount`, infra/jobs.ts; the local queue's too). On the last receive a run that
 * crashes marks its job `failed` instead of throwing, so a job never stays `started` once its message is gone.
 */
export const MAX_RECEIVES = 3;

/** The job worker's answer for one message: what became of the job. */
export type WorkerResult = 'ran' | 'skipped' | 'missing';

/** A message body as the worker reads it: anything else is a bug of the sender, left to the dead-letter queue. */
export function parseJobMessage(body: string): JobMessage {
  const parsed = JSON.parse(body) as Partial<JobMessage>;
  if (typeof parsed.store_id !== 'string' || typeof parsed.job_id !== 'string') {
    throw new Error('a job message must be {"store_id","job_id"}');
  }
  return { store_id: parsed.store_id, job_id: parsed.job_id };
}

/** The errors as stored, with the count of those not kept said by the last one. */
function errorRecords(outcome: JobOutcome): { records: JobErrorRecord[]; count: number } {
  const records: JobErrorRecord[] = outcome.errors.slice(0, MAX_RECORDED_ERRORS).map((error) => ({
    id: uuidv7(),
    message: error.message,
    ...(error.line === undefined ? {} : { line: error.line }),
    ...(error.column === undefined ? {} : { column: error.column }),
  }));
  const count = Math.max(outcome.errorCount ?? 0, outcome.errors.length);
  if (count > records.length) {
    records.push({ id: uuidv7(), message: `${count - records.length} more errors were not recorded` });
  }
  return { records, count };
}

/**
 * Starts a run of the job: a pending job (the first delivery of its message, the usual case) in one
 * conditional write; a started one (a run before this one stopped) has that run's errors cleared. Answers
 * the job as written, or why there is none to run (what the worker's log line says).
 */
async function startRun(
  storeId: string,
  jobId: string,
): Promise<{ job: JobRecord } | { missing: true } | { skipped: Record<string, string> }> {
  const first = await jobRepository.transition(storeId, jobId, ['pending'], {
    status: 'started',
    addAttempt: true,
    started_at: new Date().toISOString(),
  });
  if (first) return { job: first };
  const found = await jobRepository.get(storeId, jobId);
  if (!found) return { missing: true };
  if (found.status !== 'started') return { skipped: { status: found.status } };
  await jobRepository.clearErrors(storeId, jobId);
  const again = await jobRepository.transition(storeId, jobId, ['started'], {
    status: 'started',
    addAttempt: true,
  });
  return again ? { job: again } : { skipped: { reason: 'its status changed' } };
}

/**
 * Runs the job a queue message names: a job that ended or was cancelled is skipped (a message delivered
 * twice runs it once); a pending job is marked `started`; a `started` job is a run that crashed being
 * retried: its errors are cleared and it runs again from the start (runners are safe to run twice). Then
 * its runner runs; its errors are recorded and the job marked `success` (none) or `failed`. A runner that
 * throws leaves the message to be retried (the error is rethrown), except on the last receive, where the
 * job is marked `failed`.
 */
export async function runJob(
  message: JobMessage,
  receiveCount: number,
  context: Omit<JobContext, 'storeId'>,
  runners: Partial<Record<JobRecord['type'], JobRunner>> = JOB_RUNNERS,
): Promise<WorkerResult> {
  const { store_id: storeId, job_id: jobId } = message;
  // The logger may still hold the context of a request the same process served (the local server runs
  // every handler in one process): the worker's lines say they belong to no request, and carry its own id.
  const ids = {
    function_request_id: null,
    function_name: null,
    function_arn: null,
    route: null,
    worker_request_id: context.requestId,
    job_id: jobId,
    store_id: storeId,
  };
  const run = await startRun(storeId, jobId);
  if ('missing' in run) {
    log('warn', 'job not found', ids);
    return 'missing';
  }
  if ('skipped' in run) {
    log('info', 'job skipped', { ...ids, ...run.skipped });
    return 'skipped';
  }
  const { job } = run;
  const runner = runners[job.type];
  let outcome: JobOutcome;
  try {
    outcome = runner
      ? await runner(job, { ...context, storeId })
      : { errors: [{ message: `jobs of type ${job.type} cannot be run here` }] };
  } catch (error) {
    log('error', 'job run failed', { ...ids, attempt: job.attempts, error: errorFields(error) });
    if (receiveCount < MAX_RECEIVES) throw error;
    await failJob(
      storeId,
      jobId,
      ['started'],
      [
        {
          id: uuidv7(),
          message: `the job stopped with an unexpected error ${receiveCount} times; quote request id ${context.requestId} when reporting it`,
        },
      ],
    );
    return 'ran';
  }
  const { records, count } = errorRecords(outcome);
  await jobRepository.putErrors(storeId, jobId, records);
  await jobRepository.transition(storeId, jobId, ['started'], {
    status: count === 0 ? 'success' : 'failed',
    completed_at: new Date().toISOString(),
    error_count: count,
  });
  log('info', 'job ran', { ...ids, type: job.type, errors: count });
  return 'ran';
}
