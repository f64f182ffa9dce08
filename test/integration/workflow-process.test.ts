import type { Server } from 'node:http';
import { registerLocalWorkflow } from '../../lib/catalog/pipeline/start';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { closeServer, listen } from '../../local/gateway';
import { createLocalServer } from '../../local/server';
import { runWorkflowInChild } from '../../local/workflow-process';
import { childrenRelease } from '../support/catalog-fixtures';
import { newPcmCatalog } from '../support/pcm-fixtures';
import { newStoreClient } from '../support/store-client';
import { startWebhookListener, waitUntil } from '../support/webhook-listener';

/**
 * `npm start`'s server runs the publishing workflow in a child process: the release publishes there (which
 * records its peak RSS on the release), the webhook events its steps emit reach the server's deliveries
 * queue (the child has none), and a child that dies ends its release FAILED, with that event delivered too.
 */

let server: Server;
let base: string;

/** The workflow runs the server started, to wait for a child's end. */
const runs: Promise<unknown>[] = [];

beforeAll(async () => {
  server = createLocalServer({ workflow: 'child' });
  // The server's own registration, wrapped to keep each run.
  registerLocalWorkflow((input) => {
    const run = runWorkflowInChild(input);
    runs.push(run);
    return run;
  });
  base = `http://127.0.0.1:${await listen(server, 0)}`;
});
afterAll(async () => {
  await closeServer(server);
});

const SECRET = 'child-secret';

async function hookedCatalog(url: string) {
  const client = await newStoreClient(base);
  const integration = await client.call('POST', '/v2/integrations', {
    data: {
      type: 'integration',
      name: 'releases',
      observes: ['catalog-release.created', 'catalog-release.updated'],
      configuration: { url, secret_key: SECRET },
    },
  });
  expect(integration.status).toBe(200);
  const catalogId = await newPcmCatalog(client.storeId, 'Apart', childrenRelease({ catalogName: 'Apart' }));
  return { ...client, catalogId };
}

const updates = (received: { headers: Record<string, unknown>; body: any }[]) =>
  received.filter((r) => r.headers['x-moltin-integration-trigger'] === 'catalog-release.updated');

it('publishes in the child and delivers the events its steps emit through the server', async () => {
  const listener = await startWebhookListener();
  try {
    const { call, catalogId, storeId } = await hookedCatalog(listener.url);
    const created = await call('POST', `/pcm/catalogs/${catalogId}/releases`, {});
    expect(created.status).toBe(201);
    const releaseId = created.body.data.id as string;
    await waitUntil(() => updates(listener.received).length === 1, 60_000, 'the release event');
    const [updated] = updates(listener.received);
    expect(updated?.headers['x-moltin-secret-key']).toBe(SECRET);
    expect(updated?.body.payload.data).toMatchObject({
      id: releaseId,
      meta: { release_status: 'PUBLISHED' },
    });
    const read = await call('GET', `/pcm/catalogs/${catalogId}/releases/${releaseId}`);
    expect(read.body.data.meta.release_status).toBe('PUBLISHED');
    // Recorded as the process ends, after the release's event: the registered run ends after that.
    await Promise.all(runs);
    const record = await pcmRepository.getRelease(storeId, catalogId, releaseId);
    expect(record?.workflow_peak_rss_mb).toBeGreaterThan(10);
    expect(record?.workflow_peak_rss_mb).toBeLessThan(512);
    expect(
      listener.received.filter(
        (r) => r.headers['x-moltin-integration-trigger'] === 'catalog-release.created',
      ),
    ).toHaveLength(1);
  } finally {
    await listener.close();
  }
});

it('ends the release FAILED when its process dies, and delivers that', async () => {
  const listener = await startWebhookListener();
  // Releases run in a process whose heap cannot hold the steps' code: it dies of it, as one out of memory does.
  registerLocalWorkflow((input) => runWorkflowInChild(input, { heapMb: 4 }));
  try {
    const { call, catalogId } = await hookedCatalog(listener.url);
    const created = await call('POST', `/pcm/catalogs/${catalogId}/releases`, {});
    expect(created.status).toBe(201);
    await waitUntil(() => updates(listener.received).length === 1, 60_000, 'the release event');
    const [updated] = updates(listener.received);
    expect(updated?.body.payload.data.meta.release_status).toBe('FAILED');
    // The release says why: the abandon step names the process's end.
    expect(updated?.body.payload.data.meta.errors[0].detail).toBe(
      'the release could not be published (OutOfMemory); publish again',
    );
    const read = await call('GET', `/pcm/catalogs/${catalogId}/releases/${created.body.data.id}`);
    expect(read.body.data.meta.release_status).toBe('FAILED');
  } finally {
    registerLocalWorkflow((input) => runWorkflowInChild(input));
    await listener.close();
  }
});
