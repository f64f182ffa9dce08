import type { SQSEvent } from 'aws-lambda';
import { handler as createIntegrationRoute } from '../../functions/create-integration/handler';
import { handler as deleteIntegrationRoute } from '../../functions/delete-integration/handler';
import { handler as getIntegrationRoute } from '../../functions/get-integration/handler';
import { handler as getJobLogsRoute } from '../../functions/get-integration-job-logs/handler';
import { handler as deliverHandler } from '../../functions/integration-deliver/handler';
import { handler as listStoreLogsRoute } from '../../functions/list-all-integration-logs/handler';
import { handler as listJobsRoute } from '../../functions/list-integration-jobs/handler';
import { handler as getLogsRoute } from '../../functions/list-integration-logs/handler';
import { handler as listIntegrationsRoute } from '../../functions/list-integrations/handler';
import { handler as createRuleRoute } from '../../functions/pcm-create-catalog-rule/handler';
import { handler as createReleaseRoute } from '../../functions/pcm-create-release/handler';
import { handler as deleteReleaseRoute } from '../../functions/pcm-delete-release/handler';
import { handler as updateIntegrationRoute } from '../../functions/update-integration/handler';
import { runWorkflowLocally } from '../../lib/catalog/pipeline/run-local';
import { registerLocalWorkflow } from '../../lib/catalog/pipeline/start';
import { resetConfig } from '../../lib/config/index';
import { MAX_ATTEMPTS } from '../../lib/integrations/deliver';
import { emitReleasesDeleted } from '../../lib/integrations/events';
import { registerLocalDeliveryQueue } from '../../lib/integrations/queue';
import {
  integrationRepository,
  MAX_INTEGRATIONS_PER_STORE,
  MAX_LOGS_KEPT,
} from '../../lib/store/integration-repository';
import { OBSERVABLE_EVENTS } from '../../lib/validation/integration';
import { LocalDeliveryQueue } from '../../local/delivery-queue';
import { adminOfNewStore, childrenRelease } from '../support/catalog-fixtures';
import { expectErrorBody } from '../support/error-body';
import { type InvokeResult, invoke } from '../support/fixtures';
import { recordOperationOrder } from '../support/operation-order';
import { newIntegration, newIntegrationLog, newPcmCatalog } from '../support/pcm-fixtures';
import { type Answer, startWebhookListener, waitUntil } from '../support/webhook-listener';

/**
 * Webhook integrations (docs/webhooks.md) on DynamoDB Local, with real endpoints listening on 127.0.0.1:
 * the routes and their bodies, the events of releases and rules, delivery through the delivery function's
 * handler and the local queue (retries with backoff, a timeout, every attempt logged with one event id),
 * who gets what (disabled, not observing, another store), and the address rules at write and at delivery.
 */

const SECRET = 'shh-its-a-webhook-secret';
/** A public address (the test machine may have no DNS): integrations that are never delivered to point here. */
const PUBLIC = 'https://93.184.216.34';
const TIMEOUT_MS = 300;
let queue: LocalDeliveryQueue;

beforeAll(() => {
  // Retries a few milliseconds apart and a short timeout, so a test waits on no real backoff.
  process.env.INTEGRATIONS_RETRY_BASE_MS = '10';
  process.env.INTEGRATIONS_DELIVERY_TIMEOUT_MS = String(TIMEOUT_MS);
  resetConfig();
  queue = new LocalDeliveryQueue((event) => deliverHandler(event as unknown as SQSEvent), {
    maxReceives: MAX_ATTEMPTS,
    visibilityMs: 50,
  });
  registerLocalDeliveryQueue(queue);
  registerLocalWorkflow(runWorkflowLocally);
});
afterAll(async () => {
  await queue.idle();
  registerLocalDeliveryQueue(undefined);
  delete process.env.INTEGRATIONS_RETRY_BASE_MS;
  delete process.env.INTEGRATIONS_DELIVERY_TIMEOUT_MS;
  resetConfig();
});

/** Runs `work` with loopback targets refused, as in the deployed stack. */
async function withoutLoopback<T>(work: () => Promise<T>): Promise<T> {
  process.env.INTEGRATIONS_ALLOW_LOOPBACK = 'false';
  resetConfig();
  try {
    return await work();
  } finally {
    process.env.INTEGRATIONS_ALLOW_LOOPBACK = 'true';
    resetConfig();
  }
}

async function newClient() {
  const { storeId, headers } = await adminOfNewStore();
  const one = (id: string, suffix = '') => ({
    path: `/v2/integrations/${id}${suffix}`,
    pathParameters: { integration_id: id },
    headers,
  });
  const client = {
    storeId,
    headers,
    raw: (body: string) =>
      invoke(createIntegrationRoute, { method: 'POST', path: '/v2/integrations', headers, body }),
    create: (data: Record<string, unknown>) =>
      client.raw(JSON.stringify({ data: { type: 'integration', ...data } })),
    list: (query = '') =>
      invoke(listIntegrationsRoute, { method: 'GET', path: `/v2/integrations${query}`, headers }),
    get: (id: string) => invoke(getIntegrationRoute, { method: 'GET', ...one(id) }),
    update: (id: string, data: Record<string, unknown>) =>
      invoke(updateIntegrationRoute, {
        method: 'PUT',
        ...one(id),
        body: JSON.stringify({ data: { type: 'integration', ...data } }),
      }),
    remove: (id: string) => invoke(deleteIntegrationRoute, { method: 'DELETE', ...one(id) }),
    logs: (id: string) => invoke(getLogsRoute, { method: 'GET', ...one(id, '/logs') }),
    storeLogs: () => invoke(listStoreLogsRoute, { method: 'GET', path: '/v2/integrations/logs', headers }),
    jobs: (id: string) => invoke(listJobsRoute, { method: 'GET', ...one(id, '/jobs') }),
    jobLogs: (id: string, jobId: string) =>
      invoke(getJobLogsRoute, {
        method: 'GET',
        path: `/v2/integrations/${id}/jobs/${jobId}/logs`,
        pathParameters: { integration_id: id, job_id: jobId },
        headers,
      }),
    /** Creates a catalog rule named `name` (its event: `catalog-rule.created`). */
    rule: async (name: string) => {
      const catalogId = await newPcmCatalog(storeId, `for ${name}`);
      const result = await invoke(createRuleRoute, {
        method: 'POST',
        path: '/pcm/catalogs/rules',
        headers,
        body: JSON.stringify({ data: { type: 'catalog_rule', attributes: { name, catalog_id: catalogId } } }),
      });
      expect(result.status).toBe(201);
      return result.body.data.id as string;
    },
  };
  return client;
}

const hook = (url: string, extra: Record<string, unknown> = {}) => ({
  name: 'catalog sync',
  description: 'sends releases to search',
  observes: ['catalog-rule.created'],
  configuration: { url, secret_key: SECRET },
  ...extra,
});

async function created(result: Promise<InvokeResult>): Promise<string> {
  const answer = await result;
  expect(answer.status).toBe(200);
  return answer.body.data.id as string;
}

describe('the integrations API', () => {
  it('creates (200), reads, lists, updates partially and deletes (200) an integration', async () => {
    const c = await newClient();
    const result = await c.create(hook(`${PUBLIC}/catalog`));
    expect(result.status).toBe(200);
    const id = result.body.data.id as string;
    expect(result.body.data).toEqual({
      id,
      type: 'integration',
      name: 'catalog sync',
      description: 'sends releases to search',
      enabled: true,
      integration_type: 'webhook',
      observes: ['catalog-rule.created'],
      configuration: { url: `${PUBLIC}/catalog`, secret_key: SECRET },
      links: { self: `https://api.example.test/v2/integrations/${id}` },
      meta: { timestamps: { created_at: expect.any(String), updated_at: expect.any(String) } },
    });
    expect((await c.get(id)).body.data).toEqual(result.body.data);

    const updated = await c.update(id, { enabled: false, observes: ['catalog-release.updated'] });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      name: 'catalog sync',
      enabled: false,
      observes: ['catalog-release.updated'],
      configuration: { url: `${PUBLIC}/catalog`, secret_key: SECRET },
    });

    const list = await c.list('?page[limit]=1');
    expect(list.status).toBe(200);
    expect(list.body.meta.results.total).toBe(1);
    expect(list.body.meta.page).toEqual({ limit: 1, offset: 0, current: 1, total: 1 });
    expect(list.body.data[0].id).toBe(id);

    const removed = await c.remove(id);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toEqual({ id, type: 'integration' });
    expectErrorBody(await c.get(id), 404, 'integration not found');
    expect((await c.remove(id)).status).toBe(404);
    expect((await c.list()).body.meta.results.total).toBe(0);
  });

  it("answers 404 for another store's integration and for an id that is no UUID", async () => {
    const [a, b] = await Promise.all([newClient(), newClient()]);
    const id = await created(a.create(hook(`${PUBLIC}/a`)));
    expectErrorBody(await b.get(id), 404, 'integration not found');
    expect((await b.update(id, { name: 'taken' })).status).toBe(404);
    expect((await b.remove(id)).status).toBe(404);
    expect((await b.logs(id)).status).toBe(404);
    expect((await a.get('not-a-uuid')).status).toBe(404);
    expect((await a.get(id)).body.data.name).toBe('catalog sync');
  });

  it('refuses bad bodies with a clear 400 or 422, storing nothing', async () => {
    const c = await newClient();
    const url = `${PUBLIC}/x`;
    const cases: [Promise<InvokeResult>, number, string, string][] = [
      [c.raw('[1]'), 400, 'body', 'body must be an object with only `data`'],
      [
        c.create({ observes: ['catalog-rule.created'], configuration: { url } }),
        422,
        'data.name',
        'data.name is required',
      ],
      [
        c.create(hook(url, { observes: ['product.created'] })),
        422,
        'data.observes[0]',
        'catalog-release.created, catalog-release.updated',
      ],
      [c.create(hook(url, { observes: [] })), 422, 'data.observes', 'a list of 1 to 5 event keys'],
      [
        c.create(
          hook(url, {
            observes: [...OBSERVABLE_EVENTS],
          }),
        ),
        422,
        'data.observes',
        'a list of 1 to 5 event keys',
      ],
      [
        c.create(hook(url, { observes: ['catalog-rule.created', 'catalog-rule.created'] })),
        422,
        'data.observes[1]',
        'a second time',
      ],
      [
        c.create(hook(url, { integration_type: 'aws_sqs' })),
        422,
        'data.integration_type',
        'only webhook integrations are',
      ],
      [
        c.create(hook(url, { integration_type: 'stomp' })),
        422,
        'data.integration_type',
        'only webhook integrations are',
      ],
      [c.create(hook(url, { colour: 'red' })), 422, 'data.colour', 'data.colour is not allowed'],
      [
        c.create(hook(url, { configuration: { url, password: 'x' } })),
        422,
        'data.configuration.password',
        'is not allowed',
      ],
      [c.create(hook(url, { name: 'x'.repeat(256) })), 422, 'data.name', '1 to 255 characters'],
      [
        c.create(hook(url, { configuration: { url, secret_key: 's'.repeat(256) } })),
        422,
        'data.configuration.secret_key',
        'at most 255',
      ],
      [c.create(hook(`${PUBLIC}/${'a'.repeat(2048)}`)), 422, 'data.configuration.url', '2048'],
      [c.create(hook(url, { enabled: 'yes' })), 422, 'data.enabled', 'true or false'],
    ];
    for (const [result, status, source, detail] of cases) {
      const answer = await result;
      expect(answer.status).toBe(status);
      expect(answer.body.errors[0].source).toBe(source);
      expect(answer.body.errors[0].detail).toContain(detail);
    }
    expect((await c.list()).body.meta.results.total).toBe(0);
  });

  it(`holds at most ${MAX_INTEGRATIONS_PER_STORE} integrations a store`, async () => {
    const c = await newClient();
    for (let n = 0; n < MAX_INTEGRATIONS_PER_STORE; n += 1) {
      await created(c.create(hook(`${PUBLIC}/${n}`)));
    }
    const refused = await c.create(hook(`${PUBLIC}/one-more`));
    expectErrorBody(
      refused,
      422,
      `Integration limit reached: a store has at most ${MAX_INTEGRATIONS_PER_STORE} integrations`,
    );
    expect((await c.list()).body.meta.results.total).toBe(MAX_INTEGRATIONS_PER_STORE);
  });
});

describe('the delivery log', () => {
  it(`keeps the newest ${MAX_LOGS_KEPT} attempts of an integration, however many it made`, async () => {
    const c = await newClient();
    const id = await newIntegration(c.storeId, 'busy');
    // The first three one after another (attempts 1 to 3), the rest 25 at a time.
    const jobs: string[] = [];
    for (let n = 0; n < 3; n += 1) jobs.push(await newIntegrationLog(c.storeId, id));
    const total = MAX_LOGS_KEPT + 3;
    for (let start = 3; start < total; start += 25) {
      const batch = Array.from({ length: Math.min(25, total - start) }, () =>
        newIntegrationLog(c.storeId, id),
      );
      jobs.push(...(await Promise.all(batch)));
    }
    const logs = await integrationRepository.listLogs(c.storeId, id);
    expect(logs).toHaveLength(MAX_LOGS_KEPT);
    const listed = await c.logs(id);
    expect(listed.body.meta.results.total).toBe(MAX_LOGS_KEPT);
    // The three oldest went: every job kept is one of the newest, the newest first.
    const kept = new Set(logs.map((log) => log.job_id));
    expect(kept.size).toBe(MAX_LOGS_KEPT);
    expect(jobs.slice(0, 3).some((job) => kept.has(job))).toBe(false);
  }, 60_000);
});

describe('where a webhook may point', () => {
  it('refuses non-public addresses and other schemes at create and update, when loopback is not allowed', async () => {
    const c = await newClient();
    const listener = await startWebhookListener();
    try {
      const id = await created(c.create(hook(`${PUBLIC}/ok`)));
      await withoutLoopback(async () => {
        for (const url of [
          listener.url,
          'http://localhost:9/x',
          'http://127.0.0.1/',
          'http://10.0.0.1/',
          'http://172.16.5.4/',
          'http://192.168.1.1/',
          'http://169.254.169.254/latest/meta-data/',
          'http://100.64.0.1/',
          'http://0.0.0.0/',
          'http://[::1]/',
          'http://[fc00::1]/',
          'http://[fe80::1]/',
          'http://[::ffff:127.0.0.1]/',
          'http://[::ffff:a9fe:a9fe]/',
          'http://224.0.0.1/',
        ]) {
          const answer = await c.create(hook(url));
          expect([url, answer.status, answer.body.errors?.[0]?.source]).toEqual([
            url,
            422,
            'data.configuration.url',
          ]);
          expect(answer.body.errors[0].detail).toContain('not public');
          expect((await c.update(id, { configuration: { url } })).status).toBe(422);
        }
        for (const [url, detail] of [
          ['ftp://hooks.example.com/x', 'must be an http or https URL, not ftp'],
          ['file:///etc/passwd', 'must be an http or https URL, not file'],
          ['https://user:pass@hooks.example.com/x', 'must not hold a user name or password'],
          ['hooks.example.com/x', 'must be an absolute http or https URL'],
          ['https://no-such-host.invalid/x', 'could not be resolved'],
        ] as const) {
          const answer = await c.create(hook(url));
          expect(answer.status).toBe(422);
          expect(answer.body.errors[0].detail).toContain(detail);
        }
      });
      expect((await c.list()).body.meta.results.total).toBe(1);
      expect((await c.get(id)).body.data.configuration.url).toBe(`${PUBLIC}/ok`);
      expect(listener.received).toEqual([]);
    } finally {
      await listener.close();
    }
  });

  it('refuses, logs and does not fetch a host that resolves to a refused address at delivery', async () => {
    const c = await newClient();
    const listener = await startWebhookListener();
    try {
      // Allowed when written (the harness allows loopback); refused when delivered (the stack does not).
      const id = await created(c.create(hook(`http://localhost:${listener.port}/hooks`)));
      const deadBefore = queue.deadLetters.length;
      await withoutLoopback(async () => {
        await c.rule('refused');
        // Every attempt is refused; after the last the message is set aside, as the dead-letter queue takes it.
        await waitUntil(() => queue.deadLetters.length > deadBefore, 15_000, 'the dead letter');
      });
      const logs = (await c.logs(id)).body.data;
      expect(logs.map((log: { attempt: number }) => log.attempt)).toEqual(
        Array.from({ length: MAX_ATTEMPTS }, (_, n) => MAX_ATTEMPTS - n),
      );
      expect(JSON.parse(queue.deadLetters[queue.deadLetters.length - 1] ?? '{}').integration_id).toBe(id);
      expect(logs[logs.length - 1]).toMatchObject({
        type: 'integration-log',
        succeeded: false,
        attempt: 1,
        status_code: null,
        body: '',
      });
      expect(logs[logs.length - 1].error_detail).toContain('refused, not sent');
      expect(listener.received).toEqual([]);
    } finally {
      await listener.close();
    }
  });
});

/** Polls an async condition every 20 ms for up to 15 s. */
async function waitFor(done: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('delivery', () => {
  it('delivers catalog-release.created and .updated of a publish through the API, with the secret and the body shape', async () => {
    const c = await newClient();
    const listener = await startWebhookListener();
    try {
      const id = await created(
        c.create(hook(listener.url, { observes: ['catalog-release.created', 'catalog-release.updated'] })),
      );
      const catalogId = await newPcmCatalog(c.storeId, 'Main', childrenRelease({ catalogName: 'Main' }));
      const { order, stop } = recordOperationOrder();
      let release: InvokeResult;
      try {
        release = await invoke(createReleaseRoute, {
          method: 'POST',
          path: `/pcm/catalogs/${catalogId}/releases`,
          pathParameters: { catalog_id: catalogId },
          headers: c.headers,
          body: '{}',
        });
      } finally {
        stop();
      }
      expect(release.status).toBe(201);
      // The integrations, for the created event, were read beside the release's write, not after it.
      expect(order.indexOf('Query sent')).toBeLessThan(order.indexOf('TransactWriteItems answered'));
      const releaseId = release.body.data.id as string;
      await waitUntil(
        () =>
          listener.received.some(
            (r) => r.headers['x-moltin-integration-trigger'] === 'catalog-release.updated',
          ),
        60_000,
        'the release event',
      );
      const updated = listener.received.find(
        (r) => r.headers['x-moltin-integration-trigger'] === 'catalog-release.updated',
      );
      expect(updated?.path).toBe('/hooks');
      expect(updated?.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'moltin/integrations',
        'x-moltin-integration-trigger': 'catalog-release.updated',
        'x-moltin-secret-key': SECRET,
      });
      expect(updated?.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        triggered_by: 'catalog-release.updated',
        attempt: 1,
        integration: {
          id,
          integration_type: 'webhook',
          name: 'catalog sync',
          description: 'sends releases to search',
        },
        payload: { data: expect.objectContaining({ id: releaseId, type: 'catalog-release' }) },
      });
      expect(updated?.body.payload.data.meta.release_status).toBe('PUBLISHED');
      expect(updated?.body.payload.data.links.self).toBe(
        `https://api.example.test/pcm/catalogs/${catalogId}/releases/${releaseId}`,
      );
      const createdEvent = listener.received.find(
        (r) => r.headers['x-moltin-integration-trigger'] === 'catalog-release.created',
      );
      expect(createdEvent?.body.payload.data.id).toBe(releaseId);

      await queue.idle();
      const logs = await c.logs(id);
      expect(logs.body.meta.results.total).toBe(2);
      expect(logs.body.data.every((log: { succeeded: boolean }) => log.succeeded)).toBe(true);
      expect(logs.body.data[0]).toMatchObject({ status_code: 200, body: '{"ok":true}', error_detail: '' });
      expect(JSON.stringify(logs.body)).not.toContain(SECRET);
      expect(JSON.stringify((await c.storeLogs()).body)).not.toContain(SECRET);

      // Deleting the release: catalog-release.deleted is not observed, so nothing more arrives.
      const before = listener.received.length;
      const deleted = await invoke(deleteReleaseRoute, {
        method: 'DELETE',
        path: `/pcm/catalogs/${catalogId}/releases/${releaseId}`,
        pathParameters: { catalog_id: catalogId, release_id: releaseId },
        headers: c.headers,
      });
      expect(deleted.status).toBe(204);
      await queue.idle();
      expect(listener.received.length).toBe(before);
      await c.update(id, { observes: ['catalog-release.deleted'] });
      const again = await invoke(createReleaseRoute, {
        method: 'POST',
        path: `/pcm/catalogs/${catalogId}/releases`,
        pathParameters: { catalog_id: catalogId },
        headers: c.headers,
        body: '{}',
      });
      const againId = again.body.data.id as string;
      const waitPublished = async () => {
        const { pcmRepository } = await import('../../lib/store/pcm-repository');
        const record = await pcmRepository.getRelease(c.storeId, catalogId, againId);
        return record?.state === 'PUBLISHED' || record?.state === 'FAILED';
      };
      await waitFor(waitPublished, 60_000);
      await invoke(deleteReleaseRoute, {
        method: 'DELETE',
        path: `/pcm/catalogs/${catalogId}/releases/${againId}`,
        pathParameters: { catalog_id: catalogId, release_id: againId },
        headers: c.headers,
      });
      await waitUntil(() =>
        listener.received.some(
          (r) => r.headers['x-moltin-integration-trigger'] === 'catalog-release.deleted',
        ),
      );
      const deletion = listener.received.find(
        (r) => r.headers['x-moltin-integration-trigger'] === 'catalog-release.deleted',
      );
      expect(deletion?.body.payload).toEqual({ data: { type: 'catalog-release', id: againId } });
    } finally {
      await listener.close();
    }
  }, 90_000);

  it('retries an endpoint that answers 500 twice: three attempts, all logged, one event id', async () => {
    const c = await newClient();
    const answers: Answer[] = [
      { status: 500, body: 'down' },
      { status: 500, body: 'still down' },
    ];
    const listener = await startWebhookListener(answers);
    try {
      const id = await created(c.create(hook(listener.url)));
      const ruleId = await c.rule('retried');
      await waitUntil(() => listener.received.length === 3, 15_000, 'three attempts');
      await queue.idle();
      expect(listener.received.map((r) => r.body.attempt)).toEqual([1, 2, 3]);
      expect(new Set(listener.received.map((r) => r.body.id)).size).toBe(1);
      expect(listener.received[0]?.body.payload.data).toMatchObject({ id: ruleId, type: 'catalog_rule' });

      const logs = (await c.logs(id)).body;
      expect(logs.meta.results.total).toBe(3);
      expect(logs.data.map((log: { attempt: number }) => log.attempt)).toEqual([3, 2, 1]);
      expect(logs.data.map((log: { succeeded: boolean }) => log.succeeded)).toEqual([true, false, false]);
      expect(logs.data[1]).toMatchObject({
        status_code: 500,
        body: 'still down',
        error_detail: 'Received a status code outside of 2xx range (500) - treating webhook as a fail',
        relationships: {
          integration: { data: { id, type: 'integration' } },
          job: { data: { id: listener.received[0]?.body.id, type: 'integration-job' } },
        },
      });
      const jobs = (await c.jobs(id)).body;
      expect(jobs.data).toEqual([
        expect.objectContaining({ id: listener.received[0]?.body.id, type: 'integration-job' }),
      ]);
      const jobLogs = (await c.jobLogs(id, jobs.data[0].id)).body;
      expect(jobLogs.meta.results.total).toBe(3);
      expect((await c.jobLogs(id, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
      expect((await c.storeLogs()).body.meta.results.total).toBe(3);
    } finally {
      await listener.close();
    }
  });

  it('times out an endpoint that does not answer and tries again', async () => {
    const c = await newClient();
    const listener = await startWebhookListener(['hang']);
    try {
      const id = await created(c.create(hook(listener.url)));
      await c.rule('hanging');
      await waitUntil(() => listener.received.length === 2, 15_000, 'the second attempt');
      await queue.idle();
      const logs = (await c.logs(id)).body.data;
      expect(logs.map((log: { attempt: number }) => log.attempt)).toEqual([2, 1]);
      expect(logs[1]).toMatchObject({
        succeeded: false,
        status_code: null,
        error_detail: `no answer within ${TIMEOUT_MS} ms - treating webhook as a fail`,
      });
      expect(logs[1].processing_time).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      expect(logs[0].succeeded).toBe(true);
    } finally {
      await listener.close();
    }
  });

  it("emits one event per deleted release from one read of the store's integrations", async () => {
    const a = await newClient();
    const listener = await startWebhookListener();
    const list = jest.spyOn(integrationRepository, 'list');
    try {
      await created(a.create(hook(listener.url, { observes: ['catalog-release.deleted'] })));
      list.mockClear();
      const ids = ['0190a000-0000-7000-8000-000000000001', '0190a000-0000-7000-8000-000000000002'];
      await emitReleasesDeleted(a.storeId, [...ids, '0190a000-0000-7000-8000-000000000003']);
      expect(list).toHaveBeenCalledTimes(1);
      await waitUntil(() => listener.received.length === 3, 15_000, 'three deletion events');
      const sent = listener.received.map((request) => request.body.payload.data.id).sort();
      expect(sent).toEqual([...ids, '0190a000-0000-7000-8000-000000000003']);
      // A read that fails fails the events (logged, counted), not the caller.
      list.mockRejectedValueOnce(new Error('throttled'));
      await expect(emitReleasesDeleted(a.storeId, ids)).resolves.toBeUndefined();
    } finally {
      list.mockRestore();
      await listener.close();
    }
  });

  it('sends nothing to a disabled integration, one not observing the event, or another store', async () => {
    const [a, b] = await Promise.all([newClient(), newClient()]);
    const [sentinel, disabled, other, foreign] = await Promise.all([
      startWebhookListener(),
      startWebhookListener(),
      startWebhookListener(),
      startWebhookListener(),
    ]);
    try {
      // By host name: the attempt connects to the address its check resolved (the harness allows loopback).
      await created(a.create(hook(`http://localhost:${sentinel.port}/hooks`)));
      await created(a.create(hook(disabled.url, { enabled: false })));
      await created(a.create(hook(other.url, { observes: ['catalog-rule.deleted'] })));
      await created(b.create(hook(foreign.url)));
      await a.rule('only-a');
      await waitUntil(() => sentinel.received.length === 1, 15_000, 'the sentinel');
      await queue.idle();
      expect(disabled.received).toEqual([]);
      expect(other.received).toEqual([]);
      expect(foreign.received).toEqual([]);
    } finally {
      await Promise.all([sentinel, disabled, other, foreign].map((listener) => listener.close()));
    }
  });
});
