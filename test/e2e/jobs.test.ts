import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * A CSV product import over HTTP, followed with the official SDK, unmodified (docs/jobs.md): the form is
 * posted with fetch (the SDK's `PCM.ImportProducts` sends a FormData as JSON under Node, which is a 400
 * here saying so, checked below), then `PCM.Jobs.Get` until the job ends, `PCM.Jobs.All`, `PCM.Jobs.GetJobErrors`
 * and the products through `PCM`. The job runs through the local server's jobs queue, as in AWS through
 * SQS: after the request answered.
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

async function importCsv(token: string, csv: string) {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'products.csv');
  const response = await fetch(`${api.baseUrl}/pcm/products/import`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as { data: { id: string } } };
}

type Sdk = ReturnType<typeof sdkClient>;
/** Polls the job with the SDK until it ends (the queue runs it in the server's process). */
async function settled(sdk: Sdk, id: string) {
  for (;;) {
    const job = await sdk.PCM.Jobs.Get(id);
    const status = job.data.attributes.status;
    if (status !== 'pending' && status !== 'started') return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('imports a CSV file as a job the SDK follows to success, then lists it and its (no) errors', async () => {
  const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  const { access_token: token } = await sdk.Authenticate();
  const csv = [
    'external_ref,name,description,slug,status,commodity_type,sku,tags',
    'e2e-1,E2E tee,"Soft, ""warm""",,Live,physical,E2E-1,"summer,sale"',
    'e2e-2,E2E cap,,,draft,digital,E2E-2,',
  ].join('\r\n');
  const created = await importCsv(token, csv);
  expect(created.status).toBe(201);
  const job = await settled(sdk, created.body.data.id);
  expect(job.data).toMatchObject({
    type: 'pim-job',
    attributes: { type: 'product-import', status: 'success' },
  });
  expect((await sdk.PCM.Jobs.All()).data.map((entry: { id: string }) => entry.id)).toContain(job.data.id);
  expect((await sdk.PCM.Jobs.GetJobErrors(job.data.id)).data).toEqual([]);
  const tee = (await sdk.PCM.Filter({ eq: { sku: 'E2E-1' } }).All()).data[0];
  expect(tee?.attributes).toMatchObject({
    name: 'E2E tee',
    description: 'Soft, "warm"',
    tags: ['summer', 'sale'],
  });
});

it('reports a wrong row through GetJobErrors, naming its line and column, and imports nothing', async () => {
  const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  const { access_token: token } = await sdk.Authenticate();
  const csv =
    'external_ref,name,description,slug,status,commodity_type,sku\ne2e-3,Fine,,,live,physical,E2E-3\ne2e-4,Bad,,,sold,physical,\n';
  const created = await importCsv(token, csv);
  const job = await settled(sdk, created.body.data.id);
  expect(job.data.attributes.status).toBe('failed');
  const errors = await sdk.PCM.Jobs.GetJobErrors(job.data.id);
  expect(errors.data).toEqual([
    expect.objectContaining({ type: 'pim-job-error', meta: { line: 3, column: 'status' } }),
  ]);
  expect((await sdk.PCM.Filter({ eq: { sku: 'E2E-3' } }).All()).data).toEqual([]);
});

it("answers the SDK's PCM.ImportProducts under Node (a FormData sent as JSON) with a 400 saying what to send", async () => {
  const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  await sdk.Authenticate();
  const form = new FormData();
  form.append('file', new Blob(['external_ref,name\n'], { type: 'text/csv' }), 'products.csv');
  await expect(sdk.PCM.ImportProducts(form as never)).rejects.toMatchObject({
    errors: [{ status: '400', source: 'data', detail: expect.stringContaining('post the form with fetch') }],
  });
});
