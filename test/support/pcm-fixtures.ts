import { RELEASE_SHARDS } from '../../lib/catalog/release-settings';
import { describeLocation } from '../../lib/files/service';
import { uuidv7 } from '../../lib/ids';
import { documentKey } from '../../lib/pcm/publishing';
import { createCatalogRule } from '../../lib/pcm/rules';
import { currencyRepository } from '../../lib/store/currency-repository';
import { fileRepository } from '../../lib/store/file-repository';
import { hierarchyRepository } from '../../lib/store/hierarchy-repository';
import { integrationRepository } from '../../lib/store/integration-repository';
import { nodeRepository } from '../../lib/store/node-repository';
import { objectStore } from '../../lib/store/object-store';
import { type PcmRelease, pcmRepository } from '../../lib/store/pcm-repository';
import { priceRepository } from '../../lib/store/price-repository';
import { pricebookRepository } from '../../lib/store/pricebook-repository';
import { productRepository } from '../../lib/store/product-repository';
import { variationRepository } from '../../lib/store/variation-repository';
import type { IntegrationEvent } from '../../lib/validation/integration';
import type { ModifierAttributes } from '../../lib/validation/variation';

/**
 * Catalogs and releases of the catalog API made straight through the repository and the bucket, for the
 * isolation matrix and the fuzz harness: a catalog (with `document` stored as the catalog's document, as
 * `PUT /pcm/catalogs/{id}/document` stores it), and a FAILED release of it (no workflow runs).
 */
export async function newPcmCatalog(
  storeId: string,
  name: string,
  document?: unknown,
  catalogId = uuidv7(),
): Promise<string> {
  const at = new Date().toISOString();
  await pcmRepository.createCatalog(storeId, {
    id: catalogId,
    name,
    description: '',
    hierarchy_ids: [],
    pricebook_id: null,
    created_at: at,
    updated_at: at,
  });
  if (document !== undefined) await setPcmDocument(storeId, catalogId, document, at);
  return catalogId;
}

/** Stores `document` as the catalog's document, as `PUT /pcm/catalogs/{id}/document` stores it. */
export async function setPcmDocument(
  storeId: string,
  catalogId: string,
  document: unknown,
  at = new Date().toISOString(),
): Promise<void> {
  const key = documentKey(storeId, catalogId);
  const text = JSON.stringify(document);
  await objectStore.put(key, text, { contentType: 'application/json' });
  await pcmRepository.setDocument(storeId, catalogId, {
    key,
    bytes: Buffer.byteLength(text),
    updated_at: at,
  });
}

/** A FAILED release of a catalog that has a document; the catalog is left free to publish. */
export async function failedRelease(storeId: string, catalogId: string): Promise<string> {
  const catalog = await pcmRepository.getCatalog(storeId, catalogId);
  if (!catalog?.document) throw new Error(`catalog ${catalogId} has no document`);
  const at = new Date().toISOString();
  const release: PcmRelease = {
    store_id: storeId,
    catalog_id: catalogId,
    release_id: uuidv7(),
    shards: RELEASE_SHARDS,
    status: 'failed',
    started_at: at,
    heartbeat_at: at,
    state: 'FAILED',
    name: catalog.name,
    document_key: catalog.document.key,
    created_at: at,
    updated_at: at,
    percent_completed: 0,
    errors: [{ path: '', rule: 'stalled', message: 'made by a test fixture' }],
    errors_total: 1,
  };
  await pcmRepository.createRelease(release);
  await pcmRepository.releaseLock(storeId, catalogId, release.release_id);
  return release.release_id;
}

/** A file of the files API (`/v2/files`) recorded straight through the repository: its id. */
export async function newFile(storeId: string, location: string): Promise<string> {
  const id = uuidv7();
  await fileRepository.create(storeId, {
    id,
    file_location: location,
    ...describeLocation(location),
    created_at: new Date().toISOString(),
  });
  return id;
}

/** Every field of a currency of `code` (the flat format of `/v2/currencies`), not the default. */
export const currencyFields = (code: string) => ({
  code,
  exchange_rate: 1,
  format: `${code} {price}`,
  decimal_point: '.',
  thousand_separator: ',',
  decimal_places: 2,
  default: false,
  enabled: true,
});

/**
 * A currency of the currencies API (`/v2/currencies`) made straight through the repository (its code
 * claimed and counted, as the API does; the store's first is its default): its id.
 */
export async function newCurrency(storeId: string, code: string, makeDefault = false): Promise<string> {
  const at = new Date().toISOString();
  const id = uuidv7();
  const { default: _default, ...fields } = currencyFields(code);
  await currencyRepository.create(storeId, { id, ...fields, created_at: at, updated_at: at }, makeDefault);
  return id;
}

/** A price book made straight through the repository (its name claimed and counted, as the API does): its id. */
export async function newPricebook(storeId: string, name: string): Promise<string> {
  const at = new Date().toISOString();
  const id = uuidv7();
  await pricebookRepository.create(storeId, { id, name, created_at: at, updated_at: at });
  return id;
}

/** A product of the product API made straight through the repository (its sku claimed, as the API does). */
export async function newPcmProduct(storeId: string, name: string, sku: string): Promise<string> {
  const at = new Date().toISOString();
  const id = uuidv7();
  await productRepository.create(storeId, {
    id,
    attributes: { name, sku, slug: sku, status: 'draft', commodity_type: 'physical' },
    created_at: at,
    updated_at: at,
    version: 1,
  });
  return id;
}

/** A variation with one option and one `sku_append` modifier on it, made through the repository. */
export async function newVariationTree(
  storeId: string,
  name: string,
): Promise<{ variationId: string; optionId: string; modifierId: string }> {
  const at = new Date().toISOString();
  const ids = { variationId: uuidv7(), optionId: uuidv7(), modifierId: uuidv7() };
  await variationRepository.createVariation(storeId, {
    id: ids.variationId,
    name,
    created_at: at,
    updated_at: at,
  });
  await variationRepository.createOption(storeId, {
    id: ids.optionId,
    variation_id: ids.variationId,
    name: 'Red',
    description: '',
    created_at: at,
    updated_at: at,
  });
  await variationRepository.createModifier(storeId, {
    id: ids.modifierId,
    variation_id: ids.variationId,
    option_id: ids.optionId,
    type: 'sku_append',
    value: '-RED',
    created_at: at,
    updated_at: at,
  });
  return ids;
}

/** A hierarchy (`slug`: none unless given), made through the repository. */
export async function newPcmHierarchy(storeId: string, name: string, slug?: string): Promise<string> {
  const at = new Date().toISOString();
  const id = uuidv7();
  await hierarchyRepository.create(storeId, {
    id,
    name,
    description: '',
    ...(slug === undefined ? {} : { slug }),
    created_at: at,
    updated_at: at,
    version: 1,
  });
  return id;
}

/**
 * A variation with options of these names (made in this order) and, per option name, the modifiers given,
 * through the repository; the ids of the variation and of each option by name.
 */
export async function newVariationWithOptions(
  storeId: string,
  name: string,
  options: string[],
  modifiers: Record<string, ModifierAttributes[]> = {},
): Promise<{ variationId: string; options: Record<string, string> }> {
  const at = new Date().toISOString();
  const variationId = uuidv7();
  await variationRepository.createVariation(storeId, {
    id: variationId,
    name,
    created_at: at,
    updated_at: at,
  });
  const ids: Record<string, string> = {};
  for (const option of options) {
    const optionId = uuidv7();
    ids[option] = optionId;
    await variationRepository.createOption(storeId, {
      id: optionId,
      variation_id: variationId,
      name: option,
      description: `${option} option`,
      created_at: at,
      updated_at: at,
    });
    for (const modifier of modifiers[option] ?? []) {
      await variationRepository.createModifier(storeId, {
        ...modifier,
        id: uuidv7(),
        variation_id: variationId,
        option_id: optionId,
        created_at: at,
        updated_at: at,
      });
    }
  }
  return { variationId, options: ids };
}

/** A price (one USD amount) of a price book, made straight through the repository (its sku claimed). */
export async function newPrice(storeId: string, pricebookId: string, sku: string): Promise<string> {
  const at = new Date().toISOString();
  const id = uuidv7();
  const currencies = { USD: { amount: 100, includes_tax: false } };
  await priceRepository.createPrice(storeId, pricebookId, {
    id,
    sku,
    currencies,
    created_at: at,
    updated_at: at,
  });
  return id;
}

/** A price modifier (`price_increment` of one USD amount) of a price book, made through the repository. */
export async function newPriceModifier(storeId: string, pricebookId: string, name: string): Promise<string> {
  const at = new Date().toISOString();
  const id = uuidv7();
  const currencies = { USD: { amount: 100, includes_tax: false } };
  await priceRepository.createModifier(storeId, pricebookId, {
    id,
    name,
    modifier_type: 'price_increment',
    currencies,
    created_at: at,
    updated_at: at,
  });
  return id;
}

/** A node of a hierarchy (top-level unless `parentId`), made through the repository. */
export async function newPcmNode(
  storeId: string,
  hierarchyId: string,
  name: string,
  parentId: string | null = null,
): Promise<string> {
  const at = new Date().toISOString();
  const id = uuidv7();
  const parent = parentId === null ? undefined : await nodeRepository.get(storeId, hierarchyId, parentId);
  await nodeRepository.create(
    storeId,
    {
      id,
      hierarchy_id: hierarchyId,
      name,
      description: '',
      curated_products: [],
      parent_id: parentId,
      sort_order: null,
      created_at: at,
      updated_at: at,
      version: 1,
      children: 0,
      products: 0,
    },
    parent === undefined ? [] : [parent],
  );
  return id;
}

/** A catalog rule with no criteria (every shopper matches it), made through the service: its id. */
export async function newCatalogRule(storeId: string, name: string, catalogId: string): Promise<string> {
  return (await createCatalogRule(storeId, { name, catalog_id: catalogId }, undefined)).id;
}

/** The events of a catalog's release routes: the collection (`all`) and one release (`one(id)`). */
export function releaseRequests(catalogId: string, headers: Record<string, string>) {
  return {
    all: { path: `/pcm/catalogs/${catalogId}/releases`, pathParameters: { catalog_id: catalogId }, headers },
    one: (releaseId: string) => ({
      path: `/pcm/catalogs/${catalogId}/releases/${releaseId}`,
      pathParameters: { catalog_id: catalogId, release_id: releaseId },
      headers,
    }),
  };
}

/** A webhook integration of the store, through the repository (its URL unchecked: nothing is delivered to it). */
export async function newIntegration(
  storeId: string,
  name: string,
  url = 'https://93.184.216.34/hooks',
  observes: IntegrationEvent[] = ['catalog-rule.created'],
): Promise<string> {
  const at = new Date().toISOString();
  const id = uuidv7();
  await integrationRepository.create(storeId, {
    id,
    name,
    description: '',
    enabled: true,
    integration_type: 'webhook',
    observes,
    configuration: { url, secret_key: `secret-of-${id}` },
    origin: 'https://api.example.test',
    created_at: at,
    updated_at: at,
  });
  return id;
}

/** One logged delivery attempt (succeeded, 200 `ok`) of an integration: its job's id. */
export async function newIntegrationLog(storeId: string, integrationId: string): Promise<string> {
  const jobId = uuidv7();
  await integrationRepository.putLog(storeId, {
    id: uuidv7(),
    integration_id: integrationId,
    job_id: jobId,
    trigger: 'catalog-rule.created',
    succeeded: true,
    attempt: 1,
    body: 'ok',
    status_code: 200,
    error_detail: '',
    processing_time: 12,
    created_at: new Date().toISOString(),
  });
  return jobId;
}
