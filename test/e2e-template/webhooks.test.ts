import { type LocalApi, startLocalApi } from '../support/local-api';
import { expectReleaseWebhooks } from '../support/release-webhooks';

/**
 * Webhook deliveries of the template-driven local API (`npm start -- --from-template`): the deliveries queue
 * read from the template (its consumer, its maxReceiveCount), fed by the functions' workers and by the state
 * machine's steps, delivered by the delivery function's bundle, which sets a failed attempt's delay on it.
 */

let api: LocalApi;
beforeAll(async () => {
  // The functions' environments take it from here (local/delivery-queue.ts `localDeliveryEnvironment`).
  process.env.INTEGRATIONS_RETRY_BASE_MS = '10';
  api = await startLocalApi();
});
afterAll(async () => {
  await api.close();
  delete process.env.INTEGRATIONS_RETRY_BASE_MS;
});

it('delivers a release’s events through the delivery function’s bundle, a failed attempt retried, both logged', async () => {
  await expectReleaseWebhooks(api.baseUrl);
}, 90_000);
