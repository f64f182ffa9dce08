import { type PageRequest, pageLinks, pageMeta, pageUrl } from '../pagination/index';
import type { JobErrorRecord, JobRecord } from '../store/job-repository';

/**
 * The platform's job (`type: "pim-job"`) as `GET /pcm/jobs/{id}` answers it: `attributes` with the job's
 * type, status and times (`started_at` and `completed_at` null until they happen), `meta` with the id of
 * the request that created it and the job type's own public meta.
 */
export function renderJob(job: JobRecord) {
  return {
    id: job.id,
    type: 'pim-job',
    attributes: {
      type: job.type,
      status: job.status,
      created_at: job.created_at,
      updated_at: job.updated_at,
      started_at: job.started_at,
      completed_at: job.completed_at,
    },
    meta: { ...job.meta, x_request_id: job.request_id },
  };
}

/** A page of jobs: `data`, `links`, `meta.page` and `meta.results.total`, as the product list answers. */
export function renderJobPage(jobs: JobRecord[], total: number, page: PageRequest, base: string) {
  return {
    data: jobs.map(renderJob),
    links: pageLinks(page, total, (offset, limit) => pageUrl(base, offset, limit)),
    meta: { page: pageMeta(page, total), results: { total } },
  };
}

/** One error of a job: `{type: "pim-job-error", id, attributes: {message}}`, `meta` the line and column it names. */
export function renderJobError(error: JobErrorRecord) {
  const meta = {
    ...(error.line === undefined ? {} : { line: error.line }),
    ...(error.column === undefined ? {} : { column: error.column }),
  };
  return {
    type: 'pim-job-error',
    id: error.id,
    attributes: { message: error.message },
    ...(Object.keys(meta).length > 0 ? { meta } : {}),
  };
}

export function renderJobErrorPage(errors: JobErrorRecord[], total: number, page: PageRequest, base: string) {
  return {
    data: errors.map(renderJobError),
    links: pageLinks(page, total, (offset, limit) => pageUrl(base, offset, limit)),
    meta: { page: pageMeta(page, total), results: { total } },
  };
}
