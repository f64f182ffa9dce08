import { resetConfig } from '../../lib/config/index';
import { sendLocalDelivery } from '../../lib/integrations/queue';
import { integrationLogs } from '../../lib/integrations/service';
import { sendJobMessage } from '../../lib/jobs/queue';
import { closeServer, LOCAL_KEEP_ALIVE_MS, listen } from '../../local/gateway';
import { createLocalServer } from '../../local/server';
import { newIntegration, newPcmCatalog } from '../support/pcm-fixtures';
import { newStoreClient } from '../support/store-client';
import { startWebhookListener, waitUntil } from '../support/webhook-listener';

/**
 * Closing the local server stops the deliveries and jobs queues it started: the delivery under way ends (and
 * is logged) before `closeServer` resolves, its retry is not left on a timer, and neither queue is the
 * process's any more.
 * A queue left running delivers into whatever runs next in the process (in Jest, the next test file).
 */

const TIMEOUT_MS = 500;

beforeAll(() => {
  process.env.INTEGRATIONS_DELIVERY_TIMEOUT_MS = String(TIMEOUT_MS);
  // The retry would wait 30 s: it is waiting on its timer when the server closes.
  process.env.INTEGRATIONS_RETRY_BASE_MS = '30000';
  resetConfig();
});
afterAll(() => {
  delete process.env.INTEGRATIONS_DELIVERY_TIMEOUT_MS;
  delete process.env.INTEGRATIONS_RETRY_BASE_MS;
  resetConfig();
});

it('ends the delivery under way, drops its retry and unregisters the queue before closeServer resolves', async () => {
  const server = createLocalServer();
  const base = `http://127.0.0.1:${await listen(server, 0)}`;
  const listener = await startWebhookListener(['hang']);
  try {
    const { storeId, call } = await newStoreClient(base);
    const integrationId = await newIntegration(storeId, 'closing', listener.url);
    const catalogId = await newPcmCatalog(storeId, 'Closing');
    const rule = await call('POST', '/pcm/catalogs/rules', {
      data: { type: 'catalog_rule', attributes: { name: 'closing', catalog_id: catalogId } },
    });
    expect(rule.status).toBe(201);
    // The first attempt is held open by the endpoint: the receive is under way as the server closes.
    await waitUntil(() => listener.received.length === 1, 5000, 'the first attempt');
    expect(await integrationLogs(storeId, integrationId)).toHaveLength(0);

    await closeServer(server);
    // The attempt timed out and was logged before the close resolved; nothing was sent again.
    const logs = await integrationLogs(storeId, integrationId);
    expect(logs.map((log) => [log.attempt, log.succeeded])).toEqual([[1, false]]);
    expect(() => sendLocalDelivery('{}')).toThrow('no deliveries queue');
    // Its jobs queue is no longer the process's either: a job enqueued now finds none.
    await expect(
      sendJobMessage({ store_id: storeId, job_id: 'after-close' } as Parameters<typeof sendJobMessage>[0]),
    ).rejects.toThrow('no job queue');
    expect(listener.received).toHaveLength(1);
  } finally {
    await listener.close();
  }
});

it('keeps idle connections 65 s and says so (fetch then keeps them 64 s, far from the time it hands one out)', async () => {
  const server = createLocalServer();
  try {
    const response = await fetch(`http://127.0.0.1:${await listen(server, 0)}/openapi.json`);
    await response.arrayBuffer();
    expect([response.status, response.headers.get('keep-alive')]).toEqual([200, 'timeout=65']);
    expect(LOCAL_KEEP_ALIVE_MS).toBe(65_000);
  } finally {
    await closeServer(server);
  }
});
