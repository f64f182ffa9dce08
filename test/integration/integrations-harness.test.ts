import type { Server } from 'node:http';
import { resetConfig } from '../../lib/config/index';
import { closeServer, listen } from '../../local/gateway';
import { createLocalServer } from '../../local/server';
import { newPcmCatalog } from '../support/pcm-fixtures';
import { newStoreClient } from '../support/store-client';
import { startWebhookListener, waitUntil } from '../support/webhook-listener';

/**
 * Webhook deliveries through the local harness itself (`npm start`'s server, its own in-process queue): a
 * delivery waiting on an endpoint that does not answer is off the request path, so the API keeps answering
 * meanwhile, and the attempt is timed out, logged and retried.
 */

const TIMEOUT_MS = 2000;
let server: Server;
let base: string;

beforeAll(async () => {
  process.env.INTEGRATIONS_DELIVERY_TIMEOUT_MS = String(TIMEOUT_MS);
  process.env.INTEGRATIONS_RETRY_BASE_MS = '10';
  resetConfig();
  server = createLocalServer();
  base = `http://127.0.0.1:${await listen(server, 0)}`;
});
afterAll(async () => {
  await closeServer(server);
  delete process.env.INTEGRATIONS_DELIVERY_TIMEOUT_MS;
  delete process.env.INTEGRATIONS_RETRY_BASE_MS;
  resetConfig();
});

it('keeps answering while a delivery waits on an endpoint that does not answer, then retries it', async () => {
  const { storeId, call } = await newStoreClient(base);
  const listener = await startWebhookListener(['hang']);
  try {
    const created = await call('POST', '/v2/integrations', {
      data: {
        type: 'integration',
        name: 'slow',
        observes: ['catalog-rule.created'],
        configuration: { url: listener.url },
      },
    });
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    const catalogId = await newPcmCatalog(storeId, 'Harness');
    const rule = await call('POST', '/pcm/catalogs/rules', {
      data: { type: 'catalog_rule', attributes: { name: 'slow', catalog_id: catalogId } },
    });
    expect(rule.status).toBe(201);

    await waitUntil(() => listener.received.length === 1, 5000, 'the first attempt');
    // The endpoint holds the first attempt open: requests are answered meanwhile, well within its timeout.
    const started = Date.now();
    const list = await call('GET', '/v2/integrations');
    expect(list.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS / 2);
    expect(listener.received).toHaveLength(1);
    expect((await call('GET', `/v2/integrations/${id}/logs`)).body.meta.results.total).toBe(0);

    await waitUntil(() => listener.received.length === 2, 10_000, 'the second attempt');
    let logs = await call('GET', `/v2/integrations/${id}/logs`);
    for (let i = 0; logs.body.meta.results.total < 2 && i < 100; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      logs = await call('GET', `/v2/integrations/${id}/logs`);
    }
    expect(
      logs.body.data.map((log: { attempt: number; succeeded: boolean }) => [log.attempt, log.succeeded]),
    ).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(logs.body.data[1].error_detail).toBe(
      `no answer within ${TIMEOUT_MS} ms - treating webhook as a fail`,
    );
    expect(listener.received[0]?.body.id).toBe(listener.received[1]?.body.id);
  } finally {
    await listener.close();
  }
});
