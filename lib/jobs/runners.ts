import { runChildProductsBuild } from '../builds/build';
import { runPriceImport } from '../prices/import';
import { runProductImport } from '../products/import';
import type { JobType } from '../store/job-repository';
import type { JobRunner } from './outcome';

export * from './outcome';

/** Every job type's runner; a job of a type without one fails, saying so. */
export const JOB_RUNNERS: Partial<Record<JobType, JobRunner>> = {
  // POST /pcm/products/{product_id}/build (lib/builds): the product's id is the job's input.
  'child-products': async (job, context) => ({
    errors: await runChildProductsBuild({
      storeId: context.storeId,
      productId: String(job.input.product_id),
      jobId: job.id,
    }),
  }),
  // POST /pcm/products/import (lib/products/import): the uploaded file's key is the job's input.
  'product-import': runProductImport,
  // POST /pcm/pricebooks/import (lib/prices/import): the uploaded file's key is the job's input.
  'price-import': runPriceImport,
};
