import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * Child products through the official SDK, unmodified, against the local server (docs/child-products.md):
 * `PCM.Create`, `PCMVariations.CreateVariation` with options and modifiers, `PCM.VariationsRelationships`
 * (`Create`, `All`, `Update`, `Delete`), `PCM.BuildChildProducts`, `PCM.Jobs.Get` until the job ends, and
 * `PCM.GetChildProducts`.
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

type Sdk = ReturnType<typeof sdkClient>;

/** Polls the job until it is no longer pending or started (the local queue runs it in this process). */
async function finished(sdk: Sdk, jobId: string): Promise<{ attributes: { status: string } }> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const job = (await sdk.PCM.Jobs.Get(jobId)) as unknown as { data: { attributes: { status: string } } };
    if (!['pending', 'started'].includes(job.data.attributes.status)) return job.data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`job ${jobId} did not end`);
}

it('links variations, builds the children as a job and lists them', async () => {
  const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  const parent = await sdk.PCM.Create({
    attributes: { name: 'SDK tee', sku: 'SDK-TEE', commodity_type: 'physical', status: 'live' },
  } as never);
  const colour = await sdk.PCMVariations.CreateVariation({ attributes: { name: 'Colour' } } as never);
  const red = await sdk.PCMVariations.CreateVariationsOption(colour.data.id, {
    attributes: { name: 'Red', description: 'Red' },
  } as never);
  await sdk.PCMVariations.CreateVariationsOption(colour.data.id, {
    attributes: { name: 'Blue', description: 'Blue' },
  } as never);
  await sdk.PCMVariations.CreateVariationsModifier(colour.data.id, red.data.id, {
    attributes: { type: 'name_append', value: ' (red)' },
  });
  const size = await sdk.PCMVariations.CreateVariation({ attributes: { name: 'Size' } } as never);
  await sdk.PCMVariations.CreateVariationsOption(size.data.id, {
    attributes: { name: 'S', description: 'Small' },
  } as never);

  await sdk.PCM.VariationsRelationships.Create(parent.data.id, [colour.data.id]);
  await sdk.PCM.VariationsRelationships.Create(parent.data.id, [size.data.id]);
  const linked = (await sdk.PCM.VariationsRelationships.All(parent.data.id)) as unknown as {
    data: { type: string; id: string }[];
  };
  expect(linked.data.map((link) => [link.type, link.id])).toEqual([
    ['product-variation', colour.data.id],
    ['product-variation', size.data.id],
  ]);

  const job = (await sdk.PCM.BuildChildProducts(parent.data.id)) as unknown as {
    data: { id: string; type: string; attributes: { type: string } };
  };
  expect([job.data.type, job.data.attributes.type]).toEqual(['pim-job', 'child-products']);
  expect((await finished(sdk, job.data.id)).attributes.status).toBe('success');

  const children = (await sdk.PCM.GetChildProducts(parent.data.id)) as unknown as {
    data: { attributes: { name: string; sku: string } }[];
    meta: { results: { total: number } };
  };
  expect(children.meta.results.total).toBe(2);
  expect(children.data.map((child) => [child.attributes.sku, child.attributes.name]).sort()).toEqual([
    ['SDK-TEEBlueS', 'SDK tee'],
    ['SDK-TEERedS', 'SDK tee (red)'],
  ]);

  // A linked variation cannot be deleted; unlinked (Update to Colour only, then Delete), it can.
  const refused = await sdk.PCMVariations.Delete(size.data.id).catch((error) => error.errors[0]);
  expect(refused.detail).toMatch(/^One or more variations are currently in use/);
  await sdk.PCM.VariationsRelationships.Update(parent.data.id, [colour.data.id]);
  await sdk.PCM.VariationsRelationships.Delete(parent.data.id, [colour.data.id]);
  await sdk.PCMVariations.Delete(size.data.id);
  const rebuilt = (await sdk.PCM.BuildChildProducts(parent.data.id)) as unknown as { data: { id: string } };
  expect((await finished(sdk, rebuilt.data.id)).attributes.status).toBe('success');
  const none = (await sdk.PCM.GetChildProducts(parent.data.id)) as unknown as { data: unknown[] };
  expect(none.data).toEqual([]);
});
