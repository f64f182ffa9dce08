import { runProductImport } from '../products/import';
import type { JobType } from '../store/job-repository';
import type { JobRunner } from './outcome';

export * from './outcome';

/** Every job type's runner; a job of a type without one fails, saying so. */
export const JOB_RUNNERS: Partial<Record<JobType, JobRunner>> = {
  'product-import': runProductImport,
};
