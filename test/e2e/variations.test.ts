import { createTestStore, SHARED_STORE_RATE_LIMIT, type TestStore } from '../support/fixtures';
import { type LocalApi, sdkClient, startLocalApi } from '../support/local-api';

/**
 * Variations, options and modifiers through the official SDK, unmodified, against the local server
 * (docs/variations.md): `PCMVariations.CreateVariation`, `All`, `Get`, `UpdateVariation`, `Delete`, the
 * option calls (`CreateVariationsOption`, `VariationsOptions`, `VariationsOption`, `UpdateVariationsOption`,
 * `DeleteVariationsOption`) and the modifier calls (`CreateVariationsModifier`, `VariationsModifiers`,
 * `VariationsModifier`, `UpdateVariationsModifier`, `DeleteVariationsModifier`).
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

it('creates, reads, updates and deletes a variation, its options and their modifiers', async () => {
  const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  const variations = sdk.PCMVariations;

  const created = await variations.CreateVariation({ attributes: { name: 'Size', sort_order: 2 } } as never);
  const variationId = created.data.id;
  expect(created.data).toEqual({
    id: variationId,
    type: 'product-variation',
    attributes: { name: 'Size', sort_order: 2 },
    meta: { options: [], owner: 'store', created_at: DATE, updated_at: DATE },
  });

  const option = await variations.CreateVariationsOption(variationId, {
    attributes: { name: 'Large', description: 'A large one' },
  } as never);
  const optionId = option.data.id;
  expect(option.data.attributes).toEqual({ name: 'Large', description: 'A large one' });

  const modifier = await variations.CreateVariationsModifier(variationId, optionId, {
    attributes: { type: 'sku_builder', seek: '{size}', set: 'L' },
  });
  const modifierId = modifier.data.id;
  expect(modifier.data).toEqual({
    id: modifierId,
    type: 'product-variation-modifier',
    attributes: { type: 'sku_builder', seek: '{size}', set: 'L' },
    meta: { owner: 'store' },
  });

  const got = await variations.Get(variationId);
  expect(got.data.meta?.options).toEqual([
    { id: optionId, name: 'Large', description: 'A large one', created_at: DATE, updated_at: DATE },
  ]);
  const all = await variations.Limit(10).All();
  expect(all.data.map((variation: { id: string }) => variation.id)).toEqual([variationId]);

  const renamed = await variations.UpdateVariation(variationId, {
    id: variationId,
    attributes: { name: 'Sizes', sort_order: null },
  } as never);
  expect(renamed.data.attributes).toEqual({ name: 'Sizes' });

  const options = await variations.VariationsOptions(variationId);
  expect(options.data.map((o: { id: string }) => o.id)).toEqual([optionId]);
  expect((await variations.VariationsOption(variationId, optionId)).data.meta.modifiers).toEqual([
    { sku_builder: { seek: '{size}', set: 'L' } },
  ]);
  const updatedOption = await variations.UpdateVariationsOption(variationId, optionId, {
    id: optionId,
    attributes: { name: 'XL', description: 'Extra large' },
  } as never);
  expect(updatedOption.data.attributes).toEqual({ name: 'XL', description: 'Extra large' });

  const modifiers = await variations.VariationsModifiers(variationId, optionId);
  expect(modifiers.data.map((m: { id: string }) => m.id)).toEqual([modifierId]);
  expect((await variations.VariationsModifier(variationId, optionId, modifierId)).data.id).toBe(modifierId);
  const updatedModifier = await variations.UpdateVariationsModifier(variationId, optionId, modifierId, {
    attributes: { type: 'sku_append', value: '-XL' },
  });
  expect(updatedModifier.data.attributes).toEqual({ type: 'sku_append', value: '-XL' });

  await variations.DeleteVariationsModifier(variationId, optionId, modifierId);
  expect((await variations.VariationsModifiers(variationId, optionId)).data).toEqual([]);
  await variations.DeleteVariationsOption(variationId, optionId);
  expect((await variations.VariationsOptions(variationId)).data).toEqual([]);
  await variations.Delete(variationId);
  await expect(variations.Get(variationId)).rejects.toEqual({
    errors: [
      { status: '404', title: 'Not Found', detail: 'variation not found', request_id: expect.any(String) },
    ],
  });
});

it('a wrong value shape for a modifier type is refused with 422 through the SDK', async () => {
  const sdk = sdkClient(api, { clientId: store.clientId, clientSecret: store.clientSecret });
  const variation = await sdk.PCMVariations.CreateVariation({ attributes: { name: 'Colour' } } as never);
  const option = await sdk.PCMVariations.CreateVariationsOption(variation.data.id, {
    attributes: { name: 'Red', description: '' },
  } as never);
  await expect(
    sdk.PCMVariations.CreateVariationsModifier(variation.data.id, option.data.id, {
      attributes: { type: 'sku_builder', value: 'RED' },
    }),
  ).rejects.toEqual({
    errors: [
      {
        status: '422',
        title: 'Unprocessable Entity',
        detail: 'seek is required for a sku_builder modifier',
        source: 'data.attributes.seek',
        request_id: expect.any(String),
      },
    ],
  });
});
