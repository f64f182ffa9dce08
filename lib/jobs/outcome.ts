import type { JobRecord } from '../store/job-repository';

/** An error a job reports: what is wrong, and the line and column of its input it names, if any. */
export interface JobError {
  message: string;
  line?: number;
  column?: string;
}

/** What a run of a job ended with: no errors is `success`, any is `failed`. */
export interface JobOutcome {
  /** The errors to record, at most MAX_RECORDED_ERRORS (the runner keeps the first ones). */
  errors: JobError[];
  /** How many errors there were in all, when more than `errors` holds. */
  errorCount?: number;
}

/** What a runner is given besides its job. */
export interface JobContext {
  storeId: string;
  /** The worker's request id (its logs' `function_request_id`). */
  requestId: string;
  /** Milliseconds left before the worker's invocation times out. */
  remainingMs(): number;
}

/**
 * A job type's work. A run may be retried after a crash (a worker that timed out or failed mid-run): the
 * retry runs it again from the start, so a runner must be safe to run twice (creates keyed so that a
 * second run finds and updates what the first created).
 */
export type JobRunner = (job: JobRecord, context: JobContext) => Promise<JobOutcome>;

/** Errors recorded per job: past it the last one says how many more there were. */
export const MAX_RECORDED_ERRORS = 1000;

/**
 * Keeps a run's first MAX_RECORDED_ERRORS errors and counts the rest, so a file whose every row is wrong
 * costs a bounded memory and a bounded number of writes.
 */
export class JobErrorList {
  private readonly kept: JobError[] = [];
  count = 0;

  add(error: JobError): void {
    this.count += 1;
    if (this.kept.length < MAX_RECORDED_ERRORS) this.kept.push(error);
  }

  outcome(): JobOutcome {
    return { errors: [...this.kept], ...(this.count > this.kept.length ? { errorCount: this.count } : {}) };
  }
}
