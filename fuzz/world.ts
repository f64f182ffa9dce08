import sampleRelease from '../catalog/sample-release.json';
import { issueAccessToken } from '../lib/auth/issue-token';
import { runChildProductsBuild } from '../lib/builds/build';
import { runWorkflowLocally } from '../lib/catalog/pipeline/run-local';
import { registerLocalWorkflow } from '../lib/catalog/pipeline/start';
import { getConfig } from '../lib/config/index';
import { toApiError } from '../lib/http/errors';
import { uuidv4, uuidv7 } from '../lib/ids';
import { registerLocalDeliveryQueue } from '../lib/integrations/queue';
import { registerLocalJobQueue } from '../lib/jobs/queue';
import { enqueueJob } from '../lib/jobs/service';
import { createRelease } from '../lib/pcm/publishing';
import { deleteCatalogRule, listCatalogRules } from '../lib/pcm/rules';
import { applicationKeyRepository } from '../lib/store/application-key-repository';
import { catalogRepository } from '../lib/store/catalog-repository';
import { getDocumentClient } from '../lib/store/client';
import {
  CurrencyCodeTakenError,
  CurrencyLimitError,
  CurrencyWriteConflictError,
  currencyRepository,
} from '../lib/store/currency-repository';
import { fileRepository } from '../lib/store/file-repository';
import { IntegrationLimitError, integrationRepository } from '../lib/store/integration-repository';
import { mappingRepository } from '../lib/store/mapping-repository';
import { CatalogLimitError, pcmRepository } from '../lib/store/pcm-repository';
import { PricebookLimitError, pricebookRepository } from '../lib/store/pricebook-repository';
import { type ProductRecord, productRepository } from '../lib/store/product-repository';
import { type StoreRecord, storeRepository } from '../lib/store/store-repository';
import { variationRepository } from '../lib/store/variation-repository';
import { createHttpEvent, createLambdaContext } from '../local/http-event';
import { loadHandler } from '../local/router';
import { type ConflictCounts, emulateConflicts } from '../test/support/faults';
import { publishRelease } from '../test/support/one-process-publisher';
import {
  failedRelease,
  newCatalogRule,
  newCurrency,
  newFile,
  newIntegration,
  newIntegrationLog,
  newPcmCatalog,
  newPcmHierarchy,
  newPcmNode,
  newPcmProduct,
  newPrice,
  newPricebook,
  newPriceModifier,
  newVariationTree,
} from '../test/support/pcm-fixtures';

/**
 * What the fuzzed requests refer to. Arbitraries never hold real ids, credentials or tokens: they write
 * placeholders such as `{{adminToken}}` that are filled in just before a request is sent, so a seed
 * replays the same requests on any database, and a printed counterexample holds no secret.
 */
export interface FuzzWorld {
  /** The value of a placeholder (`freshKeyId` creates a key each time); undefined for unknown names. */
  resolve(name: string): Promise<string | undefined>;
  /** Tokens and client secrets: never printed. */
  secrets: string[];
  /**
   * Storefront traffic sent alongside every case: an implicit grant for store A's client id, as every
   * shopper of a storefront sends. Resolves to its HTTP status (a 5xx fails the case).
   */
  shopper(): Promise<number>;
  /** DynamoDB's transaction conflicts as emulated on the client while the cases run. */
  conflicts: ConflictCounts;
  /**
   * Resolves once no publishing workflow started by a release (`POST /pcm/catalogs/{id}/releases`) is still
   * running in this process: call it before the run ends, so no workflow outlives it.
   */
  settle(): Promise<void>;
}

/** Placeholder names the arbitraries may use, with what they stand for. */
export const PLACEHOLDERS = {
  adminToken: 'a client_credentials token of the fuzzed store (store A)',
  implicitToken: 'an implicit token of store A',
  otherAdminToken: 'a client_credentials token of another store (store B)',
  otherImplicitToken: 'an implicit token of store B (which has no catalog)',
  revokedToken: 'a client_credentials token of a deleted key of store A',
  forgedToken: "store A's admin token with store B's id in it",
  tamperedToken: "store A's admin token with its last character changed",
  ownKeyId: 'a key of store A that the fuzzers never delete',
  ownKeyIdUpper: 'the same key id in upper case',
  freshKeyId: 'a key of store A created just before the request (delete fuzzing)',
  deletedKeyId: 'a deleted key of store A',
  otherKeyId: 'a key of store B',
  clientId: "the client id of store A's first key",
  clientSecret: "the client secret of store A's first key",
  otherClientSecret: "store B's client secret (wrong for store A's client id)",
  deletedClientId: 'the client id of a deleted key',
  mappingId: "store A's merchant realm mapping id",
  mappingIdUpper: 'the same mapping id in upper case',
  otherMappingId: "store B's mapping id",
  ownPrefix: "store A's current prefix",
  otherPrefix: "store B's current prefix",
  otherPrefixUpper: "store B's current prefix in upper case",
  catalogId: "store A's catalog of the catalog API: FUZZ_DOCUMENT as its document, a published release",
  catalogIdUpper: 'the same catalog id in upper case',
  documentCatalogId: "store A's catalog whose document the fuzzers replace (its releases may fail)",
  freshCatalogId: 'a catalog of store A created just before the request (delete fuzzing)',
  deletedCatalogId: 'a deleted catalog of store A',
  otherCatalogId: "store B's catalog (with a document and a failed release)",
  releaseId: 'the release of catalogId published at seeding (current until another is published)',
  releaseIdUpper: 'the same release id in upper case',
  currentReleaseId: "catalogId's current release, read fresh",
  freshReleaseId: 'a FAILED release of catalogId created just before the request (delete fuzzing)',
  otherReleaseId: "the failed release of store B's catalog",
  fileId: 'a file of store A (`/v2/files`) that the fuzzers never delete',
  fileIdUpper: 'the same file id in upper case',
  freshFileId: 'a file of store A created just before the request (delete fuzzing)',
  deletedFileId: 'a deleted file of store A',
  otherFileId: 'a file of store B',
  currencyId: "store A's first currency (`/v2/currencies`), never deleted",
  currencyIdUpper: 'the same currency id in upper case',
  freshCurrencyId: 'a currency of store A (not its default) created just before the request (delete fuzzing)',
  deletedCurrencyId: 'a deleted currency of store A',
  otherCurrencyId: "store B's currency",
  integrationId:
    "store A's webhook integration (`/v2/integrations`), never deleted, with one logged delivery",
  integrationIdUpper: 'the same integration id in upper case',
  integrationJobId: "the delivery job of integrationId's logged attempt",
  freshIntegrationId: 'an integration of store A created just before the request (delete fuzzing)',
  deletedIntegrationId: 'a deleted integration of store A',
  otherIntegrationId: "store B's integration",
  pricebookId: "store A's price book, never deleted",
  pricebookIdUpper: 'the same price book id in upper case',
  freshPricebookId: 'a price book of store A created just before the request (delete fuzzing)',
  deletedPricebookId: 'a deleted price book of store A',
  otherPricebookId: "store B's price book",
  pricesBookId: "store A's price book of the price and modifier routes, which no fuzzed delete names",
  priceId: "a price of store A's pricesBookId (sku FUZZ-PRICE), never deleted",
  freshPriceId: 'a price of pricesBookId created just before the request (delete fuzzing)',
  otherPriceId: "a price of store B's price book",
  priceModifierId: "a price modifier of store A's pricesBookId, never deleted",
  freshPriceModifierId: 'a price modifier of pricesBookId created just before the request (delete fuzzing)',
  ruleId: "store A's catalog rule: a catch-all naming the sample catalog shoppers read, never changed",
  ruleIdUpper: 'the same rule id in upper case',
  freshRuleId: 'a catch-all rule of store A naming the fuzzed catalog, created just before the request',
  deletedRuleId: 'a deleted catalog rule of store A',
  otherRuleId: "store B's catalog rule",
  productId: "store A's product of the product API (sku FUZZ-PRODUCT)",
  productIdUpper: 'the same product id in upper case',
  freshProductId: 'a product of store A created just before the request (delete fuzzing)',
  deletedProductId: 'a deleted product of store A',
  otherProductId: "store B's product",
  parentProductId: "store A's product with variationId linked and its child built",
  variationId: "store A's variation, with optionId and its modifierId",
  optionId: "an option of store A's variationId",
  modifierId: "a modifier of store A's optionId",
  otherVariationId: "store B's variation",
  freshVariationId: 'a variation of store A created just before the request (delete fuzzing)',
  freshOptionId: 'an option of variationId created just before the request (delete fuzzing)',
  freshModifierId: 'a modifier of optionId created just before the request (delete fuzzing)',
  hierarchyId: "store A's hierarchy",
  otherHierarchyId: "store B's hierarchy",
  freshHierarchyId: 'a hierarchy of store A created just before the request (delete fuzzing)',
  nodeId: "a top-level node of store A's hierarchy",
  childNodeId: 'a child of nodeId',
  otherNodeId: "a node of store B's hierarchy",
  freshNodeId: "a node of store A's hierarchy created just before the request (delete fuzzing)",
  jobId: 'a pending job of store A (its message goes nowhere: it never runs)',
  jobIdUpper: 'the same job id in upper case',
  freshJobId: 'a pending job of store A created just before the request (cancel fuzzing)',
  otherJobId: 'a pending job of store B',
} as const;

export type PlaceholderName = keyof typeof PLACEHOLDERS;

/** `{{name}}` for a known placeholder. */
export const ref = (name: PlaceholderName) => `{{${name}}}`;

const PLACEHOLDER = /\{\{([A-Za-z]+)\}\}/g;

/** Replaces every known placeholder in `template`; unknown `{{...}}` text is left as it is. */
export async function fill(template: string, world: FuzzWorld): Promise<string> {
  if (!template.includes('{{')) return template;
  const names = new Set([...template.matchAll(PLACEHOLDER)].map((match) => match[1] as string));
  const values = new Map<string, string>();
  for (const name of names) {
    const value = await world.resolve(name);
    if (value !== undefined) values.set(name, value);
  }
  return template.replace(PLACEHOLDER, (whole, name: string) => values.get(name) ?? whole);
}

interface SampleProduct {
  id: string;
  attributes: Record<string, unknown> & { status?: string; base_product_id?: string };
}
const products = sampleRelease.products as SampleProduct[];
const live = (p: SampleProduct) => p.attributes.status === 'live';
const childrenOf = (p: SampleProduct) => products.filter((c) => c.attributes.base_product_id === p.id);
const pick = (found: SampleProduct | undefined, what: string): string => {
  if (!found) throw new Error(`catalog/sample-release.json has no ${what}`);
  return found.id;
};

/**
 * Products of catalog/sample-release.json (the demo catalog `npm start` serves), published for store A:
 * the arbitraries use these ids and the products' attribute values directly.
 */
export const CATALOG = {
  /** Every node of the release, and the hierarchies (nodes without parent). */
  nodes: sampleRelease.nodes.map((node) => node.id),
  hierarchies: sampleRelease.nodes.filter((node) => node.parent_id === null).map((node) => node.id),
  /** Live base products with live children. */
  parents: products.filter((p) => live(p) && childrenOf(p).some(live)).map((p) => p.id),
  /** A live product without children, a live child, a draft base product, a draft child. */
  standalone: pick(
    products.find((p) => live(p) && !p.attributes.base_product_id && childrenOf(p).length === 0),
    'live standalone product',
  ),
  liveChild: pick(
    products.find((p) => live(p) && p.attributes.base_product_id),
    'live child',
  ),
  draftProduct: pick(
    products.find((p) => !live(p) && !p.attributes.base_product_id),
    'draft base product',
  ),
  draftChild: pick(
    products.find((p) => !live(p) && p.attributes.base_product_id),
    'draft child',
  ),
  /** Every product's filterable attribute values, by attribute. */
  values(attribute: string): string[] {
    return products.flatMap((p) => {
      const value = attribute === 'id' ? p.id : p.attributes[attribute];
      if (typeof value === 'string') return [value];
      return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    });
  },
};

/**
 * The release document of the catalog API's fuzzed catalogs: the sample catalog without its rules and its
 * catalog id, so its releases publish beside the demo catalog without ever being picked for a shopper (the
 * storefront routes keep reading the demo catalog) and without naming another catalog.
 */
export const FUZZ_DOCUMENT = (() => {
  const { rules: _rules, catalog: _catalog, ...rest } = structuredClone(sampleRelease);
  return { ...rest, catalog: { name: 'Fuzz catalog' } };
})();

/**
 * The fuzz stores' rate limit, set high on purpose: the fuzzer runs cases in-process far faster than a
 * store's default 100 requests/s, and a case refused with 429 never reaches the handler it should exercise
 * (the limiter has its own tests: test/unit/rate-limit*.test.ts, test/integration/rate-limit*.test.ts).
 */
const FUZZ_RATE_LIMIT = 100_000;

let freshCurrencies = 0;
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * A currency of the store made for a delete: the next code of a sequence (`QAA`, `QAB`…) the fuzzed
 * creates may have taken too (then the one after). When the fuzzed creates filled the store up to its
 * cap, room is made: every currency but `kept` and the default is deleted.
 */
async function freshCurrency(storeId: string, kept: string[]): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const n = freshCurrencies++ % (26 * 26);
    const code = `Q${LETTERS[Math.floor(n / 26)]}${LETTERS[n % 26]}`;
    try {
      return await newCurrency(storeId, code);
    } catch (error) {
      if (error instanceof CurrencyLimitError) {
        for (const currency of await currencyRepository.list(storeId)) {
          if (!currency.default && !kept.includes(currency.id))
            await currencyRepository.delete(storeId, currency.id);
        }
      } else if (!(error instanceof CurrencyCodeTakenError || error instanceof CurrencyWriteConflictError)) {
        throw error;
      }
    }
  }
  throw new Error('no fresh currency could be made');
}

async function createStore(name: string) {
  const store: StoreRecord = await storeRepository.create({ name, rate_limit: FUZZ_RATE_LIMIT });
  const { key, clientSecret } = await applicationKeyRepository.create(store.id, {
    name: 'First key',
    reserved_rate_limit: 0,
  });
  return { store, key, clientSecret };
}

async function token(clientId: string, clientSecret?: string): Promise<string> {
  const issued = await issueAccessToken(
    clientSecret === undefined
      ? { grant_type: 'implicit', client_id: clientId }
      : { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
  );
  return issued.access_token;
}

/** Sets a store's prefix through the real handler (as a merchant would). */
async function setPrefix(store: StoreRecord, adminToken: string, prefix: string): Promise<void> {
  const handler = await loadHandler('update-merchant-realm-mapping');
  const response = (await handler(
    createHttpEvent({
      method: 'PUT',
      path: `/v2/merchant-realm-mappings/${store.mapping_id}`,
      routeKey: 'PUT /v2/merchant-realm-mappings/{mapping_id}',
      pathParameters: { mapping_id: store.mapping_id },
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { type: 'merchant-realm-mappings', prefix } }),
    }),
    createLambdaContext('update-merchant-realm-mapping'),
  )) as { statusCode: number };
  if (response.statusCode !== 200)
    throw new Error(`setting prefix ${prefix} answered ${response.statusCode}`);
}

/**
 * Runs the publishing workflow of every release created in this process (as the local server does) and
 * keeps the runs in flight: `settle` waits for them all.
 */
function registerWorkflow(): () => Promise<void> {
  const running = new Set<Promise<unknown>>();
  registerLocalWorkflow((input) => {
    const run: Promise<unknown> = runWorkflowLocally(input).finally(() => running.delete(run));
    running.add(run);
    return run;
  });
  return async () => {
    while (running.size > 0) await Promise.allSettled([...running]);
  };
}

/**
 * Seeds what the fuzzers need in the configured tables: store A (keys, a deleted key with a token, a
 * prefix, the sample catalog with its channel rules) and store B (a key, a prefix, no catalog).
 * `extraKeys` more keys in store A let list offsets reach past the first 1,000 keys.
 */
export async function seedFuzzWorld(options: { extraKeys?: number } = {}): Promise<FuzzWorld> {
  // Store A's own keys (the first key, the kept one) plus the extra ones: checked before anything is seeded.
  const keysOfA = 2 + (options.extraKeys ?? 0);
  const cap = getConfig().maxKeysPerStore;
  if (keysOfA > cap)
    throw new Error(
      `the fuzz world needs ${keysOfA} keys in one store, over MAX_KEYS_PER_STORE (${cap}): raise it to at least ${keysOfA}`,
    );
  const tag = uuidv4().slice(0, 8);
  const a = await createStore('Fuzz store A');
  const b = await createStore('Fuzz store B');
  const adminToken = await token(a.key.client_id, a.clientSecret);
  const implicitToken = await token(a.key.client_id);
  const otherAdminToken = await token(b.key.client_id, b.clientSecret);
  const otherImplicitToken = await token(b.key.client_id);
  const kept = await applicationKeyRepository.create(a.store.id, {
    name: 'Fuzz key',
    reserved_rate_limit: 1,
  });
  const other = await applicationKeyRepository.create(b.store.id, {
    name: 'Other key',
    reserved_rate_limit: 0,
  });
  const doomed = await applicationKeyRepository.create(a.store.id, {
    name: 'Doomed',
    reserved_rate_limit: 0,
  });
  const revokedToken = await token(doomed.key.client_id, doomed.clientSecret);
  await applicationKeyRepository.delete(a.store.id, doomed.key.id);
  await setPrefix(a.store, adminToken, `fuzz-a-${tag}`);
  await setPrefix(b.store, otherAdminToken, `fuzz-b-${tag}`);
  await publishRelease(a.store.id, sampleRelease);
  // The catalog API: A's catalog with a published release, one whose document is fuzzed, a deleted one;
  // B's catalog with a failed release.
  const settle = registerWorkflow();
  const catalogId = await newPcmCatalog(a.store.id, 'Fuzz catalog', FUZZ_DOCUMENT);
  const documentCatalogId = await newPcmCatalog(a.store.id, 'Fuzz document catalog', FUZZ_DOCUMENT);
  const deletedCatalogId = await newPcmCatalog(a.store.id, 'Deleted catalog');
  await pcmRepository.deleteCatalog(a.store.id, deletedCatalogId);
  const otherCatalogId = await newPcmCatalog(b.store.id, 'Other catalog', FUZZ_DOCUMENT);
  const otherReleaseId = await failedRelease(b.store.id, otherCatalogId);
  // The files API: A's file, a deleted one, B's file.
  const fileId = await newFile(a.store.id, 'https://cdn.example.com/fuzz/kept.png');
  const deletedFileId = await newFile(a.store.id, 'https://cdn.example.com/fuzz/deleted.png');
  await fileRepository.delete(a.store.id, deletedFileId);
  const otherFileId = await newFile(b.store.id, 'https://cdn.example.com/fuzz/other.png');
  // The currencies API: A's first currency (its default), a deleted one, B's currency.
  const currencyId = await newCurrency(a.store.id, 'FZA');
  const deletedCurrencyId = await newCurrency(a.store.id, 'FZD');
  await currencyRepository.delete(a.store.id, deletedCurrencyId);
  const otherCurrencyId = await newCurrency(b.store.id, 'FZB');
  // Webhook integrations: A's (with one logged attempt), a deleted one, B's. Events fuzzed releases and rules
  // emit are queued nowhere: nothing is delivered.
  registerLocalDeliveryQueue({ send: () => undefined, delay: () => undefined });
  const integrationId = await newIntegration(a.store.id, 'Fuzz kept');
  const integrationJobId = await newIntegrationLog(a.store.id, integrationId);
  const deletedIntegrationId = await newIntegration(a.store.id, 'Fuzz deleted');
  await integrationRepository.delete(a.store.id, deletedIntegrationId);
  const otherIntegrationId = await newIntegration(b.store.id, 'Fuzz other');
  // Price books: A's, a deleted one, B's.
  const pricebookId = await newPricebook(a.store.id, 'Fuzz kept book');
  const deletedPricebookId = await newPricebook(a.store.id, 'Fuzz deleted book');
  await pricebookRepository.delete(a.store.id, deletedPricebookId);
  const otherPricebookId = await newPricebook(b.store.id, 'Fuzz other book');
  const pricesBookId = await newPricebook(a.store.id, 'Fuzz prices book');
  const priceId = await newPrice(a.store.id, pricesBookId, 'FUZZ-PRICE');
  const otherPriceId = await newPrice(b.store.id, otherPricebookId, 'FUZZ-PRICE');
  const priceModifierId = await newPriceModifier(a.store.id, pricesBookId, 'Fuzz modifier');
  // Catalog rules: a catch-all for the sample catalog (a catalog of the API too, so a rule may name it),
  // which keeps shoppers on it whatever rules the cases add (ties go to the oldest rule); a deleted one; B's.
  await newPcmCatalog(a.store.id, 'Sample catalog', undefined, sampleRelease.catalog.id);
  const ruleId = await newCatalogRule(a.store.id, 'fuzz-kept', sampleRelease.catalog.id);
  const deletedRuleId = await newCatalogRule(a.store.id, 'fuzz-deleted', catalogId);
  await deleteCatalogRule(a.store.id, deletedRuleId, undefined);
  const otherRuleId = await newCatalogRule(b.store.id, 'fuzz-other', otherCatalogId);
  const { release_id: releaseId } = await createRelease(a.store.id, catalogId, undefined);
  // The product API: A's product, a deleted one, B's product.
  const productId = await newPcmProduct(a.store.id, 'Fuzz product', 'FUZZ-PRODUCT');
  const deletedProductId = await newPcmProduct(a.store.id, 'Deleted product', `deleted-${tag}`);
  const deleted = await productRepository.get(a.store.id, deletedProductId);
  const mark = `${new Date().toISOString()}#fuzz-world`;
  if (deleted && (await productRepository.markDeleting(a.store.id, deleted, mark, '')))
    await productRepository.delete(a.store.id, deleted, mark);
  const otherProductId = await newPcmProduct(b.store.id, 'Other product', 'FUZZ-PRODUCT');
  // Jobs: their messages go nowhere, so they stay pending (cancel has one to cancel).
  registerLocalJobQueue(() => undefined);
  const jobId = (await enqueueJob(a.store.id, 'product-import', {}, 'fuzz')).id;
  const otherJobId = (await enqueueJob(b.store.id, 'product-import', {}, 'fuzz')).id;
  const variation = await newVariationTree(a.store.id, 'Fuzz variation');
  const otherVariation = await newVariationTree(b.store.id, 'Other variation');
  const hierarchyId = await newPcmHierarchy(a.store.id, 'Fuzz hierarchy');
  const otherHierarchyId = await newPcmHierarchy(b.store.id, 'Other hierarchy', 'Fuzz-Slug');
  const nodeId = await newPcmNode(a.store.id, hierarchyId, 'Fuzz node');
  const childNodeId = await newPcmNode(a.store.id, hierarchyId, 'Fuzz child', nodeId);
  const otherNodeId = await newPcmNode(b.store.id, otherHierarchyId, 'Other node');
  const parentProductId = await newParentWithChildren(a.store.id, variation.variationId);
  await settle();
  const published = await pcmRepository.getRelease(a.store.id, catalogId, releaseId);
  if (published?.state !== 'PUBLISHED')
    throw new Error(
      `the fuzz catalog's release is ${published?.state}: ${JSON.stringify(published?.errors)}`,
    );
  // One after the other: concurrent creates would contend for the store's key counters.
  for (let i = 0; i < (options.extraKeys ?? 0); i += 1)
    await applicationKeyRepository.create(a.store.id, { name: `Extra ${i}`, reserved_rate_limit: 0 });

  const lastChar = adminToken.slice(-1);
  const fixed = new Map<string, string>(
    Object.entries({
      adminToken,
      implicitToken,
      otherAdminToken,
      otherImplicitToken,
      revokedToken,
      forgedToken: adminToken.replace(a.store.id, b.store.id),
      tamperedToken: `${adminToken.slice(0, -1)}${lastChar === 'A' ? 'B' : 'A'}`,
      ownKeyId: kept.key.id,
      ownKeyIdUpper: kept.key.id.toUpperCase(),
      deletedKeyId: doomed.key.id,
      otherKeyId: other.key.id,
      clientId: a.key.client_id,
      clientSecret: a.clientSecret,
      otherClientSecret: b.clientSecret,
      deletedClientId: doomed.key.client_id,
      mappingId: a.store.mapping_id,
      mappingIdUpper: a.store.mapping_id.toUpperCase(),
      otherMappingId: b.store.mapping_id,
      catalogId,
      catalogIdUpper: catalogId.toUpperCase(),
      documentCatalogId,
      deletedCatalogId,
      otherCatalogId,
      releaseId,
      releaseIdUpper: releaseId.toUpperCase(),
      otherReleaseId,
      fileId,
      fileIdUpper: fileId.toUpperCase(),
      deletedFileId,
      otherFileId,
      currencyId,
      currencyIdUpper: currencyId.toUpperCase(),
      deletedCurrencyId,
      otherCurrencyId,
      integrationId,
      integrationIdUpper: integrationId.toUpperCase(),
      integrationJobId,
      deletedIntegrationId,
      otherIntegrationId,
      pricebookId,
      pricebookIdUpper: pricebookId.toUpperCase(),
      deletedPricebookId,
      otherPricebookId,
      pricesBookId,
      priceId,
      otherPriceId,
      priceModifierId,
      ruleId,
      ruleIdUpper: ruleId.toUpperCase(),
      deletedRuleId,
      otherRuleId,
      productId,
      productIdUpper: productId.toUpperCase(),
      deletedProductId,
      otherProductId,
      parentProductId,
      variationId: variation.variationId,
      optionId: variation.optionId,
      modifierId: variation.modifierId,
      otherVariationId: otherVariation.variationId,
      hierarchyId,
      otherHierarchyId,
      nodeId,
      childNodeId,
      otherNodeId,
      jobId,
      jobIdUpper: jobId.toUpperCase(),
      otherJobId,
    } satisfies Partial<Record<PlaceholderName, string>>),
  );
  // Prefixes change as the mapping route is fuzzed (store B's too, with its own token): read them fresh.
  const prefixOf = async (mappingId: string) =>
    (await mappingRepository.get(mappingId, true))?.prefix ?? 'none';
  // From here on the client behaves as DynamoDB does under concurrency (DynamoDB Local never reports
  // a conflict): with the shopper's grant beside every case, each write path meets real contention.
  const { conflicts } = emulateConflicts(getDocumentClient());
  return {
    conflicts,
    settle,
    shopper: () =>
      issueAccessToken({ grant_type: 'implicit', client_id: a.key.client_id }).then(
        () => 200,
        (error: unknown) => toApiError(error).status,
      ),
    secrets: [
      adminToken,
      implicitToken,
      otherAdminToken,
      otherImplicitToken,
      revokedToken,
      a.clientSecret,
      b.clientSecret,
      doomed.clientSecret,
    ],
    async resolve(name) {
      const value = fixed.get(name);
      if (value !== undefined) return value;
      switch (name as PlaceholderName) {
        case 'freshKeyId': {
          const fresh = await applicationKeyRepository.create(a.store.id, {
            name: 'Fresh',
            reserved_rate_limit: 0,
          });
          return fresh.key.id;
        }
        case 'ownPrefix':
          return prefixOf(a.store.mapping_id);
        case 'otherPrefix':
          return prefixOf(b.store.mapping_id);
        case 'otherPrefixUpper':
          return (await prefixOf(b.store.mapping_id)).toUpperCase();
        case 'freshCatalogId':
          try {
            return await newPcmCatalog(a.store.id, 'Fresh catalog');
          } catch (error) {
            if (!(error instanceof CatalogLimitError)) throw error;
            // POST /pcm/catalogs cases filled store A up to its cap: make room, keeping the world's own.
            const kept = new Set([catalogId, documentCatalogId, sampleRelease.catalog.id]);
            for (const catalog of await pcmRepository.listCatalogs(a.store.id)) {
              if (!kept.has(catalog.id)) await pcmRepository.deleteCatalog(a.store.id, catalog.id);
            }
            return newPcmCatalog(a.store.id, 'Fresh catalog');
          }
        case 'currentReleaseId':
          return (
            (await catalogRepository.getRegistry(a.store.id))?.catalogs[catalogId]?.release.id ?? releaseId
          );
        case 'freshFileId':
          return newFile(a.store.id, 'https://cdn.example.com/fuzz/fresh.png');
        case 'freshCurrencyId':
          return freshCurrency(a.store.id, [currencyId]);
        case 'freshIntegrationId':
          try {
            return await newIntegration(a.store.id, 'Fresh');
          } catch (error) {
            if (!(error instanceof IntegrationLimitError)) throw error;
            // POST /v2/integrations cases filled store A up to its cap: make room, keeping the world's own.
            for (const integration of await integrationRepository.list(a.store.id)) {
              if (integration.id !== integrationId)
                await integrationRepository.delete(a.store.id, integration.id);
            }
            return newIntegration(a.store.id, 'Fresh');
          }
        case 'freshPricebookId':
          // A name no fuzzed request sends (fuzzed names are at most 30 graphemes or the listed ones).
          try {
            return await newPricebook(a.store.id, `fresh book ${uuidv4()}`);
          } catch (error) {
            if (!(error instanceof PricebookLimitError)) throw error;
            // POST /pcm/pricebooks cases filled store A up to its cap: make room, keeping the world's own.
            const { pricebooks } = await pricebookRepository.page(a.store.id, { limit: 1000, offset: 0 });
            for (const book of pricebooks) {
              if (book.id !== pricebookId && book.id !== pricesBookId) {
                await pricebookRepository.delete(a.store.id, book.id);
              }
            }
            return newPricebook(a.store.id, `fresh book ${uuidv4()}`);
          }
        case 'freshPriceId':
          // An sku and a name no fuzzed request sends.
          return newPrice(a.store.id, pricesBookId, `fresh-${uuidv4()}`);
        case 'freshPriceModifierId':
          return newPriceModifier(a.store.id, pricesBookId, `fresh modifier ${uuidv4()}`);
        case 'freshRuleId':
          try {
            return await newCatalogRule(a.store.id, 'fuzz-fresh', catalogId);
          } catch (error) {
            if (toApiError(error).status !== 409) throw error;
            // POST /pcm/catalogs/rules cases filled store A up to its cap: make room, keeping the world's own.
            for (const rule of await listCatalogRules(a.store.id)) {
              if (rule.id !== ruleId) await deleteCatalogRule(a.store.id, rule.id, undefined);
            }
            return newCatalogRule(a.store.id, 'fuzz-fresh', catalogId);
          }
        case 'freshProductId':
          return newPcmProduct(a.store.id, 'Fresh product', `fresh-${uuidv4()}`);
        case 'freshJobId':
          return (await enqueueJob(a.store.id, 'product-import', {}, 'fuzz')).id;
        case 'freshReleaseId':
          // A release of the catalog cannot be made while one of it is being published.
          await settle();
          return failedRelease(a.store.id, catalogId);
        case 'freshHierarchyId':
          return newPcmHierarchy(a.store.id, 'Fresh hierarchy');
        case 'freshNodeId':
          return newPcmNode(a.store.id, hierarchyId, `Fresh node ${uuidv4()}`);
        case 'freshVariationId':
          return (await newVariationTree(a.store.id, 'Fresh variation')).variationId;
        case 'freshOptionId':
        case 'freshModifierId': {
          const at = new Date().toISOString();
          const id = uuidv7();
          const { variationId, optionId } = variation;
          if (name === 'freshOptionId') {
            const option = {
              id,
              variation_id: variationId,
              name: 'Fresh',
              description: '',
              created_at: at,
              updated_at: at,
            };
            await variationRepository.createOption(a.store.id, option);
          } else {
            const modifier = {
              id,
              variation_id: variationId,
              option_id: optionId,
              type: 'status' as const,
              value: 'live',
              created_at: at,
              updated_at: at,
            };
            await variationRepository.createModifier(a.store.id, modifier);
          }
          return id;
        }
        default:
          return undefined;
      }
    },
  };
}

/** A product with the variation linked and its children built, so the children list and matrix have some. */
async function newParentWithChildren(storeId: string, variationId: string): Promise<string> {
  const id = await newPcmProduct(storeId, 'Fuzz parent', 'FUZZ-PARENT');
  const before = (await productRepository.get(storeId, id)) as ProductRecord;
  const at = new Date().toISOString();
  const after = {
    ...before,
    variations: [{ id: variationId, created_at: at }],
    variations_generation: 1,
    variations_changed_at: at,
    version: before.version + 1,
  };
  await productRepository.setVariationLinks(storeId, before, after, { added: [variationId], removed: [] });
  const errors = await runChildProductsBuild({ storeId, productId: id, jobId: 'fuzz' });
  if (errors.length > 0) throw new Error(`the fuzz parent's build failed: ${errors[0]?.message}`);
  return id;
}
