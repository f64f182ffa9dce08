import { hashSecret } from '../lib/auth/secrets';
import { uuidv7 } from '../lib/ids';
import type { WriteCaller } from '../lib/store/caller-check';
import { type ProductRecord, productRepository } from '../lib/store/product-repository';
import type { OperationBench } from './operations';
import type { Scenario } from './scenario';

/** Products the authoring bench's store holds besides the ones it creates: the filtered list reads past them. */
const SEEDED_PRODUCTS = 200;

/** A product record as the create route stores it (its sku claimed with it). */
function productRecord(name: string, sku: string): ProductRecord {
  const at = new Date().toISOString();
  return {
    id: uuidv7(),
    attributes: { name, sku, slug: sku, status: 'draft', commodity_type: 'physical' },
    created_at: at,
    updated_at: at,
    version: 1,
  };
}

export interface AuthoringBench {
  /** Product API operations, each against the DynamoDB calls it makes (issued through the repository). */
  operations: OperationBench[];
  /** A product of the store for the get, update and delete cold starts. */
  productId: string;
  /** Fresh products for the delete cold starts, one per run. */
  deletableProductIds: string[];
}

/**
 * The product API's bench: a store with SEEDED_PRODUCTS products, a product the handler reads and updates
 * and a twin the raw calls read and update (so both sides really move a version), and creates with a new
 * sku at every call on both sides.
 */
export async function setUpAuthoringBench(s: Scenario, coldRuns: number): Promise<AuthoringBench> {
  const storeId = s.store.id;
  const tag = uuidv7().slice(-8);
  for (let i = 0; i < SEEDED_PRODUCTS; i += 1)
    await productRepository.create(storeId, productRecord(`Seeded ${i}`, `bench-${tag}-seed-${i}`));
  const viaHandler = productRecord('Handler product', `bench-${tag}-handler`);
  const viaRaw = productRecord('Raw product', `bench-${tag}-raw`);
  await productRepository.create(storeId, viaHandler);
  await productRepository.create(storeId, viaRaw);
  const deletableProductIds: string[] = [];
  for (let i = 0; i < coldRuns; i += 1) {
    const doomed = productRecord(`Doomed ${i}`, `bench-${tag}-doomed-${i}`);
    await productRepository.create(storeId, doomed);
    deletableProductIds.push(doomed.id);
  }
  const token = s.adminToken;
  // The handlers' writes check their caller's token and key in the same transaction: so do the raw ones.
  const caller: WriteCaller = { storeId, keyId: s.keyId, tokenHash: hashSecret(token) };
  const productPath = `/pcm/products/${viaHandler.id}`;
  const operations: OperationBench[] = [
    {
      function: 'pcm-create-product',
      expectStatus: 201,
      event: (call) =>
        s.event('POST', '/pcm/products', {
          token,
          body: {
            data: { type: 'product', attributes: { name: `Created ${call}`, sku: `bench-${tag}-h-${call}` } },
          },
        }),
      raw: (call) =>
        productRepository.create(storeId, productRecord(`Created ${call}`, `bench-${tag}-r-${call}`), caller),
    },
    {
      function: 'pcm-get-product',
      expectStatus: 200,
      event: () => s.event('GET', productPath, { token }),
      raw: () => productRepository.get(storeId, viaRaw.id),
    },
    {
      function: 'pcm-update-product',
      expectStatus: 200,
      event: (call) =>
        s.event('PUT', productPath, {
          token,
          body: { data: { type: 'product', id: viaHandler.id, attributes: { name: `Renamed ${call}` } } },
        }),
      raw: async (call) => {
        const before = (await productRepository.get(storeId, viaRaw.id)) as ProductRecord;
        await productRepository.replace(
          storeId,
          before,
          {
            ...before,
            attributes: { ...before.attributes, name: `Renamed ${call}` },
            updated_at: new Date().toISOString(),
            version: before.version + 1,
          },
          caller,
        );
      },
    },
    {
      function: 'pcm-list-products',
      expectStatus: 200,
      event: () =>
        s.event('GET', `/pcm/products?filter=${encodeURIComponent(`eq(sku,bench-${tag}-seed-7)`)}`, {
          token,
        }),
      raw: async () => {
        const id = await productRepository.idOfSku(storeId, `bench-${tag}-seed-7`);
        await productRepository.getMany(storeId, id ? [id] : []);
      },
    },
  ];
  return { operations, productId: viaHandler.id, deletableProductIds };
}
