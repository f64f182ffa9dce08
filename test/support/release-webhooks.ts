import { childrenRelease } from './catalog-fixtures';
import { createTestStore, SHARED_STORE_RATE_LIMIT } from './fixtures';
import { startWebhookListener, waitUntil } from './webhook-listener';

/**
 * A catalog published over the HTTP API of a local server (`npm run dev`, the template-driven one), with two
 * webhook integrations pointing at listeners on 127.0.0.1: one observes `catalog-release.created` (emitted by
 * the release route's function) and its endpoint answers 500 then 200; the other observes
 * `catalog-release.updated` (emitted by the publishing workflow's last step). Proves that the first gets its
 * event twice, the same event as attempts 1 and 2, both logged, and the second the published release once,
 * each with its secret in `X-Moltin-Secret-Key`. The server's functions must retry after a short backoff
 * (INTEGRATIONS_RETRY_BASE_MS) and allow loopback targets.
 */
export async function expectReleaseWebhooks(base: string): Promise<void> {
  const store = await createTestStore({ rate_limit: SHARED_STORE_RATE_LIMIT });
  const token = (
    (await (
      await fetch(`${base}/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: store.clientId,
          client_secret: store.clientSecret,
        }),
      })
    ).json()) as { access_token: string }
  ).access_token;

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  const created = await startWebhookListener([{ status: 500, body: 'not yet' }]);
  const published = await startWebhookListener();
  try {
    const integration = async (name: string, event: string, url: string) => {
      const answer = await call('POST', '/v2/integrations', {
        data: {
          type: 'integration',
          name,
          observes: [event],
          configuration: { url, secret_key: `${name}-secret` },
        },
      });
      expect(answer.status).toBe(200);
      return answer.body.data.id as string;
    };
    const createdId = await integration('created', 'catalog-release.created', created.url);
    const publishedId = await integration('published', 'catalog-release.updated', published.url);

    const catalog = await call('POST', '/pcm/catalogs', {
      data: { type: 'catalog', attributes: { name: 'Hooked' } },
    });
    const catalogId = catalog.body.data.id as string;
    expect((await call('PUT', `/pcm/catalogs/${catalogId}/document`, childrenRelease())).status).toBe(200);
    const release = await call('POST', `/pcm/catalogs/${catalogId}/releases`);
    expect(release.status).toBe(201);
    const releaseId = release.body.data.id as string;

    await waitUntil(() => created.received.length >= 2, 30_000, 'two attempts of catalog-release.created');
    await waitUntil(() => published.received.length >= 1, 30_000, 'catalog-release.updated');
    const eventId = created.received[0]?.body.id as string;
    expect(
      created.received.map(({ headers, body }) => ({
        secret: headers['x-moltin-secret-key'],
        trigger: headers['x-moltin-integration-trigger'],
        id: body.id,
        attempt: body.attempt,
        integration: body.integration.id,
        release: body.payload.data.id,
      })),
    ).toEqual(
      [1, 2].map((attempt) => ({
        secret: 'created-secret',
        trigger: 'catalog-release.created',
        id: eventId,
        attempt,
        integration: createdId,
        release: releaseId,
      })),
    );
    expect(published.received).toHaveLength(1);
    expect(published.received[0]?.headers['x-moltin-secret-key']).toBe('published-secret');
    expect(published.received[0]?.body).toMatchObject({
      triggered_by: 'catalog-release.updated',
      attempt: 1,
      integration: { id: publishedId, name: 'published' },
      payload: { data: { id: releaseId, type: 'catalog-release', meta: { release_status: 'PUBLISHED' } } },
    });

    // Each attempt is logged once its answer came: the failed one and its retry, newest first.
    let logs = await call('GET', `/v2/integrations/${createdId}/logs`);
    for (let i = 0; logs.body.meta.results.total < 2 && i < 100; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      logs = await call('GET', `/v2/integrations/${createdId}/logs`);
    }
    expect(
      logs.body.data.map((log: any) => ({
        attempt: log.attempt,
        succeeded: log.succeeded,
        status_code: log.status_code,
        body: log.body,
        job: log.relationships.job.data.id,
      })),
    ).toEqual([
      { attempt: 2, succeeded: true, status_code: 200, body: '{"ok":true}', job: eventId },
      { attempt: 1, succeeded: false, status_code: 500, body: 'not yet', job: eventId },
    ]);
  } finally {
    await Promise.all([created.close(), published.close()]);
  }
}
