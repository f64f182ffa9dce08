import { handler as jobRun } from '../../functions/job-run/handler';
import { handler as cancelJobRoute } from '../../functions/pcm-cancel-job/handler';
import { handler as getJob } from '../../functions/pcm-get-job/handler';
import { handler as getJobErrors } from '../../functions/pcm-get-job-errors/handler';
import { handler as listJobs } from '../../functions/pcm-list-jobs/handler';
import { registerLocalJobQueue } from '../../lib/jobs/queue';
import { JobErrorList, type JobRunner, MAX_RECORDED_ERRORS } from '../../lib/jobs/runners';
import { enqueueJob, NOT_QUEUED_MESSAGE } from '../../lib/jobs/service';
import { MAX_RECEIVES, runJob } from '../../lib/jobs/worker';
import { getDocumentClient } from '../../lib/store/client';
import { jobRepository } from '../../lib/store/job-repository';
import { createLambdaContext } from '../../local/http-event';
import { LocalJobQueue, type LocalQueueMessage } from '../../local/job-queue';
import {
  bearer,
  createTestStore,
  invoke,
  SHARED_STORE_RATE_LIMIT,
  type TestStore,
  tokenFor,
} from '../support/fixtures';

/**
 * Jobs (docs/jobs.md) on DynamoDB Local: the routes (list, get, errors, cancel) and the worker's status
 * transitions (pending -> started -> success | failed, cancelled skipped, a crash retried then failed), run
 * through the worker's own handler with SQS-shaped events from the local queue.
 */

const HEADERS = { host: 'api.example.test', 'x-forwarded-proto': 'https' };
const CONTEXT = { requestId: 'worker-request', remainingMs: () => 60_000 };

let store: TestStore;
let token: string;
/** Messages the service sent, held here: the tests deliver them when they choose. */
let sent: LocalQueueMessage[] = [];

beforeAll(async () => {
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  token = await tokenFor(store);
});
beforeEach(() => {
  sent = [];
  registerLocalJobQueue((message) => sent.push(message));
});
afterAll(() => registerLocalJobQueue(undefined));

const storeId = () => store.store.id;
const newJob = () => enqueueJob(storeId(), 'product-import', {}, 'create-request');
const get = (id: string, as = token) =>
  invoke(getJob, {
    method: 'GET',
    path: `/pcm/jobs/${id}`,
    pathParameters: { job_id: id },
    headers: bearer(as, HEADERS),
  });
const errorsOf = (id: string, query = '') =>
  invoke(getJobErrors, {
    method: 'GET',
    path: `/pcm/jobs/${id}/errors${query}`,
    pathParameters: { job_id: id },
    headers: bearer(token, HEADERS),
  });
const cancel = (id: string, as = token) =>
  invoke(cancelJobRoute, {
    method: 'POST',
    path: `/pcm/jobs/${id}/cancel`,
    pathParameters: { job_id: id },
    headers: bearer(as, HEADERS),
  });
const runWith = (runner: JobRunner, jobId: string, receive = 1) =>
  runJob({ store_id: storeId(), job_id: jobId }, receive, CONTEXT, { 'product-import': runner });

describe('enqueueJob', () => {
  it('writes a pending job, then sends its message grouped by store and deduplicated by job id', async () => {
    const job = await newJob();
    expect(sent).toEqual([
      {
        groupId: storeId(),
        deduplicationId: job.id,
        body: JSON.stringify({ store_id: storeId(), job_id: job.id }),
      },
    ]);
    const response = await get(job.id);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      id: job.id,
      type: 'pim-job',
      attributes: {
        type: 'product-import',
        status: 'pending',
        created_at: job.created_at,
        updated_at: job.created_at,
        started_at: null,
        completed_at: null,
      },
      meta: { x_request_id: 'create-request' },
    });
  });

  it('marks the job failed, saying it was not queued, and answers 503 when the send fails', async () => {
    registerLocalJobQueue(() => {
      throw new Error('queue unavailable');
    });
    await expect(newJob()).rejects.toMatchObject({ status: 503 });
    const { jobs } = await jobRepository.page(storeId(), { limit: 1, offset: 0 });
    const job = jobs[0];
    expect(job?.status).toBe('failed');
    const errors = await errorsOf(job?.id ?? '');
    expect(errors.body.data.map((e: { attributes: { message: string } }) => e.attributes.message)).toEqual([
      NOT_QUEUED_MESSAGE,
    ]);
  });
});

describe('the worker', () => {
  it('runs a pending job: started, then success with no errors', async () => {
    const job = await newJob();
    let seen: string | undefined;
    await runWith(async (running) => {
      seen = (await jobRepository.get(storeId(), running.id))?.status;
      return { errors: [] };
    }, job.id);
    expect(seen).toBe('started');
    const { body } = await get(job.id);
    expect(body.data.attributes.status).toBe('success');
    expect(body.data.attributes.started_at).toEqual(expect.any(String));
    expect(body.data.attributes.completed_at).toEqual(expect.any(String));
    expect((await errorsOf(job.id)).body).toMatchObject({ data: [], meta: { results: { total: 0 } } });
  });

  it('starts a pending job with one conditional write, reading nothing before it', async () => {
    const job = await newJob();
    const operations: string[] = [];
    const remove = getDocumentClient().use((next) => async (operation, body) => {
      operations.push(operation);
      return next(operation, body);
    });
    let before: string[] = [];
    try {
      await runWith(async (running) => {
        before = [...operations];
        expect(running).toMatchObject({ id: job.id, status: 'started', attempts: 1 });
        return { errors: [] };
      }, job.id);
    } finally {
      remove();
    }
    expect(before).toEqual(['UpdateItem']);
    const started = await jobRepository.get(storeId(), job.id);
    expect(started).toMatchObject({ status: 'success', attempts: 1, started_at: expect.any(String) });
  });

  it('answers missing for a message whose job is gone, writing nothing', async () => {
    const id = '01a22560-0000-7000-8000-000000000000';
    expect(await runWith(async () => ({ errors: [] }), id)).toBe('missing');
    expect(await jobRepository.get(storeId(), id)).toBeUndefined();
  });

  it('marks a job with errors failed and lists them with their line and column', async () => {
    const job = await newJob();
    await runWith(
      async () => ({
        errors: [{ message: 'line 2: sku: taken', line: 2, column: 'sku' }, { message: 'whole' }],
      }),
      job.id,
    );
    expect((await get(job.id)).body.data.attributes.status).toBe('failed');
    const errors = await errorsOf(job.id);
    expect(errors.body.meta.results.total).toBe(2);
    expect(errors.body.data).toEqual([
      {
        type: 'pim-job-error',
        id: expect.any(String),
        attributes: { message: 'line 2: sku: taken' },
        meta: { line: 2, column: 'sku' },
      },
      { type: 'pim-job-error', id: expect.any(String), attributes: { message: 'whole' } },
    ]);
  });

  it('records at most MAX_RECORDED_ERRORS errors, the last saying how many more there were', async () => {
    const job = await newJob();
    await runWith(async () => {
      const list = new JobErrorList();
      for (let line = 2; line < MAX_RECORDED_ERRORS + 12; line += 1)
        list.add({ message: `line ${line}`, line });
      return list.outcome();
    }, job.id);
    const errors = await errorsOf(job.id, '?page[offset]=995&page[limit]=10');
    expect(errors.body.meta.results.total).toBe(MAX_RECORDED_ERRORS + 1);
    expect(errors.body.data.at(-1).attributes.message).toBe('10 more errors were not recorded');
    expect((await jobRepository.get(storeId(), job.id))?.error_count).toBe(MAX_RECORDED_ERRORS + 10);
  });

  it('skips a job that ended or was cancelled: a message delivered twice runs it once', async () => {
    const job = await newJob();
    let runs = 0;
    const runner: JobRunner = async () => {
      runs += 1;
      return { errors: [] };
    };
    expect(await runWith(runner, job.id)).toBe('ran');
    expect(await runWith(runner, job.id)).toBe('skipped');
    const other = await newJob();
    expect((await cancel(other.id)).status).toBe(200);
    expect(await runWith(runner, other.id)).toBe('skipped');
    expect(runs).toBe(1);
    expect((await get(other.id)).body.data.attributes.status).toBe('cancelled');
  });

  it('leaves a crashed run to be retried, restarts it from the start with its errors cleared, and fails it on the last receive', async () => {
    const job = await newJob();
    await jobRepository.putErrors(storeId(), job.id, [{ id: 'e', message: 'left by a crash' }]);
    await jobRepository.transition(storeId(), job.id, ['pending'], { status: 'started', addAttempt: true });
    const crash: JobRunner = async () => {
      throw new Error('worker crashed');
    };
    await expect(runWith(crash, job.id, 1)).rejects.toThrow('worker crashed');
    expect((await jobRepository.get(storeId(), job.id))?.status).toBe('started');
    expect((await errorsOf(job.id)).body.data).toEqual([]);
    await runWith(crash, job.id, MAX_RECEIVES);
    const after = await jobRepository.get(storeId(), job.id);
    expect(after?.status).toBe('failed');
    expect(after?.attempts).toBe(3);
    const [error] = (await errorsOf(job.id)).body.data;
    expect(error.attributes.message).toContain(`${MAX_RECEIVES} times`);
    expect(error.attributes.message).not.toContain('worker crashed');
  });

  it('fails a job of a type no runner takes', async () => {
    const job = await enqueueJob(storeId(), 'hierarchy-duplicate', {}, 'r');
    await runJob({ store_id: storeId(), job_id: job.id }, 1, CONTEXT, {});
    expect((await get(job.id)).body.data.attributes.status).toBe('failed');
  });

  it("runs a store's jobs through the handler one at a time, in creation order", async () => {
    const order: string[] = [];
    let running = 0;
    let overlapped = false;
    const { JOB_RUNNERS } = await import('../../lib/jobs/runners');
    JOB_RUNNERS['price-import'] = async (job) => {
      running += 1;
      if (running > 1) overlapped = true;
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push(job.id);
      running -= 1;
      return { errors: [] };
    };
    try {
      const queue = new LocalJobQueue((event) => jobRun(event as never, createLambdaContext('job-run')));
      registerLocalJobQueue((message) => queue.send(message));
      const ids: string[] = [];
      for (let n = 0; n < 4; n += 1) ids.push((await enqueueJob(storeId(), 'price-import', {}, 'r')).id);
      await queue.idle();
      expect(overlapped).toBe(false);
      expect(order).toEqual(ids);
    } finally {
      delete JOB_RUNNERS['price-import'];
    }
  });
});

describe('the routes', () => {
  it('lists the store’s jobs newest first with meta.results.total', async () => {
    const other = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    const otherToken = await tokenFor(other);
    const first = await enqueueJob(other.store.id, 'product-import', {}, 'a');
    const second = await enqueueJob(other.store.id, 'child-products', {}, 'b');
    const response = await invoke(listJobs, {
      method: 'GET',
      path: '/pcm/jobs?page[limit]=1',
      headers: bearer(otherToken, HEADERS),
    });
    expect(response.status).toBe(200);
    expect(response.body.meta.results.total).toBe(2);
    expect(response.body.data.map((job: { id: string }) => job.id)).toEqual([second.id]);
    expect(response.body.links.next).toContain('page[offset]=1');
    expect(first.id < second.id).toBe(true);
  });

  it("answers 404 for another store's job, an unknown id and a malformed one", async () => {
    const other = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
    const job = await enqueueJob(other.store.id, 'product-import', {}, 'x');
    expect((await get(job.id)).status).toBe(404);
    expect((await errorsOf(job.id)).status).toBe(404);
    expect((await cancel(job.id)).status).toBe(404);
    expect((await get('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await get('not-a-job')).status).toBe(404);
    expect((await jobRepository.get(other.store.id, job.id))?.status).toBe('pending');
  });

  it('refuses a storefront token (403)', async () => {
    const job = await newJob();
    const implicit = await tokenFor(store, 'implicit');
    expect((await get(job.id, implicit)).status).toBe(403);
    expect((await cancel(job.id, implicit)).status).toBe(403);
  });

  it('cancels a pending job (200, again 200), and refuses one that started or ended (409)', async () => {
    const job = await newJob();
    const cancelled = await cancel(job.id);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.attributes.status).toBe('cancelled');
    expect(cancelled.body.data.attributes.completed_at).toEqual(expect.any(String));
    expect((await cancel(job.id)).status).toBe(200);
    const started = await newJob();
    await jobRepository.transition(storeId(), started.id, ['pending'], { status: 'started' });
    const refused = await cancel(started.id);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].detail).toContain(
      'only a pending job can be cancelled; this one is started',
    );
    const done = await newJob();
    await runWith(async () => ({ errors: [] }), done.id);
    expect((await cancel(done.id)).status).toBe(409);
    expect((await get(done.id)).body.data.attributes.status).toBe('success');
  });

  it('refuses a bad page on the list and the errors (400)', async () => {
    const response = await invoke(listJobs, {
      method: 'GET',
      path: '/pcm/jobs?page[limit]=0',
      headers: bearer(token, HEADERS),
    });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].source).toBe('page[limit]');
  });
});
