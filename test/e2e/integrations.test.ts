import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';
import { newPcmCatalog } from '../support/pcm-fixtures';
import { startWebhookListener, waitUntil } from '../support/webhook-listener';

/**
 * Webhook integrations through the official SDK, unmodified, against the local server (docs/webhooks.md):
 * `Integrations.Create`, `All`, `Get`, `Update`, `GetLogs`, `GetJobs`, `GetAllLogsForJob`, `GetAllLogs` and
 * `Delete` in the platform's legacy flat format, and a catalog rule's event delivered to a listener on
 * 127.0.0.1 (by the delivery function's bundle, against the template-driven API).
 */

let api: LocalApi;
let store: TestStore;

beforeAll(async () => {
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
  api = await startLocalApi();
  store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
});
afterAll(async () => {
  await api.close();
  jest.restoreAllMocks();
});

const DATE = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

it('creates, lists, reads, updates and deletes an integration, and reads the logs of its deliveries', async () => {
  const listener = await startWebhookListener();
  try {
    const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
    const integrations = sdk.Integrations;
    const url = listener.url;

    const created = await integrations.Create({
      name: 'search sync',
      description: 'rules to the search index',
      integration_type: 'webhook',
      enabled: true,
      observes: ['catalog-rule.created'],
      configuration: { url, secret_key: 'e2e-webhook-secret' },
    } as never);
    const id = created.data.id;
    expect(created.data).toEqual({
      id,
      type: 'integration',
      name: 'search sync',
      description: 'rules to the search index',
      enabled: true,
      integration_type: 'webhook',
      observes: ['catalog-rule.created'],
      configuration: { url, secret_key: 'e2e-webhook-secret' },
      links: { self: `${api.baseUrl}/v2/integrations/${id}` },
      meta: { timestamps: { created_at: DATE, updated_at: DATE } },
    });
    expect((await integrations.Get(id)).data).toEqual(created.data);
    const all = await integrations.All();
    expect(all.data.map((integration: { id: string }) => integration.id)).toEqual([id]);
    expect(all.meta.results.total).toBe(1);

    const updated = await integrations.Update(id, { name: 'search index sync' } as never);
    expect(updated.data).toMatchObject({ id, name: 'search index sync', observes: ['catalog-rule.created'] });

    await expect(
      integrations.Create({
        name: 'queue',
        integration_type: 'aws_sqs',
        observes: ['catalog-rule.created'],
        configuration: { url },
      } as never),
    ).rejects.toMatchObject({ errors: [{ status: '422', source: 'data.integration_type' }] });

    // A catalog rule's creation is delivered to the listener, and logged.
    const { access_token: token } = await sdk.Authenticate();
    const catalogId = await newPcmCatalog(store.store.id, 'E2E hooks');
    const rule = await fetch(`${api.baseUrl}/pcm/catalogs/rules`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        data: { type: 'catalog_rule', attributes: { name: 'e2e-hooks', catalog_id: catalogId } },
      }),
    });
    expect(rule.status).toBe(201);
    await waitUntil(() => listener.received.length === 1, 15_000, 'the delivery');
    expect(listener.received[0]?.headers['x-moltin-secret-key']).toBe('e2e-webhook-secret');
    expect(listener.received[0]?.body.integration).toEqual({
      id,
      integration_type: 'webhook',
      name: 'search index sync',
      description: 'rules to the search index',
    });
    let logs = await integrations.GetLogs(id);
    for (let i = 0; logs.data.length === 0 && i < 100; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      logs = await integrations.GetLogs(id);
    }
    expect(logs.data).toEqual([
      expect.objectContaining({ type: 'integration-log', succeeded: true, attempt: 1, status_code: 200 }),
    ]);
    const jobs = await integrations.GetJobs(id);
    expect(jobs.data).toEqual([
      expect.objectContaining({ id: listener.received[0]?.body.id, type: 'integration-job' }),
    ]);
    const jobId = jobs.data[0]?.id ?? '';
    expect((await integrations.GetAllLogsForJob(id, jobId)).data).toHaveLength(1);
    // The SDK's types give the platform's older list shape; the lists here carry meta.page and meta.results.
    const storeLogs = (await integrations.GetAllLogs()) as unknown as {
      meta: { results: { total: number } };
    };
    expect(storeLogs.meta.results.total).toBe(1);

    const removed = (await integrations.Delete(id)) as unknown as { data: unknown };
    expect(removed.data).toEqual({ id, type: 'integration' });
    await expect(integrations.Get(id)).rejects.toMatchObject({
      errors: [{ status: '404', detail: 'integration not found' }],
    });
  } finally {
    await listener.close();
  }
});
