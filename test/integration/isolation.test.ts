import { uuidv7 } from '../../lib/ids';
import { registerLocalJobQueue } from '../../lib/jobs/queue';
import { enqueueJob } from '../../lib/jobs/service';
/**
 * Isolation matrix: every route of the route table x every kind of caller, with the status
 * each cell must answer (authentication, then the store a token belongs to). Every request targets store A's resources; store B is
 * the other tenant. A route added to ROUTES without a row here fails the table check below.
 */

import { randomUUID } from 'node:crypto';
import { ROUTES } from '../../functions/routes';
import { clearAuthCache } from '../../lib/auth/authenticate';
import { generateAccessToken, hashSecret, parseAccessToken } from '../../lib/auth/secrets';
import { clearCatalogCaches } from '../../lib/catalog/cache';
import { runWorkflowLocally } from '../../lib/catalog/pipeline/run-local';
import { registerLocalWorkflow } from '../../lib/catalog/pipeline/start';
import { listCatalogRules } from '../../lib/pcm/rules';
import { applicationKeyRepository } from '../../lib/store/application-key-repository';
import { catalogRepository } from '../../lib/store/catalog-repository';
import { currencyRepository } from '../../lib/store/currency-repository';
import { fileRepository } from '../../lib/store/file-repository';
import { hierarchyRepository } from '../../lib/store/hierarchy-repository';
import { integrationRepository } from '../../lib/store/integration-repository';
import { jobRepository } from '../../lib/store/job-repository';
import { mappingRepository } from '../../lib/store/mapping-repository';
import { nodeRepository } from '../../lib/store/node-repository';
import { pcmRepository } from '../../lib/store/pcm-repository';
import { priceRepository } from '../../lib/store/price-repository';
import { pricebookRepository } from '../../lib/store/pricebook-repository';
import { productRepository } from '../../lib/store/product-repository';
import { storeRepository } from '../../lib/store/store-repository';
import { tokenRepository } from '../../lib/store/token-repository';
import { variationRepository } from '../../lib/store/variation-repository';
import { loadHandler, matchRoute } from '../../local/router';
import { childrenRelease, LEAF_NODE, LIVE_CHILDREN, PARENT, ROOT_NODE } from '../support/catalog-fixtures';
import { createTestStore, type InvokeResult, invoke, type TestStore, tokenFor } from '../support/fixtures';
import { publishRelease } from '../support/one-process-publisher';
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
} from '../support/pcm-fixtures';

// ---------------------------------------------------------------------------------------------------
// Callers
// ---------------------------------------------------------------------------------------------------

/** Who calls, by what the `Authorization` header carries. */
const KINDS = [
  'none', // no Authorization header
  'bearer-abc', // malformed: `Bearer abc`
  'basic', // malformed: Basic scheme with A's real client credentials
  'no-scheme', // malformed: A's valid admin token without the `Bearer` scheme
  'unknown', // well-formed token for A's store and key, never issued
  'forged', // B's real token re-addressed to A's store (ids are not part of the secret's proof)
  'expired', // A's admin token, expired
  'implicit', // A's storefront token
  'other-admin', // B's client_credentials token
  'own-admin', // A's client_credentials token
] as const;
type Kind = (typeof KINDS)[number];

const UNAUTHENTICATED = {
  none: 401,
  'bearer-abc': 401,
  basic: 401,
  'no-scheme': 401,
  unknown: 401,
  forged: 401,
  expired: 401,
} as const;

const SHOPPER_LIST = { ...UNAUTHENTICATED, implicit: 200, 'other-admin': 200, 'own-admin': 200 } as const;
const SHOPPER_BY_ID = { ...UNAUTHENTICATED, implicit: 200, 'other-admin': 404, 'own-admin': 200 } as const;
/** An admin route about one of A's resources, without the own-admin status. */
const ADMIN_BY_ID = { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 404 } as const;

/**
 * The expected status of every cell, keyed by `${method} ${path}` exactly as in ROUTES.
 * The token endpoint has no bearer auth: its Authorization header is ignored and the (valid, store A)
 * client credentials in the body decide, so every caller kind gets 200 for A's own credentials.
 */
const EXPECTED: Record<string, Record<Kind, number>> = {
  'POST /oauth/access_token': {
    none: 200,
    'bearer-abc': 200,
    basic: 200,
    'no-scheme': 200,
    unknown: 200,
    forged: 200,
    expired: 200,
    implicit: 200,
    'other-admin': 200,
    'own-admin': 200,
  },
  'GET /v2/application-keys': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'POST /v2/application-keys': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 201, 'own-admin': 201 },
  'GET /v2/application-keys/{id}': {
    ...UNAUTHENTICATED,
    implicit: 403,
    'other-admin': 404,
    'own-admin': 200,
  },
  'PUT /v2/application-keys/{id}': {
    ...UNAUTHENTICATED,
    implicit: 403,
    'other-admin': 404,
    'own-admin': 200,
  },
  'DELETE /v2/application-keys/{id}': {
    ...UNAUTHENTICATED,
    implicit: 403,
    'other-admin': 404,
    'own-admin': 204,
  },
  'GET /v2/merchant-realm-mappings': {
    ...UNAUTHENTICATED,
    implicit: 403,
    'other-admin': 200,
    'own-admin': 200,
  },
  'GET /v2/merchant-realm-mappings/{mapping_id}': {
    ...UNAUTHENTICATED,
    implicit: 403,
    'other-admin': 404,
    'own-admin': 200,
  },
  'PUT /v2/merchant-realm-mappings/{mapping_id}': {
    ...UNAUTHENTICATED,
    implicit: 403,
    'other-admin': 404,
    'own-admin': 200,
  },
  'GET /catalog/products/{product_id}/relationships/children': {
    ...UNAUTHENTICATED,
    implicit: 200,
    'other-admin': 404,
    'own-admin': 200,
  },
  // B's token reads B's own catalog: its release and its products, never A's.
  'GET /catalog': { ...UNAUTHENTICATED, implicit: 200, 'other-admin': 200, 'own-admin': 200 },
  'GET /catalog/products': { ...UNAUTHENTICATED, implicit: 200, 'other-admin': 200, 'own-admin': 200 },
  'GET /catalog/products/{product_id}': {
    ...UNAUTHENTICATED,
    implicit: 200,
    'other-admin': 404,
    'own-admin': 200,
  },
  // Lists answer any store's token with that store's own catalog; an id of another store's is 404.
  'GET /catalog/nodes': SHOPPER_LIST,
  'GET /catalog/nodes/{node_id}': SHOPPER_BY_ID,
  'GET /catalog/nodes/{node_id}/relationships/children': SHOPPER_BY_ID,
  'GET /catalog/nodes/{node_id}/relationships/products': SHOPPER_BY_ID,
  'GET /catalog/hierarchies': SHOPPER_LIST,
  'GET /catalog/hierarchies/{hierarchy_id}': SHOPPER_BY_ID,
  'GET /catalog/hierarchies/{hierarchy_id}/children': SHOPPER_BY_ID,
  'GET /catalog/hierarchies/{hierarchy_id}/nodes': SHOPPER_BY_ID,
  'GET /catalog/hierarchies/{hierarchy_id}/products': SHOPPER_BY_ID,
  // The catalog API: admin only. B's token creates and lists in B's store; A's catalogs are 404 to it.
  'POST /pcm/catalogs': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 201, 'own-admin': 201 },
  'GET /pcm/catalogs': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'GET /pcm/catalogs/{catalog_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'PUT /pcm/catalogs/{catalog_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /pcm/catalogs/{catalog_id}': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'PUT /pcm/catalogs/{catalog_id}/document': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'POST /pcm/catalogs/{catalog_id}/document-uploads': { ...ADMIN_BY_ID, 'own-admin': 201 },
  'POST /pcm/catalogs/{catalog_id}/releases': { ...ADMIN_BY_ID, 'own-admin': 201 },
  'GET /pcm/catalogs/{catalog_id}/releases': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'GET /pcm/catalogs/{catalog_id}/releases/{release_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /pcm/catalogs/{catalog_id}/releases/{release_id}': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'DELETE /pcm/catalogs/{catalog_id}/releases': { ...ADMIN_BY_ID, 'own-admin': 204 },
  // Catalog rules: admin only; A's are 404 to B's token, and B's token cannot name A's catalog (422).
  'POST /pcm/catalogs/rules': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 422, 'own-admin': 201 },
  'GET /pcm/catalogs/rules': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'GET /pcm/catalogs/rules/{catalog_rule_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'PUT /pcm/catalogs/rules/{catalog_rule_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /pcm/catalogs/rules/{catalog_rule_id}': { ...ADMIN_BY_ID, 'own-admin': 204 },
  // The files API: admin only. B's token creates and lists in B's store; A's files are 404 to it.
  'POST /v2/files': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 201, 'own-admin': 201 },
  'GET /v2/files': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'GET /v2/files/{file_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /v2/files/{file_id}': { ...ADMIN_BY_ID, 'own-admin': 204 },
  // The currencies API: admin only. B's token creates and lists in B's store; A's currencies are 404 to it.
  'POST /v2/currencies': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 201, 'own-admin': 201 },
  'GET /v2/currencies': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'GET /v2/currencies/{currency_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'PUT /v2/currencies/{currency_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /v2/currencies/{currency_id}': { ...ADMIN_BY_ID, 'own-admin': 204 },
  // Webhook integrations: admin only. B's token creates and lists in B's store; A's are 404 to it.
  'POST /v2/integrations': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'GET /v2/integrations': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'GET /v2/integrations/logs': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'GET /v2/integrations/{integration_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'PUT /v2/integrations/{integration_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /v2/integrations/{integration_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'GET /v2/integrations/{integration_id}/logs': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'GET /v2/integrations/{integration_id}/jobs': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'GET /v2/integrations/{integration_id}/jobs/{job_id}/logs': { ...ADMIN_BY_ID, 'own-admin': 200 },
  // Price books: admin only; A's are 404 to B's token.
  'POST /pcm/pricebooks': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 201, 'own-admin': 201 },
  'GET /pcm/pricebooks': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'GET /pcm/pricebooks/{pricebook_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'PUT /pcm/pricebooks/{pricebook_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /pcm/pricebooks/{pricebook_id}': { ...ADMIN_BY_ID, 'own-admin': 204 },
  // Prices and price modifiers: admin only; B's token finds no book of A's (404), across books only its own.
  'GET /pcm/pricebooks/prices': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'POST /pcm/pricebooks/import': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 201, 'own-admin': 201 },
  'POST /pcm/pricebooks/{pricebook_id}/prices': { ...ADMIN_BY_ID, 'own-admin': 201 },
  'GET /pcm/pricebooks/{pricebook_id}/prices': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'GET /pcm/pricebooks/{pricebook_id}/prices/{price_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'PUT /pcm/pricebooks/{pricebook_id}/prices/{price_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /pcm/pricebooks/{pricebook_id}/prices/{price_id}': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'POST /pcm/pricebooks/{pricebook_id}/modifiers': { ...ADMIN_BY_ID, 'own-admin': 201 },
  'GET /pcm/pricebooks/{pricebook_id}/modifiers': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'GET /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'PUT /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}': { ...ADMIN_BY_ID, 'own-admin': 204 },
  // The product API: admin only. B's token creates (the same sku as A's, skus are per store) and lists in B's store.
  'POST /pcm/products': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 201, 'own-admin': 201 },
  'GET /pcm/products': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'GET /pcm/products/{product_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'PUT /pcm/products/{product_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /pcm/products/{product_id}': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'GET /pcm/products/{product_id}/relationships/component_products': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'GET /pcm/products/{product_id}/relationships/main_image': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'POST /pcm/products/{product_id}/relationships/main_image': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'PUT /pcm/products/{product_id}/relationships/main_image': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'DELETE /pcm/products/{product_id}/relationships/main_image': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'GET /pcm/products/{product_id}/relationships/files': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'POST /pcm/products/{product_id}/relationships/files': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'PUT /pcm/products/{product_id}/relationships/files': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'DELETE /pcm/products/{product_id}/relationships/files': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'GET /pcm/products/{product_id}/relationships/variations': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'POST /pcm/products/{product_id}/relationships/variations': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'PUT /pcm/products/{product_id}/relationships/variations': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'DELETE /pcm/products/{product_id}/relationships/variations': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'GET /pcm/products/{product_id}/children': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'POST /pcm/products/{product_id}/build': { ...ADMIN_BY_ID, 'own-admin': 201 },
  // Variations: admin only; A's are 404 to B's token.
  'POST /pcm/variations': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 201, 'own-admin': 201 },
  'GET /pcm/variations': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'GET /pcm/variations/{variation_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'PUT /pcm/variations/{variation_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /pcm/variations/{variation_id}': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'POST /pcm/variations/{variation_id}/options': { ...ADMIN_BY_ID, 'own-admin': 201 },
  'GET /pcm/variations/{variation_id}/options': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'GET /pcm/variations/{variation_id}/options/{option_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'PUT /pcm/variations/{variation_id}/options/{option_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /pcm/variations/{variation_id}/options/{option_id}': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'POST /pcm/variations/{variation_id}/options/{option_id}/modifiers': { ...ADMIN_BY_ID, 'own-admin': 201 },
  'GET /pcm/variations/{variation_id}/options/{option_id}/modifiers': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'GET /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}': {
    ...ADMIN_BY_ID,
    'own-admin': 200,
  },
  'PUT /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}': {
    ...ADMIN_BY_ID,
    'own-admin': 200,
  },
  'DELETE /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}': {
    ...ADMIN_BY_ID,
    'own-admin': 204,
  },
  // Hierarchies: admin only; A's are 404 to B's token.
  'POST /pcm/hierarchies': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 201, 'own-admin': 201 },
  'GET /pcm/hierarchies': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'GET /pcm/hierarchies/{hierarchy_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'PUT /pcm/hierarchies/{hierarchy_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /pcm/hierarchies/{hierarchy_id}': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'POST /pcm/hierarchies/{hierarchy_id}/nodes': { ...ADMIN_BY_ID, 'own-admin': 201 },
  'GET /pcm/hierarchies/{hierarchy_id}/nodes': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}': { ...ADMIN_BY_ID, 'own-admin': 204 },
  'GET /pcm/hierarchies/{hierarchy_id}/children': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/children': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'POST /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/children': {
    ...ADMIN_BY_ID,
    'own-admin': 200,
  },
  'PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent': {
    ...ADMIN_BY_ID,
    'own-admin': 204,
  },
  'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent': {
    ...ADMIN_BY_ID,
    'own-admin': 204,
  },
  'POST /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products': {
    ...ADMIN_BY_ID,
    'own-admin': 201,
  },
  'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products': {
    ...ADMIN_BY_ID,
    'own-admin': 200,
  },
  'GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/products': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'GET /pcm/products/{product_id}/nodes': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'POST /pcm/products/import': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 201, 'own-admin': 201 },
  'POST /pcm/products/import-uploads': {
    ...UNAUTHENTICATED,
    implicit: 403,
    'other-admin': 201,
    'own-admin': 201,
  },
  'GET /pcm/jobs': { ...UNAUTHENTICATED, implicit: 403, 'other-admin': 200, 'own-admin': 200 },
  'GET /pcm/jobs/{job_id}': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'GET /pcm/jobs/{job_id}/errors': { ...ADMIN_BY_ID, 'own-admin': 200 },
  'POST /pcm/jobs/{job_id}/cancel': { ...ADMIN_BY_ID, 'own-admin': 200 },
};

// ---------------------------------------------------------------------------------------------------
// Fixtures: two stores, each with keys, a mapping with a prefix and a published catalog
// ---------------------------------------------------------------------------------------------------

interface Tenant {
  test: TestStore;
  /** A key that no successful cell touches: refused writes aim at it and it must come out unchanged. */
  victimKeyId: string;
  mappingId: string;
  realmId: string;
  initialPrefix: string;
  adminToken: string;
  /**
   * A catalog of the catalog API with a document and one FAILED release (not current, so deletable) that
   * no successful cell touches: refused cells aim at them and they must come out unchanged.
   */
  catalogId: string;
  releaseId: string;
  /** A file no successful cell touches: refused cells aim at it and it must come out unchanged. */
  fileId: string;
  /** A product of the product API that no successful cell touches (sku `victim`). */
  productId: string;
  /** The store's first currency (so its default, `VIC`): no successful cell touches it. */
  currencyId: string;
  /** A webhook integration (`victim`) with one logged delivery (`integrationJobId`) no successful cell touches. */
  integrationId: string;
  integrationJobId: string;
  /** A price book (`victim`) no successful cell touches. */
  pricebookId: string;
  /** A price (sku `victim`) and a price modifier (`victim`) of that book that no successful cell touches. */
  priceId: string;
  priceModifierId: string;
  /** The catalog whose release shoppers read (published), which the store's rules name. */
  shopperCatalogId: string;
  /** A catalog rule (`victim`, a catch-all naming `shopperCatalogId`) no successful cell touches. */
  ruleId: string;
  /** A hierarchy and its one node. */
  hierarchyId: string;
  nodeId: string;
}

const RUN = randomUUID().slice(0, 8);
const prefixFor = (label: string) => `iso-${label}-${RUN}`;

let a: Tenant;
let b: Tenant;
/** A's keys the own-admin token may change (PUT) and delete (DELETE), so the victim key stays intact. */
let aEditableKeyId: string;
let aDisposableKeyId: string;
let tokens: Record<Kind, Record<string, string>>;
/** Ids created by the successful POST cells. */
const createdKeyIds: Partial<Record<Kind, string>> = {};
const createdCatalogIds: Partial<Record<Kind, string>> = {};
const createdFileIds: Partial<Record<Kind, string>> = {};
const createdCurrencyIds: Partial<Record<Kind, string>> = {};
const createdIntegrationIds: Partial<Record<Kind, string>> = {};
/** A's integrations the own-admin cells may change (PUT) and delete (DELETE). */
let aEditableIntegrationId: string;
let aDisposableIntegrationId: string;
let aIntegrationBefore: unknown;
/** A's file the own-admin cell deletes. */
let aDisposableFileId: string;
/** The file the own-admin cells of the product's file relationships name (on aEditableProductId). */
let aLinkedFileId: string;
/** A's catalogs the own-admin cells may change: renamed and given a document and an upload; deleted. */
let aEditableCatalogId: string;
let aDisposableCatalogId: string;
/** A's catalog whose document is invalid: the own-admin release of it fails at validation, at once. */
let aReleasingCatalogId: string;
/** A FAILED release the own-admin cell deletes, of a catalog of its own. */
let aDisposableRelease: { catalogId: string; releaseId: string };
/** A's catalog with two FAILED releases, which the own-admin cell deletes together. */
let aPrunableCatalogId: string;
/** A's products the own-admin cells may change (PUT) and delete (DELETE). */
let aEditableProductId: string;
let aDisposableProductId: string;
const createdProductIds: Partial<Record<Kind, string>> = {};
let aProductBefore: unknown;
/** A's pending jobs: one no successful cell touches, one the own-admin cell cancels (never run: no worker). */
let aJobId: string;
let aCancellableJobId: string;
let aJobBefore: unknown;
/** A's variations: one every caller reads and edits, one own-admin deletes, one whose option it deletes. */
let aVar: { variationId: string; optionId: string; modifierId: string };
let aDisposableVar: { variationId: string; optionId: string; modifierId: string };
let aOptionVar: { variationId: string; optionId: string; modifierId: string };
let aDisposableModifierId: string;
const aVarParams = () => ({
  variation_id: aVar.variationId,
  option_id: aVar.optionId,
  modifier_id: aVar.modifierId,
});
/** A's hierarchies: one every caller reads and edits, one own-admin deletes. */
let aHierarchyId: string;
let aDisposableHierarchyId: string;
/** A's nodes in aHierarchyId: one every caller reads and edits, its child, one own-admin deletes. */
let aNodeId: string;
let aChildNodeId: string;
let aDisposableNodeId: string;
const aNodeParams = (nodeId = aNodeId) => ({ hierarchy_id: aHierarchyId, node_id: nodeId });
const hierarchySlug = (kind: Kind) => (kind === 'own-admin' ? 'by-own-admin' : 'a-victim');
/** Every id of store A a response to another caller must never contain. */
let aIds: string[];

/** B's catalog: the same shape as A's, every id moved so none of A's product ids exists in B's release. */
const B_ID_PREFIX = 'bbbbbbbb-';
function bRelease() {
  const text = JSON.stringify(childrenRelease({ namePrefix: 'B ', catalogName: 'B children' }));
  return JSON.parse(text.replaceAll('00000000-0000-4000-8000-', `${B_ID_PREFIX}0000-4000-8000-`));
}

/** B's id for one of A's release ids. */
const bId = (id: string) => id.replace('00000000-0000-4000-8000-', `${B_ID_PREFIX}0000-4000-8000-`);

async function setPrefix(mappingId: string, prefix: string): Promise<void> {
  const mapping = await mappingRepository.get(mappingId);
  if (!mapping) throw new Error('mapping missing');
  expect(await mappingRepository.changePrefix(mapping, prefix)).toBe('changed');
}

/** A release document that fails validation (a slug with a space): its release is FAILED at once. */
function invalidRelease() {
  const document = childrenRelease();
  (document.products[0] as { attributes: Record<string, unknown> }).attributes.slug = 'not ok';
  return document;
}

/** Waits until no catalog of the store is being published: no workflow outlives the cell that started it. */
async function publishesSettled(storeId: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await pcmRepository.listCatalogs(storeId)).some((catalog) => catalog.publishing !== undefined)) {
    if (Date.now() > deadline) throw new Error(`a release of store ${storeId} is still being published`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function newTenant(label: string, release: unknown): Promise<Tenant> {
  const test = await createTestStore({ name: `Isolation ${label}` });
  const { key: victim } = await applicationKeyRepository.create(test.store.id, {
    name: `${label} victim`,
    reserved_rate_limit: 5,
  });
  const initialPrefix = prefixFor(`${label}-initial`);
  await setPrefix(test.store.mapping_id, initialPrefix);
  // The release shoppers read, published as a catalog of the API so that the victim rule (a catch-all)
  // can name it.
  const shopperCatalogId = await newPcmCatalog(test.store.id, `${label} shoppers`);
  const document = release as { catalog: Record<string, unknown> };
  await publishRelease(test.store.id, {
    ...document,
    catalog: { ...document.catalog, id: shopperCatalogId },
  });
  const catalogId = await newPcmCatalog(test.store.id, `${label} victim`, release);
  const pricebookId = await newPricebook(test.store.id, 'victim');
  const mapping = await mappingRepository.get(test.store.mapping_id);
  return {
    test,
    victimKeyId: victim.id,
    mappingId: test.store.mapping_id,
    realmId: mapping?.realm_id ?? '',
    initialPrefix,
    adminToken: await tokenFor(test),
    catalogId,
    releaseId: await failedRelease(test.store.id, catalogId),
    fileId: await newFile(test.store.id, `https://cdn.example.com/${label}/victim.png`),
    productId: await newPcmProduct(test.store.id, `${label} victim`, 'victim'),
    currencyId: await newCurrency(test.store.id, 'VIC'),
    ...(await victimIntegration(test.store.id)),
    pricebookId,
    priceId: await newPrice(test.store.id, pricebookId, 'victim'),
    priceModifierId: await newPriceModifier(test.store.id, pricebookId, 'victim'),
    shopperCatalogId,
    ruleId: await newCatalogRule(test.store.id, 'victim', shopperCatalogId),
    ...(await victimNode(test.store.id, label)),
  };
}

/** A webhook integration with one logged delivery attempt, which no successful cell touches. */
async function victimIntegration(
  storeId: string,
): Promise<{ integrationId: string; integrationJobId: string }> {
  const integrationId = await newIntegration(storeId, 'victim');
  const integrationJobId = await newIntegrationLog(storeId, integrationId);
  return { integrationId, integrationJobId };
}

/** A hierarchy with one node, which no successful cell touches. */
async function victimNode(storeId: string, label: string): Promise<{ hierarchyId: string; nodeId: string }> {
  const hierarchyId = await newPcmHierarchy(storeId, `${label} victim hierarchy`);
  return { hierarchyId, nodeId: await newPcmNode(storeId, hierarchyId, `${label} victim node`) };
}

/** An admin token of A's first key whose expiry has passed (stored like any issued token). */
async function expiredToken(tenant: Tenant): Promise<string> {
  const token = generateAccessToken(tenant.test.store.id, tenant.test.keyId);
  const expiresAt = Math.floor(Date.now() / 1000) - 60;
  await tokenRepository.issue(
    hashSecret(token),
    {
      store_id: tenant.test.store.id,
      key_id: tenant.test.keyId,
      kind: 'client_credentials',
      expires_at: expiresAt,
    },
    new Date().toISOString(),
  );
  return token;
}

// Snapshots taken after setup, compared after the matrix.
let aVictimBefore: unknown;
let bVictimBefore: unknown;
let aStoreBefore: { key_count: number; reserved_rate_limit_total: number };
let aCatalogBefore: unknown;
let aReleaseBefore: unknown;
let aFileBefore: unknown;
let aCurrenciesBefore: unknown;
/** A's currencies the own-admin cells may change (PUT) and delete (DELETE). */
let aEditableCurrencyId: string;
let aDisposableCurrencyId: string;
/** A's price books the own-admin cells may rename (PUT) and delete (DELETE). */
let aEditablePricebookId: string;
let aDisposablePricebookId: string;
let aPricebookBefore: unknown;
let aPriceBefore: unknown;
let aPriceModifierBefore: unknown;
/** A's prices and modifiers (in its victim book) the own-admin cells change and delete. */
let aEditablePriceId: string;
let aDisposablePriceId: string;
let aEditablePriceModifierId: string;
let aDisposablePriceModifierId: string;
let aEditableRuleId: string;
let aDisposableRuleId: string;
let aRulesBefore: unknown;
const createdPricebookIds: Partial<Record<Kind, string>> = {};

// Two stores with published releases: seconds on a loaded machine (the default 5 s hook limit failed there).
beforeAll(async () => {
  clearAuthCache();
  clearCatalogCaches();
  [a, b] = await Promise.all([newTenant('a', childrenRelease()), newTenant('b', bRelease())]);
  const editable = await applicationKeyRepository.create(a.test.store.id, {
    name: 'a editable',
    reserved_rate_limit: 0,
  });
  const disposable = await applicationKeyRepository.create(a.test.store.id, {
    name: 'a disposable',
    reserved_rate_limit: 4,
  });
  aEditableKeyId = editable.key.id;
  aDisposableKeyId = disposable.key.id;

  // The catalog API's releases start their workflow in this process, as the local server runs them.
  registerLocalWorkflow(runWorkflowLocally);
  const aStoreId = a.test.store.id;
  aEditableCatalogId = await newPcmCatalog(aStoreId, 'a editable');
  aDisposableCatalogId = await newPcmCatalog(aStoreId, 'a disposable');
  aReleasingCatalogId = await newPcmCatalog(aStoreId, 'a releasing', invalidRelease());
  const withRelease = await newPcmCatalog(aStoreId, 'a with a disposable release', childrenRelease());
  aDisposableRelease = { catalogId: withRelease, releaseId: await failedRelease(aStoreId, withRelease) };
  aPrunableCatalogId = await newPcmCatalog(aStoreId, 'a prunable', childrenRelease());
  aVar = await newVariationTree(aStoreId, 'a victim');
  aDisposableVar = await newVariationTree(aStoreId, 'a disposable');
  aOptionVar = await newVariationTree(aStoreId, 'a option owner');
  aHierarchyId = await newPcmHierarchy(aStoreId, 'a victim', 'a-victim');
  aDisposableHierarchyId = await newPcmHierarchy(aStoreId, 'a disposable', 'a-disposable');
  aNodeId = await newPcmNode(aStoreId, aHierarchyId, 'a victim node');
  aChildNodeId = await newPcmNode(aStoreId, aHierarchyId, 'a child node', aNodeId);
  aDisposableNodeId = await newPcmNode(aStoreId, aHierarchyId, 'a disposable node');
  aDisposableModifierId = uuidv7();
  await variationRepository.createModifier(aStoreId, {
    id: aDisposableModifierId,
    variation_id: aVar.variationId,
    option_id: aVar.optionId,
    type: 'name_append',
    value: 'x',
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
  });
  const pruned = [
    await failedRelease(aStoreId, aPrunableCatalogId),
    await failedRelease(aStoreId, aPrunableCatalogId),
  ];

  aDisposableFileId = await newFile(aStoreId, 'https://cdn.example.com/a/disposable.png');
  aLinkedFileId = await newFile(aStoreId, 'https://cdn.example.com/a/linked.png');
  aEditableProductId = await newPcmProduct(aStoreId, 'a editable product', 'editable');
  aDisposableProductId = await newPcmProduct(aStoreId, 'a disposable product', 'disposable');
  aProductBefore = await productRepository.get(aStoreId, a.productId);
  // Their messages go nowhere: the jobs stay pending.
  registerLocalJobQueue(() => undefined);
  aJobId = (await enqueueJob(aStoreId, 'product-import', {}, 'isolation')).id;
  aCancellableJobId = (await enqueueJob(aStoreId, 'product-import', {}, 'isolation')).id;
  aJobBefore = await jobRepository.get(aStoreId, aJobId);
  aEditableCurrencyId = await newCurrency(aStoreId, 'EDT');
  aDisposableCurrencyId = await newCurrency(aStoreId, 'DSP');
  aEditablePricebookId = await newPricebook(aStoreId, 'editable');
  aDisposablePricebookId = await newPricebook(aStoreId, 'disposable');
  aEditablePriceId = await newPrice(aStoreId, a.pricebookId, 'editable');
  aDisposablePriceId = await newPrice(aStoreId, a.pricebookId, 'disposable');
  aEditablePriceModifierId = await newPriceModifier(aStoreId, a.pricebookId, 'editable');
  aDisposablePriceModifierId = await newPriceModifier(aStoreId, a.pricebookId, 'disposable');
  aEditableRuleId = await newCatalogRule(aStoreId, 'editable', a.shopperCatalogId);
  aDisposableRuleId = await newCatalogRule(aStoreId, 'disposable', a.shopperCatalogId);

  const own = a.adminToken;
  const bRandom = b.adminToken.split('.')[2];
  tokens = {
    none: {},
    'bearer-abc': { authorization: 'Bearer abc' },
    basic: {
      authorization: `Basic ${Buffer.from(`${a.test.clientId}:${a.test.clientSecret}`).toString('base64')}`,
    },
    'no-scheme': { authorization: own },
    unknown: { authorization: `Bearer ${generateAccessToken(a.test.store.id, a.test.keyId)}` },
    forged: { authorization: `Bearer ${a.test.store.id}.${b.test.keyId}.${bRandom}` },
    expired: { authorization: `Bearer ${await expiredToken(a)}` },
    implicit: { authorization: `Bearer ${await tokenFor(a.test, 'implicit')}` },
    'other-admin': { authorization: `Bearer ${b.adminToken}` },
    'own-admin': { authorization: `Bearer ${own}` },
  };

  aVictimBefore = await applicationKeyRepository.get(a.test.store.id, a.victimKeyId, true);
  bVictimBefore = await applicationKeyRepository.get(b.test.store.id, b.victimKeyId, true);
  const aStore = await storeRepository.get(a.test.store.id, true);
  if (!aStore) throw new Error('store A missing');
  aStoreBefore = aStore;
  aCatalogBefore = await pcmRepository.getCatalog(aStoreId, a.catalogId);
  aReleaseBefore = await pcmRepository.getRelease(aStoreId, a.catalogId, a.releaseId);
  aFileBefore = await fileRepository.get(aStoreId, a.fileId);
  aCurrenciesBefore = await currencyRepository.list(aStoreId);
  aEditableIntegrationId = await newIntegration(aStoreId, 'editable');
  aDisposableIntegrationId = await newIntegration(aStoreId, 'disposable');
  aIntegrationBefore = await integrationRepository.get(aStoreId, a.integrationId);
  aPricebookBefore = await pricebookRepository.get(aStoreId, a.pricebookId);
  aPriceBefore = await priceRepository.getPrice(aStoreId, a.pricebookId, a.priceId);
  aPriceModifierBefore = await priceRepository.getModifier(aStoreId, a.pricebookId, a.priceModifierId);
  aRulesBefore = (await listCatalogRules(aStoreId)).find((rule) => rule.id === a.ruleId);
  aIds = [
    a.test.store.id,
    a.test.keyId,
    a.test.clientId,
    a.test.clientSecret,
    a.adminToken,
    a.victimKeyId,
    aEditableKeyId,
    aDisposableKeyId,
    a.mappingId,
    a.realmId,
    a.initialPrefix,
    ...LIVE_CHILDREN,
    a.catalogId,
    a.releaseId,
    aEditableCatalogId,
    aDisposableCatalogId,
    aReleasingCatalogId,
    aDisposableRelease.catalogId,
    aDisposableRelease.releaseId,
    aPrunableCatalogId,
    ...pruned,
    a.fileId,
    aDisposableFileId,
    aLinkedFileId,
    a.productId,
    aEditableProductId,
    aDisposableProductId,
    aJobId,
    aCancellableJobId,
    a.currencyId,
    aEditableCurrencyId,
    aDisposableCurrencyId,
    a.integrationId,
    a.integrationJobId,
    aEditableIntegrationId,
    aDisposableIntegrationId,
    a.pricebookId,
    aEditablePricebookId,
    aDisposablePricebookId,
    a.priceId,
    a.priceModifierId,
    aEditablePriceId,
    aDisposablePriceId,
    aEditablePriceModifierId,
    aDisposablePriceModifierId,
    a.ruleId,
    aEditableRuleId,
    aDisposableRuleId,
  ];
}, 60_000);

// A release the matrix created is still validated in this process: the file ends once it is done.
afterAll(async () => {
  if (a) await publishesSettled(a.test.store.id);
}, 30_000);

// ---------------------------------------------------------------------------------------------------
// Requests: what each route is asked, always about store A's resources, with a valid body for writes
// ---------------------------------------------------------------------------------------------------

interface CellRequest {
  params?: Record<string, string>;
  query?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * A product's file relationships: the own-admin cells name aLinkedFileId on aEditableProductId (each read
 * runs before the writes of its relationship, route table order); the others aim at A's victim product
 * and file.
 */
function fileRelationshipRequests(): Record<string, (kind: Kind) => CellRequest> {
  const target = (kind: Kind) =>
    kind === 'own-admin'
      ? { product: aEditableProductId, file: aLinkedFileId }
      : { product: a.productId, file: a.fileId };
  const requests: Record<string, (kind: Kind) => CellRequest> = {};
  const bodies = {
    main_image: {
      GET: () => undefined,
      POST: (file: string) => ({ data: { type: 'file', id: file } }),
      PUT: (file: string) => ({ data: [{ type: 'file', id: file }] }),
      DELETE: (file: string) => ({ data: { type: 'file', id: file } }),
    },
    files: {
      GET: () => undefined,
      POST: (file: string) => ({ data: [{ type: 'file', id: file }] }),
      PUT: (file: string) => ({ data: [{ type: 'file', id: file, meta: { tags: ['front'] } }] }),
      DELETE: (file: string) => ({ data: [{ type: 'file', id: file }] }),
    },
  };
  for (const [name, methods] of Object.entries(bodies)) {
    for (const [method, body] of Object.entries(methods)) {
      requests[`${method} /pcm/products/{product_id}/relationships/${name}`] = (kind) => {
        const { product, file } = target(kind);
        const sent = body(file);
        return { params: { product_id: product }, ...(sent === undefined ? {} : { body: sent }) };
      };
    }
  }
  return requests;
}

const IMPORT_BOUNDARY = 'isolation-import';

const REQUESTS: Record<string, (kind: Kind) => CellRequest> = {
  'POST /oauth/access_token': () => ({
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: a.test.clientId,
      client_secret: a.test.clientSecret,
    }).toString(),
  }),
  'GET /v2/application-keys': () => ({}),
  'POST /v2/application-keys': (kind) => ({
    body: { data: { type: 'application_key', name: `created by ${kind}`, reserved_rate_limit: 1 } },
  }),
  'GET /v2/application-keys/{id}': () => ({ params: { id: a.victimKeyId } }),
  'PUT /v2/application-keys/{id}': (kind) => ({
    params: { id: kind === 'own-admin' ? aEditableKeyId : a.victimKeyId },
    body: { data: { type: 'application_key', name: `renamed by ${kind}`, reserved_rate_limit: 2 } },
  }),
  'DELETE /v2/application-keys/{id}': (kind) => ({
    params: { id: kind === 'own-admin' ? aDisposableKeyId : a.victimKeyId },
  }),
  'GET /v2/merchant-realm-mappings': () => ({}),
  'GET /v2/merchant-realm-mappings/{mapping_id}': () => ({ params: { mapping_id: a.mappingId } }),
  'PUT /v2/merchant-realm-mappings/{mapping_id}': (kind) => ({
    params: { mapping_id: a.mappingId },
    body: { data: { type: 'merchant-realm-mappings', prefix: prefixFor(kind) } },
  }),
  'GET /catalog/products/{product_id}/relationships/children': () => ({
    params: { product_id: PARENT },
    headers: { 'svc-channel': 'web' },
  }),
  'GET /catalog': () => ({ headers: { 'svc-channel': 'web' } }),
  // A's children by id: B's lookups do not know them.
  'GET /catalog/products': () => ({
    query: `filter=${encodeURIComponent(`in(id,${LIVE_CHILDREN.join(',')})`)}`,
    headers: { 'svc-channel': 'web' },
  }),
  'GET /catalog/products/{product_id}': () => ({
    params: { product_id: PARENT },
    headers: { 'svc-channel': 'web' },
  }),
  'GET /catalog/nodes': () => ({ headers: { 'svc-channel': 'web' } }),
  'GET /catalog/nodes/{node_id}': () => ({
    params: { node_id: LEAF_NODE },
    headers: { 'svc-channel': 'web' },
  }),
  'GET /catalog/nodes/{node_id}/relationships/children': () => ({
    params: { node_id: ROOT_NODE },
    headers: { 'svc-channel': 'web' },
  }),
  'GET /catalog/nodes/{node_id}/relationships/products': () => ({
    params: { node_id: LEAF_NODE },
    headers: { 'svc-channel': 'web' },
  }),
  'GET /catalog/hierarchies': () => ({ headers: { 'svc-channel': 'web' } }),
  'GET /catalog/hierarchies/{hierarchy_id}': () => ({
    params: { hierarchy_id: ROOT_NODE },
    headers: { 'svc-channel': 'web' },
  }),
  'GET /catalog/hierarchies/{hierarchy_id}/children': () => ({
    params: { hierarchy_id: ROOT_NODE },
    headers: { 'svc-channel': 'web' },
  }),
  'GET /catalog/hierarchies/{hierarchy_id}/nodes': () => ({
    params: { hierarchy_id: ROOT_NODE },
    headers: { 'svc-channel': 'web' },
  }),
  'GET /catalog/hierarchies/{hierarchy_id}/products': () => ({
    params: { hierarchy_id: ROOT_NODE },
    headers: { 'svc-channel': 'web' },
  }),
  'POST /pcm/catalogs': (kind) => ({
    body: { data: { type: 'catalog', attributes: { name: `created by ${kind}` } } },
  }),
  'GET /pcm/catalogs': () => ({}),
  'GET /pcm/catalogs/{catalog_id}': () => ({ params: { catalog_id: a.catalogId } }),
  'PUT /pcm/catalogs/{catalog_id}': (kind) => ({
    params: { catalog_id: kind === 'own-admin' ? aEditableCatalogId : a.catalogId },
    body: { data: { type: 'catalog', attributes: { name: `renamed by ${kind}` } } },
  }),
  'DELETE /pcm/catalogs/{catalog_id}': (kind) => ({
    params: { catalog_id: kind === 'own-admin' ? aDisposableCatalogId : a.catalogId },
  }),
  'PUT /pcm/catalogs/{catalog_id}/document': (kind) => ({
    params: { catalog_id: kind === 'own-admin' ? aEditableCatalogId : a.catalogId },
    body: childrenRelease(),
  }),
  'POST /pcm/catalogs/{catalog_id}/document-uploads': (kind) => ({
    params: { catalog_id: kind === 'own-admin' ? aEditableCatalogId : a.catalogId },
  }),
  'POST /pcm/catalogs/{catalog_id}/releases': (kind) => ({
    params: { catalog_id: kind === 'own-admin' ? aReleasingCatalogId : a.catalogId },
  }),
  'GET /pcm/catalogs/{catalog_id}/releases': () => ({ params: { catalog_id: a.catalogId } }),
  'GET /pcm/catalogs/{catalog_id}/releases/{release_id}': () => ({
    params: { catalog_id: a.catalogId, release_id: a.releaseId },
  }),
  'DELETE /pcm/catalogs/{catalog_id}/releases/{release_id}': (kind) => ({
    params:
      kind === 'own-admin'
        ? { catalog_id: aDisposableRelease.catalogId, release_id: aDisposableRelease.releaseId }
        : { catalog_id: a.catalogId, release_id: a.releaseId },
  }),
  'DELETE /pcm/catalogs/{catalog_id}/releases': (kind) => ({
    params: { catalog_id: kind === 'own-admin' ? aPrunableCatalogId : a.catalogId },
  }),
  'POST /pcm/catalogs/rules': (kind) => ({
    body: { data: { type: 'catalog_rule', attributes: { name: `by-${kind}`, catalog_id: a.catalogId } } },
  }),
  'GET /pcm/catalogs/rules': () => ({}),
  'GET /pcm/catalogs/rules/{catalog_rule_id}': () => ({ params: { catalog_rule_id: a.ruleId } }),
  'PUT /pcm/catalogs/rules/{catalog_rule_id}': (kind) => {
    const id = kind === 'own-admin' ? aEditableRuleId : a.ruleId;
    return {
      params: { catalog_rule_id: id },
      body: { data: { id, type: 'catalog_rule', attributes: { name: `renamed-by-${kind}` } } },
    };
  },
  'DELETE /pcm/catalogs/rules/{catalog_rule_id}': (kind) => ({
    params: { catalog_rule_id: kind === 'own-admin' ? aDisposableRuleId : a.ruleId },
  }),
  'POST /v2/files': (kind) => ({ body: { file_location: `https://cdn.example.com/${kind}.png` } }),
  'GET /v2/files': () => ({}),
  'GET /v2/files/{file_id}': () => ({ params: { file_id: a.fileId } }),
  'DELETE /v2/files/{file_id}': (kind) => ({
    params: { file_id: kind === 'own-admin' ? aDisposableFileId : a.fileId },
  }),
  'POST /v2/currencies': () => ({
    body: {
      data: {
        type: 'currency',
        code: 'NEW',
        exchange_rate: 1,
        format: '{price} new',
        decimal_point: '.',
        thousand_separator: ',',
        decimal_places: 2,
        default: false,
        enabled: true,
      },
    },
  }),
  'GET /v2/currencies': () => ({}),
  'GET /v2/currencies/{currency_id}': () => ({ params: { currency_id: a.currencyId } }),
  'PUT /v2/currencies/{currency_id}': (kind) => ({
    params: { currency_id: kind === 'own-admin' ? aEditableCurrencyId : a.currencyId },
    body: { data: { type: 'currency', format: `${kind} {price}` } },
  }),
  'DELETE /v2/currencies/{currency_id}': (kind) => ({
    params: { currency_id: kind === 'own-admin' ? aDisposableCurrencyId : a.currencyId },
  }),
  'POST /v2/integrations': (kind) => ({
    body: {
      data: {
        type: 'integration',
        name: `created by ${kind}`,
        observes: ['catalog-release.updated'],
        configuration: { url: `https://93.184.216.34/${kind}` },
      },
    },
  }),
  'GET /v2/integrations': () => ({}),
  'GET /v2/integrations/logs': () => ({}),
  'GET /v2/integrations/{integration_id}': () => ({ params: { integration_id: a.integrationId } }),
  'PUT /v2/integrations/{integration_id}': (kind) => ({
    params: { integration_id: kind === 'own-admin' ? aEditableIntegrationId : a.integrationId },
    body: { data: { type: 'integration', name: `renamed by ${kind}` } },
  }),
  'DELETE /v2/integrations/{integration_id}': (kind) => ({
    params: { integration_id: kind === 'own-admin' ? aDisposableIntegrationId : a.integrationId },
  }),
  'GET /v2/integrations/{integration_id}/logs': () => ({ params: { integration_id: a.integrationId } }),
  'GET /v2/integrations/{integration_id}/jobs': () => ({ params: { integration_id: a.integrationId } }),
  'GET /v2/integrations/{integration_id}/jobs/{job_id}/logs': () => ({
    params: { integration_id: a.integrationId, job_id: a.integrationJobId },
  }),
  'POST /pcm/pricebooks': (kind) => ({
    body: { data: { type: 'pricebook', attributes: { name: `created by ${kind}` } } },
  }),
  'GET /pcm/pricebooks': () => ({}),
  'GET /pcm/pricebooks/{pricebook_id}': () => ({ params: { pricebook_id: a.pricebookId } }),
  'PUT /pcm/pricebooks/{pricebook_id}': (kind) => ({
    params: { pricebook_id: kind === 'own-admin' ? aEditablePricebookId : a.pricebookId },
    body: { data: { type: 'pricebook', attributes: { name: `renamed by ${kind}` } } },
  }),
  'DELETE /pcm/pricebooks/{pricebook_id}': (kind) => ({
    params: { pricebook_id: kind === 'own-admin' ? aDisposablePricebookId : a.pricebookId },
  }),
  'GET /pcm/pricebooks/prices': () => ({}),
  'POST /pcm/pricebooks/import': (kind) => ({
    headers: { 'content-type': `multipart/form-data; boundary=${IMPORT_BOUNDARY}` },
    body: [
      `--${IMPORT_BOUNDARY}`,
      'Content-Disposition: form-data; name="file"; filename="prices.jsonl"',
      'Content-Type: application/jsonl',
      '',
      JSON.stringify({
        data: { type: 'pricebook', attributes: { name: `imported by ${kind}`, external_ref: kind } },
      }),
      `--${IMPORT_BOUNDARY}--`,
      '',
    ].join('\r\n'),
  }),
  'POST /pcm/pricebooks/{pricebook_id}/prices': (kind) => ({
    params: { pricebook_id: a.pricebookId },
    body: { data: { type: 'product-price', attributes: { sku: `created by ${kind}`, currencies: USD_100 } } },
  }),
  'GET /pcm/pricebooks/{pricebook_id}/prices': () => ({ params: { pricebook_id: a.pricebookId } }),
  'GET /pcm/pricebooks/{pricebook_id}/prices/{price_id}': () => ({
    params: { pricebook_id: a.pricebookId, price_id: a.priceId },
  }),
  'PUT /pcm/pricebooks/{pricebook_id}/prices/{price_id}': (kind) => ({
    params: { pricebook_id: a.pricebookId, price_id: kind === 'own-admin' ? aEditablePriceId : a.priceId },
    body: { data: { type: 'product-price', attributes: { external_ref: `changed by ${kind}` } } },
  }),
  'DELETE /pcm/pricebooks/{pricebook_id}/prices/{price_id}': (kind) => ({
    params: { pricebook_id: a.pricebookId, price_id: kind === 'own-admin' ? aDisposablePriceId : a.priceId },
  }),
  'POST /pcm/pricebooks/{pricebook_id}/modifiers': (kind) => ({
    params: { pricebook_id: a.pricebookId },
    body: {
      data: {
        type: 'price-modifier',
        attributes: { name: `created by ${kind}`, modifier_type: 'price_equals', currencies: USD_100 },
      },
    },
  }),
  'GET /pcm/pricebooks/{pricebook_id}/modifiers': () => ({ params: { pricebook_id: a.pricebookId } }),
  'GET /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}': () => ({
    params: { pricebook_id: a.pricebookId, modifier_id: a.priceModifierId },
  }),
  'PUT /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}': (kind) => ({
    params: {
      pricebook_id: a.pricebookId,
      modifier_id: kind === 'own-admin' ? aEditablePriceModifierId : a.priceModifierId,
    },
    body: { data: { type: 'price-modifier', attributes: { external_ref: `changed by ${kind}` } } },
  }),
  'DELETE /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}': (kind) => ({
    params: {
      pricebook_id: a.pricebookId,
      modifier_id: kind === 'own-admin' ? aDisposablePriceModifierId : a.priceModifierId,
    },
  }),
  'POST /pcm/products': (kind) => ({
    body: { data: { type: 'product', attributes: { name: `created by ${kind}`, sku: 'created' } } },
  }),
  'GET /pcm/products': () => ({}),
  'GET /pcm/products/{product_id}': () => ({ params: { product_id: a.productId } }),
  'PUT /pcm/products/{product_id}': (kind) => {
    const id = kind === 'own-admin' ? aEditableProductId : a.productId;
    return {
      params: { product_id: id },
      body: { data: { type: 'product', id, attributes: { name: `renamed by ${kind}` } } },
    };
  },
  'DELETE /pcm/products/{product_id}': (kind) => ({
    params: { product_id: kind === 'own-admin' ? aDisposableProductId : a.productId },
  }),
  'GET /pcm/products/{product_id}/relationships/component_products': () => ({
    params: { product_id: a.productId },
  }),
  ...fileRelationshipRequests(),
  // Link writes go to the product own-admin may change; DELETE lists nothing (a valid no-op).
  'GET /pcm/products/{product_id}/relationships/variations': () => ({ params: { product_id: a.productId } }),
  'POST /pcm/products/{product_id}/relationships/variations': (kind) => ({
    params: { product_id: kind === 'own-admin' ? aEditableProductId : a.productId },
    body: { data: [{ type: 'product-variation', id: aVar.variationId }] },
  }),
  'PUT /pcm/products/{product_id}/relationships/variations': (kind) => ({
    params: { product_id: kind === 'own-admin' ? aEditableProductId : a.productId },
    body: { data: [{ type: 'product-variation', id: aVar.variationId }] },
  }),
  'DELETE /pcm/products/{product_id}/relationships/variations': (kind) => ({
    params: { product_id: kind === 'own-admin' ? aEditableProductId : a.productId },
    body: { data: [] },
  }),
  'GET /pcm/products/{product_id}/children': () => ({ params: { product_id: a.productId } }),
  'POST /pcm/products/{product_id}/build': () => ({ params: { product_id: a.productId } }),
  'POST /pcm/variations': (kind) => ({
    body: { data: { type: 'product-variation', attributes: { name: `created by ${kind}` } } },
  }),
  'GET /pcm/variations': () => ({}),
  'GET /pcm/variations/{variation_id}': () => ({ params: { variation_id: aVar.variationId } }),
  'PUT /pcm/variations/{variation_id}': (kind) => ({
    params: { variation_id: aVar.variationId },
    body: { data: { type: 'product-variation', attributes: { name: `renamed by ${kind}` } } },
  }),
  'DELETE /pcm/variations/{variation_id}': (kind) => ({
    params: { variation_id: kind === 'own-admin' ? aDisposableVar.variationId : aVar.variationId },
  }),
  'POST /pcm/variations/{variation_id}/options': (kind) => ({
    params: { variation_id: aVar.variationId },
    body: { data: { type: 'product-variation-option', attributes: { name: `by-${kind}` } } },
  }),
  'GET /pcm/variations/{variation_id}/options': () => ({ params: { variation_id: aVar.variationId } }),
  'GET /pcm/variations/{variation_id}/options/{option_id}': () => ({
    params: { variation_id: aVar.variationId, option_id: aVar.optionId },
  }),
  'PUT /pcm/variations/{variation_id}/options/{option_id}': (kind) => ({
    params: { variation_id: aVar.variationId, option_id: aVar.optionId },
    body: {
      data: {
        type: 'product-variation-option',
        id: aVar.optionId,
        attributes: { description: `by ${kind}` },
      },
    },
  }),
  'DELETE /pcm/variations/{variation_id}/options/{option_id}': (kind) => ({
    params: {
      variation_id: kind === 'own-admin' ? aOptionVar.variationId : aVar.variationId,
      option_id: kind === 'own-admin' ? aOptionVar.optionId : aVar.optionId,
    },
  }),
  'POST /pcm/variations/{variation_id}/options/{option_id}/modifiers': () => ({
    params: { variation_id: aVar.variationId, option_id: aVar.optionId },
    body: { data: { type: 'product-variation-modifier', attributes: { type: 'status', value: 'live' } } },
  }),
  'GET /pcm/variations/{variation_id}/options/{option_id}/modifiers': () => ({
    params: { variation_id: aVar.variationId, option_id: aVar.optionId },
  }),
  'GET /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}': () => ({
    params: { ...aVarParams() },
  }),
  'PUT /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}': () => ({
    params: { ...aVarParams() },
    body: { data: { type: 'product-variation-modifier', attributes: { type: 'sku_append', value: '-A' } } },
  }),
  'DELETE /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}': (kind) => ({
    params: kind === 'own-admin' ? { ...aVarParams(), modifier_id: aDisposableModifierId } : aVarParams(),
  }),
  'POST /pcm/hierarchies': (kind) => ({
    // B's token takes A's slug: slugs are unique per store.
    body: {
      data: { type: 'hierarchy', attributes: { name: `created by ${kind}`, slug: hierarchySlug(kind) } },
    },
  }),
  'GET /pcm/hierarchies': () => ({}),
  'GET /pcm/hierarchies/{hierarchy_id}': () => ({ params: { hierarchy_id: aHierarchyId } }),
  'PUT /pcm/hierarchies/{hierarchy_id}': (kind) => ({
    params: { hierarchy_id: aHierarchyId },
    body: { data: { type: 'hierarchy', id: aHierarchyId, attributes: { name: `renamed by ${kind}` } } },
  }),
  'DELETE /pcm/hierarchies/{hierarchy_id}': (kind) => ({
    params: { hierarchy_id: kind === 'own-admin' ? aDisposableHierarchyId : aHierarchyId },
  }),
  'POST /pcm/hierarchies/{hierarchy_id}/nodes': (kind) => ({
    params: { hierarchy_id: aHierarchyId },
    body: { data: { type: 'node', attributes: { name: `created by ${kind}` } } },
  }),
  'GET /pcm/hierarchies/{hierarchy_id}/nodes': () => ({ params: { hierarchy_id: aHierarchyId } }),
  'GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}': () => ({ params: aNodeParams() }),
  'PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}': (kind) => ({
    params: aNodeParams(),
    body: { data: { type: 'node', id: aNodeId, attributes: { name: `renamed by ${kind}` } } },
  }),
  'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}': (kind) => ({
    params: aNodeParams(kind === 'own-admin' ? aDisposableNodeId : aNodeId),
  }),
  'GET /pcm/hierarchies/{hierarchy_id}/children': () => ({ params: { hierarchy_id: aHierarchyId } }),
  'GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/children': () => ({ params: aNodeParams() }),
  'POST /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/children': () => ({
    params: aNodeParams(),
    body: { data: [{ type: 'node', id: aChildNodeId }] },
  }),
  'PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent': () => ({
    params: aNodeParams(aChildNodeId),
    body: { data: { type: 'node', id: aNodeId } },
  }),
  'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent': () => ({
    params: aNodeParams(),
  }),
  'POST /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products': () => ({
    params: aNodeParams(),
    body: { data: [{ type: 'product', id: a.productId }] },
  }),
  'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products': () => ({
    params: aNodeParams(),
    body: { data: [{ type: 'product', id: a.productId }] },
  }),
  'GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/products': () => ({ params: aNodeParams() }),
  'GET /pcm/products/{product_id}/nodes': () => ({ params: { product_id: a.productId } }),
  'POST /pcm/products/import': (kind) => ({
    headers: { 'content-type': `multipart/form-data; boundary=${IMPORT_BOUNDARY}` },
    body: [
      `--${IMPORT_BOUNDARY}`,
      'Content-Disposition: form-data; name="file"; filename="products.csv"',
      'Content-Type: text/csv',
      '',
      'external_ref,name,description,slug,status,commodity_type',
      `imported-by-${kind},Imported by ${kind},,,draft,physical`,
      `--${IMPORT_BOUNDARY}--`,
      '',
    ].join('\r\n'),
  }),
  'POST /pcm/products/import-uploads': () => ({}),
  'GET /pcm/jobs': () => ({}),
  'GET /pcm/jobs/{job_id}': () => ({ params: { job_id: aJobId } }),
  'GET /pcm/jobs/{job_id}/errors': () => ({ params: { job_id: aJobId } }),
  'POST /pcm/jobs/{job_id}/cancel': (kind) => ({
    params: { job_id: kind === 'own-admin' ? aCancellableJobId : aJobId },
  }),
};

/** Sends a request through the route table (as the local server and API Gateway route it). */
async function send(
  method: string,
  pathTemplate: string,
  request: CellRequest,
  auth: Record<string, string>,
) {
  let path = pathTemplate;
  for (const [name, value] of Object.entries(request.params ?? {})) {
    path = path.replace(`{${name}}`, encodeURIComponent(value));
  }
  const match = matchRoute(method, path);
  if (!match) throw new Error(`no route for ${method} ${path}`);
  expect(match.routeKey).toBe(`${method} ${pathTemplate}`);
  const body =
    request.body === undefined
      ? undefined
      : typeof request.body === 'string'
        ? request.body
        : JSON.stringify(request.body);
  const headers: Record<string, string> = { ...request.headers, ...auth };
  if (body !== undefined && headers['content-type'] === undefined)
    headers['content-type'] = 'application/json';
  const handler = await loadHandler(match.route.function);
  return invoke(handler, {
    method,
    path: request.query ? `${path}?${request.query}` : path,
    routeKey: match.routeKey,
    pathParameters: match.pathParameters,
    headers,
    ...(body === undefined ? {} : { body }),
  });
}

// ---------------------------------------------------------------------------------------------------
// Assertions
// ---------------------------------------------------------------------------------------------------

const TITLES: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

function contentType(res: InvokeResult): string | undefined {
  const entry = Object.entries(res.headers).find(([name]) => name.toLowerCase() === 'content-type');
  return entry?.[1];
}

/** The JSON error body: one error with status, title, detail and request id, nothing else. */
function expectErrorBody(res: InvokeResult, status: number, detail?: string) {
  expect(contentType(res)).toBe('application/json');
  expect(res.body).toEqual({
    errors: [
      {
        status: String(status),
        title: TITLES[status],
        detail: detail ?? expect.any(String),
        request_id: expect.any(String),
      },
    ],
  });
  expect(res.body.errors[0].detail).not.toBe('');
}

function expectNoneOf(raw: string, ids: string[]) {
  for (const value of ids) expect(raw).not.toContain(value);
}

const NOT_FOUND = 'The requested resource could not be found';
const USD_100 = { USD: { amount: 100 } };
const PRODUCT_NOT_FOUND = 'product not found in the catalog';

/** The 404 detail of a route: catalog reads name what they did not find. */
function notFoundDetail(path: string): string {
  if (path.startsWith('/pcm/catalogs/rules/')) return 'catalog rule not found';
  if (path.startsWith('/pcm/catalogs/')) return 'catalog not found';
  if (path.startsWith('/v2/files/')) return 'file not found';
  if (path.startsWith('/v2/currencies/')) return 'currency not found';
  if (path.startsWith('/v2/integrations/')) return 'integration not found';
  if (path.startsWith('/pcm/pricebooks/')) return 'price book not found';
  if (path.startsWith('/pcm/products/')) return 'product not found';
  if (path.startsWith('/pcm/hierarchies/')) return 'hierarchy not found';
  if (path.startsWith('/pcm/jobs/')) return 'job not found';
  if (path.startsWith('/pcm/variations/')) {
    if (path.includes('/modifiers/')) return 'modifier not found';
    if (path.includes('/options/')) return 'option not found';
    return 'variation not found';
  }
  if (path.startsWith('/catalog/nodes/')) return 'node not found in the catalog';
  if (path.startsWith('/catalog/hierarchies/')) return 'hierarchy not found in the catalog';
  return path.startsWith('/catalog/') ? PRODUCT_NOT_FOUND : NOT_FOUND;
}

/** What a successful cell must show: the caller's own store's data, and never the other store's. */
const SUCCESS_CHECKS: Record<string, (kind: Kind, res: InvokeResult) => Promise<void> | void> = {
  'POST /oauth/access_token': (_kind, res) => {
    expect(res.body).toMatchObject({ token_type: 'Bearer', identifier: 'client_credentials' });
    expect(parseAccessToken(res.body.access_token)).toEqual({
      storeId: a.test.store.id,
      keyId: a.test.keyId,
    });
  },
  'GET /v2/application-keys': (kind, res) => {
    const ids = res.body.data.map((key: { id: string }) => key.id);
    if (kind === 'own-admin') {
      expect(ids).toEqual(expect.arrayContaining([a.test.keyId, a.victimKeyId]));
      expectNoneOf(res.raw, [b.test.store.id, b.test.keyId, b.victimKeyId, b.test.clientId]);
    } else {
      expect(ids).toEqual(expect.arrayContaining([b.test.keyId, b.victimKeyId]));
      expectNoneOf(res.raw, aIds);
    }
  },
  'POST /v2/application-keys': (kind, res) => {
    expect(res.body.data).toMatchObject({ type: 'application_key', name: `created by ${kind}` });
    createdKeyIds[kind] = res.body.data.id;
    if (kind !== 'own-admin') expectNoneOf(res.raw, aIds);
  },
  'GET /v2/application-keys/{id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: a.victimKeyId, name: 'a victim' });
  },
  'PUT /v2/application-keys/{id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: aEditableKeyId, name: 'renamed by own-admin' });
  },
  'DELETE /v2/application-keys/{id}': async () => {
    expect(await applicationKeyRepository.get(a.test.store.id, aDisposableKeyId, true)).toBeUndefined();
  },
  'GET /v2/merchant-realm-mappings': (kind, res) => {
    const tenant = kind === 'own-admin' ? a : b;
    expect(res.body.data).toMatchObject({ id: tenant.mappingId, store_id: tenant.test.store.id });
    if (kind !== 'own-admin') expectNoneOf(res.raw, aIds);
  },
  'GET /v2/merchant-realm-mappings/{mapping_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: a.mappingId, store_id: a.test.store.id });
  },
  'PUT /v2/merchant-realm-mappings/{mapping_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: a.mappingId, prefix: prefixFor('own-admin') });
  },
  'GET /catalog/products/{product_id}/relationships/children': (_kind, res) => {
    expect(res.body.data.map((product: { id: string }) => product.id)).toEqual(LIVE_CHILDREN);
  },
  'GET /catalog': (kind, res) => {
    expect(res.body.data.attributes.name).toBe(kind === 'other-admin' ? 'B children' : 'Children');
    if (kind === 'other-admin') expectNoneOf(res.raw, aIds);
  },
  'GET /catalog/products': (kind, res) => {
    const ids = res.body.data.map((product: { id: string }) => product.id);
    // in(id,...): the least recently updated first, which reverses publish order here.
    expect(ids).toEqual(kind === 'other-admin' ? [] : [...LIVE_CHILDREN].reverse());
    if (kind === 'other-admin') expectNoneOf(res.raw.replace(/"links":.*$/, ''), aIds);
  },
  'GET /catalog/products/{product_id}': (_kind, res) => {
    expect(res.body.data.id).toBe(PARENT);
  },
  'GET /catalog/nodes': (kind, res) => {
    const ids = res.body.data.map((node: { id: string }) => node.id);
    if (kind === 'other-admin') {
      expect(ids).toEqual([ROOT_NODE, LEAF_NODE].map(bId));
      expectNoneOf(res.raw, aIds);
    } else expect(ids).toEqual([ROOT_NODE, LEAF_NODE]);
  },
  'GET /catalog/nodes/{node_id}': (_kind, res) => expect(res.body.data.id).toBe(LEAF_NODE),
  'GET /catalog/nodes/{node_id}/relationships/children': (_kind, res) =>
    expect(res.body.data.map((node: { id: string }) => node.id)).toEqual([LEAF_NODE]),
  'GET /catalog/nodes/{node_id}/relationships/products': (_kind, res) =>
    expect(res.body.data.map((product: { id: string }) => product.id)).toEqual([PARENT]),
  'GET /catalog/hierarchies': (kind, res) => {
    const ids = res.body.data.map((node: { id: string }) => node.id);
    if (kind === 'other-admin') {
      expect(ids).toEqual([bId(ROOT_NODE)]);
      expectNoneOf(res.raw, aIds);
    } else expect(ids).toEqual([ROOT_NODE]);
  },
  'GET /catalog/hierarchies/{hierarchy_id}': (_kind, res) => expect(res.body.data.id).toBe(ROOT_NODE),
  'GET /catalog/hierarchies/{hierarchy_id}/children': (_kind, res) =>
    expect(res.body.data.map((node: { id: string }) => node.id)).toEqual([LEAF_NODE]),
  'GET /catalog/hierarchies/{hierarchy_id}/nodes': (_kind, res) =>
    expect(res.body.data.map((node: { id: string }) => node.id)).toEqual([LEAF_NODE]),
  'GET /catalog/hierarchies/{hierarchy_id}/products': (_kind, res) =>
    expect(res.body.data.map((product: { id: string }) => product.id)).toEqual([PARENT]),
  'POST /pcm/catalogs': (kind, res) => {
    expect(res.body.data).toMatchObject({ type: 'catalog', attributes: { name: `created by ${kind}` } });
    createdCatalogIds[kind] = res.body.data.id;
    if (kind !== 'own-admin') expectNoneOf(res.raw, aIds);
  },
  'GET /pcm/catalogs': async (kind, res) => {
    const ids = res.body.data.map((catalog: { id: string }) => catalog.id);
    const tenant = kind === 'own-admin' ? a : b;
    const stored = await pcmRepository.listCatalogs(tenant.test.store.id);
    expect(ids).toEqual(stored.map((catalog) => catalog.id));
    expect(ids).toContain(tenant.catalogId);
    if (kind === 'own-admin') {
      expectNoneOf(res.raw, [b.test.store.id, b.catalogId, b.releaseId]);
    } else expectNoneOf(res.raw, aIds);
  },
  'GET /pcm/catalogs/{catalog_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: a.catalogId, attributes: { name: 'a victim' } });
  },
  'PUT /pcm/catalogs/{catalog_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({
      id: aEditableCatalogId,
      attributes: { name: 'renamed by own-admin' },
    });
  },
  'DELETE /pcm/catalogs/{catalog_id}': async () => {
    expect(await pcmRepository.getCatalog(a.test.store.id, aDisposableCatalogId)).toBeUndefined();
  },
  'PUT /pcm/catalogs/{catalog_id}/document': (_kind, res) => {
    expect(res.body.data).toMatchObject({
      id: aEditableCatalogId,
      meta: { document: { bytes: Buffer.byteLength(JSON.stringify(childrenRelease())) } },
    });
  },
  'POST /pcm/catalogs/{catalog_id}/document-uploads': async (_kind, res) => {
    expect(res.body.data).toMatchObject({ type: 'catalog-document-upload', method: 'PUT' });
    const catalog = await pcmRepository.getCatalog(a.test.store.id, aEditableCatalogId);
    expect(catalog?.upload?.key).toBe(
      `uploads/${a.test.store.id}/${aEditableCatalogId}/${res.body.data.id}.json`,
    );
  },
  // The release's workflow runs on in this process: the cell ends once it failed (its document is invalid).
  'POST /pcm/catalogs/{catalog_id}/releases': async (_kind, res) => {
    expect(res.body.data.meta.release_status).toBe('PENDING');
    await publishesSettled(a.test.store.id);
    const release = await pcmRepository.getRelease(a.test.store.id, aReleasingCatalogId, res.body.data.id);
    expect(release).toMatchObject({ state: 'FAILED', errors: [expect.objectContaining({ rule: 'slug' })] });
  },
  'GET /pcm/catalogs/{catalog_id}/releases': (_kind, res) => {
    expect(res.body.data.map((release: { id: string }) => release.id)).toEqual([a.releaseId]);
  },
  'GET /pcm/catalogs/{catalog_id}/releases/{release_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: a.releaseId, meta: { release_status: 'FAILED' } });
  },
  'DELETE /pcm/catalogs/{catalog_id}/releases/{release_id}': async () => {
    const { catalogId, releaseId } = aDisposableRelease;
    expect(await pcmRepository.getRelease(a.test.store.id, catalogId, releaseId)).toBeUndefined();
  },
  'DELETE /pcm/catalogs/{catalog_id}/releases': async () => {
    expect(await catalogRepository.listReleases(a.test.store.id, aPrunableCatalogId)).toEqual([]);
  },
  'POST /pcm/catalogs/rules': (kind, res) => {
    expect(res.body.data).toMatchObject({ type: 'catalog_rule', attributes: { name: `by-${kind}` } });
  },
  'GET /pcm/catalogs/rules': async (kind, res) => {
    const tenant = kind === 'own-admin' ? a : b;
    const stored = await listCatalogRules(tenant.test.store.id);
    const ids = res.body.data.map((rule: { id: string }) => rule.id);
    expect(ids).toEqual(stored.map((rule) => rule.id));
    expect(ids).toContain(tenant.ruleId);
    if (kind === 'own-admin') expectNoneOf(res.raw, [b.test.store.id, b.ruleId, b.catalogId]);
    else expectNoneOf(res.raw, aIds);
  },
  'GET /pcm/catalogs/rules/{catalog_rule_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: a.ruleId, attributes: { name: 'victim' } });
  },
  'PUT /pcm/catalogs/rules/{catalog_rule_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({
      id: aEditableRuleId,
      attributes: { name: 'renamed-by-own-admin' },
    });
  },
  'DELETE /pcm/catalogs/rules/{catalog_rule_id}': async () => {
    const ids = (await listCatalogRules(a.test.store.id)).map((rule) => rule.id);
    expect(ids).not.toContain(aDisposableRuleId);
  },
  'POST /v2/files': (kind, res) => {
    expect(res.body.data).toMatchObject({
      type: 'file',
      file_name: `${kind}.png`,
      link: { href: `https://cdn.example.com/${kind}.png` },
    });
    createdFileIds[kind] = res.body.data.id;
    if (kind !== 'own-admin') expectNoneOf(res.raw, aIds);
  },
  'GET /v2/files': async (kind, res) => {
    const tenant = kind === 'own-admin' ? a : b;
    const stored = await fileRepository.all(tenant.test.store.id);
    expect(res.body.data.map((file: { id: string }) => file.id)).toEqual(stored.map((file) => file.id));
    expect(res.body.meta.results.total).toBe(stored.length);
    expect(stored.map((file) => file.id)).toContain(tenant.fileId);
    if (kind === 'own-admin') expectNoneOf(res.raw, [b.test.store.id, b.fileId]);
    else expectNoneOf(res.raw, aIds);
  },
  'GET /v2/files/{file_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: a.fileId, file_name: 'victim.png' });
  },
  'DELETE /v2/files/{file_id}': async () => {
    expect(await fileRepository.get(a.test.store.id, aDisposableFileId)).toBeUndefined();
  },
  'POST /v2/currencies': (kind, res) => {
    expect(res.body.data).toMatchObject({ type: 'currency', code: 'NEW', default: false });
    createdCurrencyIds[kind] = res.body.data.id;
    if (kind !== 'own-admin') expectNoneOf(res.raw, aIds);
  },
  'GET /v2/currencies': async (kind, res) => {
    const tenant = kind === 'own-admin' ? a : b;
    const stored = await currencyRepository.list(tenant.test.store.id);
    const ids = res.body.data.map((currency: { id: string }) => currency.id);
    expect(ids).toEqual(stored.map((currency) => currency.id));
    expect(ids).toContain(tenant.currencyId);
    if (kind === 'own-admin') expectNoneOf(res.raw, [b.test.store.id, b.currencyId]);
    else expectNoneOf(res.raw, aIds);
  },
  'GET /v2/currencies/{currency_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: a.currencyId, code: 'VIC', default: true });
  },
  'PUT /v2/currencies/{currency_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({
      id: aEditableCurrencyId,
      code: 'EDT',
      format: 'own-admin {price}',
    });
  },
  'DELETE /v2/currencies/{currency_id}': async () => {
    expect(await currencyRepository.get(a.test.store.id, aDisposableCurrencyId)).toBeUndefined();
  },
  'POST /v2/integrations': (kind, res) => {
    expect(res.body.data).toMatchObject({ type: 'integration', name: `created by ${kind}`, enabled: true });
    createdIntegrationIds[kind] = res.body.data.id;
    if (kind !== 'own-admin') expectNoneOf(res.raw, aIds);
  },
  'GET /v2/integrations': async (kind, res) => {
    const tenant = kind === 'own-admin' ? a : b;
    const stored = await integrationRepository.list(tenant.test.store.id);
    const ids = res.body.data.map((integration: { id: string }) => integration.id);
    expect(ids).toEqual(stored.map((integration) => integration.id));
    expect(ids).toContain(tenant.integrationId);
    if (kind === 'own-admin') expectNoneOf(res.raw, [b.test.store.id, b.integrationId]);
    else expectNoneOf(res.raw, aIds);
  },
  'GET /v2/integrations/logs': (kind, res) => {
    const tenant = kind === 'own-admin' ? a : b;
    expect(
      res.body.data.map(
        (log: { relationships: { job: { data: { id: string } } } }) => log.relationships.job.data.id,
      ),
    ).toEqual([tenant.integrationJobId]);
    if (kind === 'own-admin') expectNoneOf(res.raw, [b.test.store.id, b.integrationId, b.integrationJobId]);
    else expectNoneOf(res.raw, aIds);
  },
  'GET /v2/integrations/{integration_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: a.integrationId, name: 'victim' });
  },
  'PUT /v2/integrations/{integration_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: aEditableIntegrationId, name: 'renamed by own-admin' });
  },
  'DELETE /v2/integrations/{integration_id}': async () => {
    expect(await integrationRepository.get(a.test.store.id, aDisposableIntegrationId)).toBeUndefined();
  },
  'GET /v2/integrations/{integration_id}/logs': (_kind, res) => {
    expect(res.body.data).toEqual([
      expect.objectContaining({ type: 'integration-log', attempt: 1, body: 'ok' }),
    ]);
  },
  'GET /v2/integrations/{integration_id}/jobs': (_kind, res) => {
    expect(res.body.data).toEqual([
      expect.objectContaining({ id: a.integrationJobId, type: 'integration-job' }),
    ]);
  },
  'GET /v2/integrations/{integration_id}/jobs/{job_id}/logs': (_kind, res) => {
    expect(res.body.meta.results.total).toBe(1);
    expect(res.body.data[0].relationships.job.data.id).toBe(a.integrationJobId);
  },
  'POST /pcm/pricebooks': (kind, res) => {
    expect(res.body.data).toMatchObject({ type: 'pricebook', attributes: { name: `created by ${kind}` } });
    createdPricebookIds[kind] = res.body.data.id;
    if (kind !== 'own-admin') expectNoneOf(res.raw, aIds);
  },
  'GET /pcm/pricebooks': async (kind, res) => {
    const tenant = kind === 'own-admin' ? a : b;
    const stored = await pricebookRepository.page(tenant.test.store.id, { limit: 100, offset: 0 });
    const ids = res.body.data.map((book: { id: string }) => book.id);
    expect(ids).toEqual(stored.pricebooks.map((book) => book.id));
    expect(ids).toContain(tenant.pricebookId);
    if (kind === 'own-admin') expectNoneOf(res.raw, [b.test.store.id, b.pricebookId]);
    else expectNoneOf(res.raw, aIds);
  },
  'GET /pcm/pricebooks/{pricebook_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: a.pricebookId, attributes: { name: 'victim' } });
  },
  'PUT /pcm/pricebooks/{pricebook_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({
      id: aEditablePricebookId,
      attributes: { name: 'renamed by own-admin' },
    });
  },
  'DELETE /pcm/pricebooks/{pricebook_id}': async () => {
    expect(await pricebookRepository.get(a.test.store.id, aDisposablePricebookId)).toBeUndefined();
  },
  'POST /pcm/pricebooks/import': async (kind, res) => {
    expect(res.body.data.attributes).toMatchObject({ type: 'price-import', status: 'pending' });
    const tenant = kind === 'own-admin' ? a : b;
    expect(await jobRepository.get(tenant.test.store.id, res.body.data.id)).toBeDefined();
    if (kind !== 'own-admin') expectNoneOf(res.raw, aIds);
  },
  'GET /pcm/pricebooks/prices': (kind, res) => {
    const tenant = kind === 'own-admin' ? a : b;
    const ids = res.body.data.map((price: { id: string }) => price.id);
    expect(ids).toContain(tenant.priceId);
    if (kind === 'own-admin') expectNoneOf(res.raw, [b.test.store.id, b.pricebookId, b.priceId]);
    else expectNoneOf(res.raw, aIds);
  },
  'POST /pcm/pricebooks/{pricebook_id}/prices': (_kind, res) => {
    expect(res.body.data).toMatchObject({
      type: 'product-price',
      attributes: { sku: 'created by own-admin' },
    });
  },
  'GET /pcm/pricebooks/{pricebook_id}/prices': (_kind, res) => {
    expect(res.body.data.map((price: { id: string }) => price.id)).toContain(a.priceId);
    expectNoneOf(res.raw, [b.test.store.id, b.pricebookId, b.priceId]);
  },
  'GET /pcm/pricebooks/{pricebook_id}/prices/{price_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: a.priceId, attributes: { sku: 'victim' } });
  },
  'PUT /pcm/pricebooks/{pricebook_id}/prices/{price_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({
      id: aEditablePriceId,
      attributes: { external_ref: 'changed by own-admin' },
    });
  },
  'DELETE /pcm/pricebooks/{pricebook_id}/prices/{price_id}': async () => {
    expect(
      await priceRepository.getPrice(a.test.store.id, a.pricebookId, aDisposablePriceId),
    ).toBeUndefined();
  },
  'POST /pcm/pricebooks/{pricebook_id}/modifiers': (_kind, res) => {
    expect(res.body.data).toMatchObject({
      type: 'price-modifier',
      attributes: { name: 'created by own-admin' },
    });
  },
  'GET /pcm/pricebooks/{pricebook_id}/modifiers': (_kind, res) => {
    expect(res.body.data.map((modifier: { id: string }) => modifier.id)).toContain(a.priceModifierId);
    expectNoneOf(res.raw, [b.test.store.id, b.pricebookId, b.priceModifierId]);
  },
  'GET /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: a.priceModifierId, attributes: { name: 'victim' } });
  },
  'PUT /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({
      id: aEditablePriceModifierId,
      attributes: { external_ref: 'changed by own-admin' },
    });
  },
  'DELETE /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}': async () => {
    const gone = await priceRepository.getModifier(
      a.test.store.id,
      a.pricebookId,
      aDisposablePriceModifierId,
    );
    expect(gone).toBeUndefined();
  },
  'POST /pcm/products': (kind, res) => {
    expect(res.body.data).toMatchObject({
      type: 'product',
      attributes: { name: `created by ${kind}`, sku: 'created' },
    });
    createdProductIds[kind] = res.body.data.id;
    if (kind !== 'own-admin') expectNoneOf(res.raw, aIds);
  },
  'GET /pcm/products': async (kind, res) => {
    const ids = res.body.data.map((product: { id: string }) => product.id);
    const tenant = kind === 'own-admin' ? a : b;
    const stored = await productRepository.all(tenant.test.store.id);
    expect(ids).toEqual(stored.map((product) => product.id));
    expect(ids).toContain(tenant.productId);
    if (kind === 'own-admin') expectNoneOf(res.raw, [b.test.store.id, b.productId]);
    else expectNoneOf(res.raw, aIds);
  },
  'GET /pcm/products/{product_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({ id: a.productId, attributes: { name: 'a victim', sku: 'victim' } });
  },
  'PUT /pcm/products/{product_id}': (_kind, res) => {
    expect(res.body.data).toMatchObject({
      id: aEditableProductId,
      attributes: { name: 'renamed by own-admin', sku: 'editable' },
    });
  },
  'DELETE /pcm/products/{product_id}': async () => {
    expect(await productRepository.get(a.test.store.id, aDisposableProductId)).toBeUndefined();
    expect(await productRepository.idOfSku(a.test.store.id, 'disposable')).toBeUndefined();
  },
  'GET /pcm/products/{product_id}/relationships/component_products': (_kind, res) => {
    expect(res.body).toEqual({ data: [] });
  },
  'GET /pcm/products/{product_id}/relationships/main_image': (_kind, res) => {
    expect(res.body).toEqual({ data: [] });
  },
  'POST /pcm/products/{product_id}/relationships/main_image': async () => {
    expect((await productRepository.get(a.test.store.id, aEditableProductId))?.main_image).toBe(
      aLinkedFileId,
    );
    expect((await fileRepository.get(a.test.store.id, aLinkedFileId))?.link_count).toBe(1);
  },
  'PUT /pcm/products/{product_id}/relationships/main_image': async () => {
    expect((await productRepository.get(a.test.store.id, aEditableProductId))?.main_image).toBe(
      aLinkedFileId,
    );
  },
  'DELETE /pcm/products/{product_id}/relationships/main_image': async () => {
    expect((await productRepository.get(a.test.store.id, aEditableProductId))?.main_image).toBeUndefined();
    expect((await fileRepository.get(a.test.store.id, aLinkedFileId))?.link_count).toBe(0);
  },
  'GET /pcm/products/{product_id}/relationships/files': (_kind, res) => {
    expect(res.body).toEqual({ data: [] });
  },
  'POST /pcm/products/{product_id}/relationships/files': async () => {
    const product = await productRepository.get(a.test.store.id, aEditableProductId);
    expect(product?.files?.map((file) => file.id)).toEqual([aLinkedFileId]);
  },
  'PUT /pcm/products/{product_id}/relationships/files': async () => {
    const product = await productRepository.get(a.test.store.id, aEditableProductId);
    expect(product?.files).toEqual([{ id: aLinkedFileId, created_at: expect.any(String), tags: ['front'] }]);
  },
  'DELETE /pcm/products/{product_id}/relationships/files': async () => {
    expect((await productRepository.get(a.test.store.id, aEditableProductId))?.files).toBeUndefined();
    expect((await fileRepository.get(a.test.store.id, aLinkedFileId))?.link_count).toBe(0);
  },
  'GET /pcm/products/{product_id}/relationships/variations': (_kind, res) => {
    expect(res.body).toEqual({ data: [] });
  },
  'POST /pcm/products/{product_id}/relationships/variations': async () => {
    const product = await productRepository.get(a.test.store.id, aEditableProductId);
    expect(product?.variations?.map((link) => link.id)).toEqual([aVar.variationId]);
  },
  'PUT /pcm/products/{product_id}/relationships/variations': async () => {
    const product = await productRepository.get(a.test.store.id, aEditableProductId);
    expect(product?.variations?.map((link) => link.id)).toEqual([aVar.variationId]);
  },
  'DELETE /pcm/products/{product_id}/relationships/variations': async () => {
    const product = await productRepository.get(a.test.store.id, aEditableProductId);
    expect(product?.variations?.map((link) => link.id)).toEqual([aVar.variationId]);
  },
  'GET /pcm/products/{product_id}/children': (_kind, res) => {
    expect([res.body.data, res.body.meta.results.total]).toEqual([[], 0]);
  },
  'POST /pcm/products/{product_id}/build': async (_kind, res) => {
    expect(res.body.data).toMatchObject({
      type: 'pim-job',
      attributes: { type: 'child-products', status: 'pending' },
    });
    expect((await jobRepository.get(a.test.store.id, res.body.data.id))?.input).toEqual({
      product_id: a.productId,
    });
  },
  'POST /pcm/variations': (kind, res) => {
    expect(res.body.data).toMatchObject({
      type: 'product-variation',
      attributes: { name: `created by ${kind}` },
    });
    if (kind !== 'own-admin') expectNoneOf(res.raw, aIds);
  },
  'GET /pcm/variations': async (kind, res) => {
    const ids = res.body.data.map((variation: { id: string }) => variation.id);
    const tenant = kind === 'own-admin' ? a : b;
    const stored = await variationRepository.listVariations(tenant.test.store.id);
    expect(ids).toEqual(stored.map(({ variation }) => variation.id));
    if (kind === 'own-admin') expect(ids).toContain(aVar.variationId);
    else expectNoneOf(res.raw, [...aIds, aVar.variationId]);
  },
  'GET /pcm/variations/{variation_id}': (_kind, res) => expect(res.body.data.id).toBe(aVar.variationId),
  'PUT /pcm/variations/{variation_id}': (_kind, res) =>
    expect(res.body.data.attributes).toEqual({ name: 'renamed by own-admin' }),
  'DELETE /pcm/variations/{variation_id}': async () => {
    expect(
      await variationRepository.getVariation(a.test.store.id, aDisposableVar.variationId),
    ).toBeUndefined();
  },
  'POST /pcm/variations/{variation_id}/options': (_kind, res) =>
    expect(res.body.data.attributes.name).toBe('by-own-admin'),
  'GET /pcm/variations/{variation_id}/options': (_kind, res) =>
    expect(res.body.data.map((option: { id: string }) => option.id)).toContain(aVar.optionId),
  'GET /pcm/variations/{variation_id}/options/{option_id}': (_kind, res) =>
    expect(res.body.data.id).toBe(aVar.optionId),
  'PUT /pcm/variations/{variation_id}/options/{option_id}': (_kind, res) =>
    expect(res.body.data.attributes.description).toBe('by own-admin'),
  'DELETE /pcm/variations/{variation_id}/options/{option_id}': async () => {
    const { variationId, optionId } = aOptionVar;
    expect(await variationRepository.getOption(a.test.store.id, variationId, optionId)).toBeUndefined();
  },
  'POST /pcm/variations/{variation_id}/options/{option_id}/modifiers': (_kind, res) =>
    expect(res.body.data.attributes).toEqual({ type: 'status', value: 'live' }),
  'GET /pcm/variations/{variation_id}/options/{option_id}/modifiers': (_kind, res) =>
    expect(res.body.data.map((modifier: { id: string }) => modifier.id)).toContain(aVar.modifierId),
  'GET /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}': (_kind, res) =>
    expect(res.body.data.id).toBe(aVar.modifierId),
  'PUT /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}': (_kind, res) =>
    expect(res.body.data.attributes).toEqual({ type: 'sku_append', value: '-A' }),
  'DELETE /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}': async () => {
    const { variationId, optionId } = aVar;
    const left = await variationRepository.getModifier(
      a.test.store.id,
      variationId,
      optionId,
      aDisposableModifierId,
    );
    expect(left).toBeUndefined();
  },
  'POST /pcm/hierarchies': async (kind, res) => {
    expect(res.body.data.attributes).toMatchObject({ name: `created by ${kind}`, slug: hierarchySlug(kind) });
    const tenant = kind === 'own-admin' ? a : b;
    const stored = await hierarchyRepository.get(tenant.test.store.id, res.body.data.id);
    expect(stored?.name).toBe(`created by ${kind}`);
    if (kind !== 'own-admin') expectNoneOf(res.raw, [...aIds, aHierarchyId]);
  },
  'GET /pcm/hierarchies': async (kind, res) => {
    const ids = res.body.data.map((hierarchy: { id: string }) => hierarchy.id);
    const tenant = kind === 'own-admin' ? a : b;
    const stored = await hierarchyRepository.page(tenant.test.store.id, { limit: 25, offset: 0 });
    expect(ids).toEqual(stored.hierarchies.map((hierarchy) => hierarchy.id));
    if (kind === 'own-admin') expect(ids).toContain(aHierarchyId);
    else expectNoneOf(res.raw, [...aIds, aHierarchyId]);
  },
  'GET /pcm/hierarchies/{hierarchy_id}': (_kind, res) => expect(res.body.data.id).toBe(aHierarchyId),
  'PUT /pcm/hierarchies/{hierarchy_id}': (_kind, res) =>
    expect(res.body.data.attributes).toEqual({
      name: 'renamed by own-admin',
      description: '',
      slug: 'a-victim',
    }),
  'DELETE /pcm/hierarchies/{hierarchy_id}': async () => {
    expect(await hierarchyRepository.get(a.test.store.id, aDisposableHierarchyId)).toBeUndefined();
    expect(await hierarchyRepository.idOfSlug(a.test.store.id, 'a-disposable')).toBeUndefined();
  },
  'POST /pcm/hierarchies/{hierarchy_id}/nodes': async (_kind, res) => {
    const stored = await nodeRepository.get(a.test.store.id, aHierarchyId, res.body.data.id);
    expect(stored?.name).toBe('created by own-admin');
  },
  'GET /pcm/hierarchies/{hierarchy_id}/nodes': (_kind, res) =>
    expect(res.body.data.map((node: { id: string }) => node.id)).toContain(aNodeId),
  'GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}': (_kind, res) =>
    expect(res.body.data.id).toBe(aNodeId),
  'PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}': (_kind, res) =>
    expect(res.body.data.attributes.name).toBe('renamed by own-admin'),
  'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}': async () => {
    expect(await nodeRepository.get(a.test.store.id, aHierarchyId, aDisposableNodeId)).toBeUndefined();
  },
  'GET /pcm/hierarchies/{hierarchy_id}/children': (_kind, res) =>
    expect(res.body.data.map((node: { id: string }) => node.id)).toContain(aNodeId),
  'GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/children': (_kind, res) =>
    expect(res.body.data.map((node: { id: string }) => node.id)).toEqual([aChildNodeId]),
  'POST /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/children': (_kind, res) =>
    expect(res.body.data.id).toBe(aNodeId),
  'PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent': async () => {
    const child = await nodeRepository.get(a.test.store.id, aHierarchyId, aChildNodeId);
    expect(child?.parent_id).toBe(aNodeId);
  },
  'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent': async () => {
    const node = await nodeRepository.get(a.test.store.id, aHierarchyId, aNodeId);
    expect(node?.parent_id).toBeNull();
  },
  'POST /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products': (_kind, res) =>
    expect(res.body.data.id).toBe(aNodeId),
  'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products': (_kind, res) =>
    expect(res.body.data.id).toBe(aNodeId),
  'GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/products': (_kind, res) =>
    expectNoneOf(res.raw, [b.test.store.id, b.productId]),
  'GET /pcm/products/{product_id}/nodes': (_kind, res) => expectNoneOf(res.raw, [b.test.store.id]),
  'POST /pcm/products/import': async (kind, res) => {
    expect(res.body.data.attributes).toMatchObject({ type: 'product-import', status: 'pending' });
    const tenant = kind === 'own-admin' ? a : b;
    expect(await jobRepository.get(tenant.test.store.id, res.body.data.id)).toBeDefined();
    if (kind !== 'own-admin') expectNoneOf(res.raw, aIds);
  },
  'POST /pcm/products/import-uploads': (kind, res) => {
    const tenant = kind === 'own-admin' ? a : b;
    expect(res.body.data.upload_url).toContain(
      `uploads/imports/${tenant.test.store.id}/${res.body.data.id}.csv`,
    );
  },
  'GET /pcm/jobs': async (kind, res) => {
    const ids = res.body.data.map((job: { id: string }) => job.id);
    if (kind === 'own-admin') expect(ids).toEqual(expect.arrayContaining([aJobId, aCancellableJobId]));
    else expectNoneOf(res.raw, aIds);
  },
  'GET /pcm/jobs/{job_id}': (_kind, res) =>
    expect(res.body.data).toMatchObject({ id: aJobId, attributes: { status: 'pending' } }),
  'GET /pcm/jobs/{job_id}/errors': (_kind, res) => expect(res.body.data).toEqual([]),
  'POST /pcm/jobs/{job_id}/cancel': (_kind, res) =>
    expect(res.body.data).toMatchObject({ id: aCancellableJobId, attributes: { status: 'cancelled' } }),
};

// ---------------------------------------------------------------------------------------------------
// The matrix
// ---------------------------------------------------------------------------------------------------

const routeKey = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

describe('the expectation table', () => {
  it('has exactly one row per route of the route table', () => {
    const routes = ROUTES.map(routeKey).sort();
    expect(Object.keys(EXPECTED).sort()).toEqual(routes);
    expect(Object.keys(REQUESTS).sort()).toEqual(routes);
    expect(Object.keys(SUCCESS_CHECKS).sort()).toEqual(routes);
    for (const row of Object.values(EXPECTED)) expect(Object.keys(row).sort()).toEqual([...KINDS].sort());
  });
});

// Routes in table order, callers in KINDS order (own-admin last, so refused writes run before it).
const CELLS = ROUTES.flatMap((route) => KINDS.map((kind) => [routeKey(route), kind, route] as const));

describe('isolation matrix', () => {
  // Each cell resolves its token from the table, as a fresh container would, whatever ran before it.
  beforeEach(() => clearAuthCache());

  test.each(CELLS)('%s as %s', async (key, kind, route) => {
    const expected = EXPECTED[key]?.[kind];
    const request = REQUESTS[key];
    if (expected === undefined || request === undefined) throw new Error(`no expectation for ${key}`);
    const res = await send(route.method, route.path, request(kind), tokens[kind]);
    expect(res.status).toBe(expected);
    if (expected === 401) {
      expectErrorBody(res, 401, 'Unable to validate access token');
    } else if (expected === 403) {
      expectErrorBody(res, 403);
    } else if (expected === 404) {
      expectErrorBody(res, 404, notFoundDetail(route.path));
    } else if (expected === 422) {
      // A rule naming another store's catalog: to this store it does not exist.
      expect(res.body.errors).toEqual([
        expect.objectContaining({
          status: '422',
          detail: 'must be the id of a catalog of the store',
          source: 'data.attributes.catalog_id',
        }),
      ]);
    } else {
      expect(expected).toBeLessThan(300);
      await SUCCESS_CHECKS[key]?.(kind, res);
    }
    if (expected >= 400) expectNoneOf(res.raw, aIds);
  });
});

// ---------------------------------------------------------------------------------------------------
// The other store's ids, with A's admin token: always 404, exactly like an unknown id
// ---------------------------------------------------------------------------------------------------

describe("another store's ids with A's admin token", () => {
  const bNode = () => ({ hierarchy_id: b.hierarchyId, node_id: b.nodeId });
  const unknownNode = () => ({ hierarchy_id: randomUUID(), node_id: randomUUID() });
  const cases: [string, string, (target: 'b' | 'unknown') => CellRequest][] = [
    [
      'GET',
      '/v2/application-keys/{id}',
      (t) => ({ params: { id: t === 'b' ? b.victimKeyId : randomUUID() } }),
    ],
    [
      'PUT',
      '/v2/application-keys/{id}',
      (t) => ({
        params: { id: t === 'b' ? b.victimKeyId : randomUUID() },
        body: { data: { type: 'application_key', name: 'renamed by A', reserved_rate_limit: 3 } },
      }),
    ],
    [
      'DELETE',
      '/v2/application-keys/{id}',
      (t) => ({ params: { id: t === 'b' ? b.victimKeyId : randomUUID() } }),
    ],
    ['GET', '/v2/files/{file_id}', (t) => ({ params: { file_id: t === 'b' ? b.fileId : randomUUID() } })],
    [
      'GET',
      '/v2/currencies/{currency_id}',
      (t) => ({ params: { currency_id: t === 'b' ? b.currencyId : randomUUID() } }),
    ],
    [
      'PUT',
      '/v2/currencies/{currency_id}',
      (t) => ({
        params: { currency_id: t === 'b' ? b.currencyId : randomUUID() },
        body: { data: { type: 'currency', format: 'changed by A {price}' } },
      }),
    ],
    [
      'GET',
      '/pcm/pricebooks/{pricebook_id}',
      (t) => ({ params: { pricebook_id: t === 'b' ? b.pricebookId : randomUUID() } }),
    ],
    [
      'PUT',
      '/pcm/pricebooks/{pricebook_id}',
      (t) => ({
        params: { pricebook_id: t === 'b' ? b.pricebookId : randomUUID() },
        body: { data: { type: 'pricebook', attributes: { name: 'renamed by A' } } },
      }),
    ],
    [
      'DELETE',
      '/pcm/pricebooks/{pricebook_id}',
      (t) => ({ params: { pricebook_id: t === 'b' ? b.pricebookId : randomUUID() } }),
    ],
    [
      'DELETE',
      '/v2/currencies/{currency_id}',
      (t) => ({ params: { currency_id: t === 'b' ? b.currencyId : randomUUID() } }),
    ],
    ['DELETE', '/v2/files/{file_id}', (t) => ({ params: { file_id: t === 'b' ? b.fileId : randomUUID() } })],
    [
      'GET',
      '/v2/merchant-realm-mappings/{mapping_id}',
      (t) => ({ params: { mapping_id: t === 'b' ? b.mappingId : randomUUID() } }),
    ],
    [
      'PUT',
      '/v2/merchant-realm-mappings/{mapping_id}',
      (t) => ({
        params: { mapping_id: t === 'b' ? b.mappingId : randomUUID() },
        body: { data: { type: 'merchant-realm-mappings', prefix: prefixFor('a-on-b') } },
      }),
    ],
    [
      'GET',
      '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}',
      (t) => ({ params: t === 'b' ? bNode() : unknownNode() }),
    ],
    [
      'PUT',
      '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}',
      (t) => {
        const params = t === 'b' ? bNode() : unknownNode();
        return {
          params,
          body: { data: { type: 'node', id: params.node_id, attributes: { name: 'renamed by A' } } },
        };
      },
    ],
    [
      'DELETE',
      '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}',
      (t) => ({ params: t === 'b' ? bNode() : unknownNode() }),
    ],
    [
      'PUT',
      '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent',
      (t) => {
        const params = t === 'b' ? bNode() : unknownNode();
        return { params, body: { data: { type: 'node', id: params.node_id } } };
      },
    ],
    [
      'POST',
      '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products',
      (t) => ({
        params: t === 'b' ? bNode() : unknownNode(),
        body: { data: [{ type: 'product', id: a.productId }] },
      }),
    ],
    [
      'GET',
      '/pcm/products/{product_id}/nodes',
      (t) => ({ params: { product_id: t === 'b' ? b.productId : randomUUID() } }),
    ],
  ];

  test.each(cases)(
    "%s %s with B's id is 404, the same answer as an unknown id",
    async (method, path, build) => {
      const auth = tokens['own-admin'];
      const other = await send(method, path, build('b'), auth);
      const unknown = await send(method, path, build('unknown'), auth);
      expect(other.status).toBe(404);
      expectErrorBody(other, 404, notFoundDetail(path));
      expect(unknown.status).toBe(404);
      const withoutRequestId = (res: InvokeResult) =>
        res.body.errors.map(({ request_id: _id, ...rest }: Record<string, unknown>) => rest);
      expect(withoutRequestId(other)).toEqual(withoutRequestId(unknown));
      // The remaining allowance moves with every request of the caller; it says nothing about other stores.
      const { 'X-RateLimit-Remaining': _o, ...otherHeaders } = other.headers;
      const { 'X-RateLimit-Remaining': _u, ...unknownHeaders } = unknown.headers;
      expect(otherHeaders).toEqual(unknownHeaders);
      expectNoneOf(other.raw, [
        b.test.store.id,
        b.victimKeyId,
        b.mappingId,
        b.realmId,
        b.initialPrefix,
        b.fileId,
        b.currencyId,
        b.pricebookId,
      ]);
    },
  );

  test.each([
    ['GET', undefined],
    ['PUT', { name: 'renamed by A' }],
    ['DELETE', undefined],
  ] as const)(
    "%s /pcm/products/{product_id} with B's product id is 404, the same answer as an unknown id",
    async (method, attributes) => {
      const request = (id: string): CellRequest => ({
        params: { product_id: id },
        ...(attributes === undefined ? {} : { body: { data: { type: 'product', id, attributes } } }),
      });
      const auth = tokens['own-admin'];
      const other = await send(method, '/pcm/products/{product_id}', request(b.productId), auth);
      const unknown = await send(method, '/pcm/products/{product_id}', request(randomUUID()), auth);
      expect(other.status).toBe(404);
      expectErrorBody(other, 404, 'product not found');
      expect(unknown.status).toBe(404);
      expect(unknown.body.errors[0].detail).toBe(other.body.errors[0].detail);
      expectNoneOf(other.raw, [b.test.store.id, b.productId]);
      expect((await productRepository.get(b.test.store.id, b.productId))?.attributes.name).toBe('b victim');
    },
  );

  test.each(
    ROUTES.filter((route) => /relationships\/(main_image|files)$/.test(route.path)).map((route) => [
      route.method,
      route.path,
    ]),
  )("%s %s with B's product id is 404, the same answer as an unknown id", async (method, path) => {
    const request = (id: string): CellRequest => ({
      params: { product_id: id },
      ...(method === 'GET'
        ? {}
        : {
            body: path.endsWith('main_image')
              ? { data: { type: 'file', id: b.fileId } }
              : { data: [{ type: 'file', id: b.fileId }] },
          }),
    });
    const auth = tokens['own-admin'];
    const other = await send(method, path, request(b.productId), auth);
    const unknown = await send(method, path, request(randomUUID()), auth);
    expect(other.status).toBe(404);
    expectErrorBody(other, 404, 'product not found');
    expect(unknown.status).toBe(404);
    expectNoneOf(other.raw, [b.test.store.id, b.productId, b.fileId]);
    const product = await productRepository.get(b.test.store.id, b.productId);
    expect([product?.main_image, product?.files]).toEqual([undefined, undefined]);
  });

  it("refuses A's client id with B's client secret at the token endpoint, like a wrong secret", async () => {
    const exchange = (clientSecret: string) =>
      send(
        'POST',
        '/oauth/access_token',
        {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: a.test.clientId,
            client_secret: clientSecret,
          }).toString(),
        },
        tokens['own-admin'],
      );
    const crossed = await exchange(b.test.clientSecret);
    const wrong = await exchange(`${a.test.clientSecret}x`);
    expect(crossed.status).toBe(401);
    expectErrorBody(crossed, 401, 'Invalid client credentials');
    expect(wrong.status).toBe(401);
    expect(crossed.body.errors[0].detail).toBe(wrong.body.errors[0].detail);
  });

  it("issues an implicit token of the client id's store whatever bearer token comes along", async () => {
    const res = await send(
      'POST',
      '/oauth/access_token',
      { body: { grant_type: 'implicit', client_id: a.test.clientId } },
      tokens['other-admin'],
    );
    expect(res.status).toBe(200);
    expect(res.body.identifier).toBe('implicit');
    expect(parseAccessToken(res.body.access_token)?.storeId).toBe(a.test.store.id);
  });
});

// ---------------------------------------------------------------------------------------------------
// Refused cells changed nothing
// ---------------------------------------------------------------------------------------------------

describe('after the matrix', () => {
  const refusedKinds = KINDS.filter((kind) => kind !== 'own-admin');

  it("left A's victim key exactly as it was, credentials included", async () => {
    expect(await applicationKeyRepository.get(a.test.store.id, a.victimKeyId, true)).toEqual(aVictimBefore);
    const victim = aVictimBefore as { client_id: string };
    expect(await applicationKeyRepository.findClient(victim.client_id)).toMatchObject({
      store_id: a.test.store.id,
      key_id: a.victimKeyId,
    });
  });

  it("holds exactly A's expected keys, and A's counters moved only by the own-admin cells", async () => {
    const page = await applicationKeyRepository.list(a.test.store.id, { limit: 100, offset: 0 });
    const ownCreated = createdKeyIds['own-admin'];
    expect(page.keys.map((key) => key.id)).toEqual([a.test.keyId, a.victimKeyId, aEditableKeyId, ownCreated]);
    expect(page.keys.map((key) => key.name)).toEqual([
      'First key',
      'a victim',
      'renamed by own-admin',
      'created by own-admin',
    ]);
    // Own admin: +1 key reserving 1, editable 0 -> 2, disposable (4) deleted.
    expect(page.total).toBe(aStoreBefore.key_count);
    expect(page.reservedRateLimitTotal).toBe(aStoreBefore.reserved_rate_limit_total + 1 + 2 - 4);
    expect(page.reservedRateLimitTotal).toBe(
      page.keys.reduce((sum, key) => sum + key.reserved_rate_limit, 0),
    );
  });

  it("put B's admin-created key in B's store, not in A's", async () => {
    const bCreated = createdKeyIds['other-admin'];
    expect(bCreated).toBeDefined();
    expect(await applicationKeyRepository.get(a.test.store.id, bCreated ?? '', true)).toBeUndefined();
    expect(await applicationKeyRepository.get(b.test.store.id, bCreated ?? '', true)).toMatchObject({
      store_id: b.test.store.id,
      name: 'created by other-admin',
    });
  });

  it("changed A's mapping only by the own-admin cell, and reserved no refused cell's prefix", async () => {
    const mapping = await mappingRepository.get(a.mappingId);
    expect(mapping).toMatchObject({ prefix: prefixFor('own-admin'), version: 2, store_id: a.test.store.id });
    expect(await mappingRepository.getReservation(prefixFor('own-admin'))).toMatchObject({
      mapping_id: a.mappingId,
    });
    expect(await mappingRepository.getReservation(a.initialPrefix)).toBeUndefined();
    for (const kind of refusedKinds) {
      expect(await mappingRepository.getReservation(prefixFor(kind))).toBeUndefined();
    }
  });

  it("left A's victim catalog and its release exactly as they were", async () => {
    const storeId = a.test.store.id;
    expect(await pcmRepository.getCatalog(storeId, a.catalogId)).toEqual(aCatalogBefore);
    expect(await pcmRepository.getRelease(storeId, a.catalogId, a.releaseId)).toEqual(aReleaseBefore);
    const releases = await catalogRepository.listReleases(storeId, a.catalogId);
    expect(releases.map((release) => release.release_id)).toEqual([a.releaseId]);
  });

  it("holds exactly A's expected catalogs: no refused cell created or deleted one", async () => {
    const catalogs = await pcmRepository.listCatalogs(a.test.store.id);
    expect(catalogs.map((catalog) => catalog.name)).toEqual([
      'a shoppers',
      'a victim',
      'renamed by own-admin',
      'a releasing',
      'a with a disposable release',
      'a prunable',
      'created by own-admin',
    ]);
  });

  it("left A's victim file as it was, and holds exactly A's expected files", async () => {
    expect(await fileRepository.get(a.test.store.id, a.fileId)).toEqual(aFileBefore);
    const files = await fileRepository.all(a.test.store.id);
    expect(files.map((file) => file.id)).toEqual([a.fileId, aLinkedFileId, createdFileIds['own-admin']]);
    expect(await fileRepository.count(a.test.store.id)).toBe(3);
  });

  it("left A's victim currency as it was, and holds exactly A's expected currencies", async () => {
    const currencies = await currencyRepository.list(a.test.store.id);
    expect(currencies.map((currency) => currency.code)).toEqual(['VIC', 'EDT', 'NEW']);
    const victim = (aCurrenciesBefore as typeof currencies).find((currency) => currency.id === a.currencyId);
    expect(currencies[0]).toEqual(victim);
    expect(currencies[2]?.id).toBe(createdCurrencyIds['own-admin']);
  });

  it("put B's admin-created currency in B's store, and left B's currency after A's token aimed at it", async () => {
    const currencies = await currencyRepository.list(b.test.store.id);
    expect(currencies.map((currency) => [currency.id, currency.format, currency.default])).toEqual([
      [b.currencyId, 'VIC {price}', true],
      [createdCurrencyIds['other-admin'], '{price} new', false],
    ]);
  });

  it("left A's victim integration as it was, and holds exactly A's expected integrations", async () => {
    expect(await integrationRepository.get(a.test.store.id, a.integrationId)).toEqual(aIntegrationBefore);
    const integrations = await integrationRepository.list(a.test.store.id);
    expect(integrations.map((integration) => [integration.id, integration.name])).toEqual([
      [a.integrationId, 'victim'],
      [aEditableIntegrationId, 'renamed by own-admin'],
      [createdIntegrationIds['own-admin'], 'created by own-admin'],
    ]);
    const bIntegrations = await integrationRepository.list(b.test.store.id);
    expect(bIntegrations.map((integration) => [integration.id, integration.name])).toEqual([
      [b.integrationId, 'victim'],
      [createdIntegrationIds['other-admin'], 'created by other-admin'],
    ]);
  });

  it("left A's victim catalog rule as it was, and holds exactly A's expected rules", async () => {
    const rules = await listCatalogRules(a.test.store.id);
    expect(rules.find((rule) => rule.id === a.ruleId)).toEqual(aRulesBefore);
    expect(rules.map((rule) => rule.name)).toEqual(['victim', 'renamed-by-own-admin', 'by-own-admin']);
    expect((await listCatalogRules(b.test.store.id)).map((rule) => rule.name)).toEqual(['victim']);
  });

  it("left A's victim price book as it was, and holds exactly A's expected price books", async () => {
    const storeId = a.test.store.id;
    expect(await pricebookRepository.get(storeId, a.pricebookId)).toEqual(aPricebookBefore);
    const { pricebooks, total } = await pricebookRepository.page(storeId, { limit: 100, offset: 0 });
    expect(pricebooks.map((book) => book.name)).toEqual([
      'victim',
      'renamed by own-admin',
      'created by own-admin',
    ]);
    expect(total).toBe(3);
    const { pricebooks: bBooks } = await pricebookRepository.page(b.test.store.id, { limit: 100, offset: 0 });
    expect(bBooks.map((book) => [book.id, book.name])).toEqual([
      [b.pricebookId, 'victim'],
      [createdPricebookIds['other-admin'], 'created by other-admin'],
    ]);
  });

  it("left A's victim price and modifier as they were, and A's book holds exactly its expected ones", async () => {
    const storeId = a.test.store.id;
    expect(await priceRepository.getPrice(storeId, a.pricebookId, a.priceId)).toEqual(aPriceBefore);
    expect(await priceRepository.getModifier(storeId, a.pricebookId, a.priceModifierId)).toEqual(
      aPriceModifierBefore,
    );
    const { prices } = await priceRepository.pricePage(storeId, a.pricebookId, { limit: 100, offset: 0 });
    expect(prices.map((price) => price.sku)).toEqual(['victim', 'editable', 'created by own-admin']);
    const { modifiers } = await priceRepository.modifierPage(storeId, a.pricebookId, {
      limit: 100,
      offset: 0,
    });
    expect(modifiers.map((modifier) => modifier.name)).toEqual([
      'victim',
      'editable',
      'created by own-admin',
    ]);
    const bPrices = await priceRepository.pricePage(b.test.store.id, b.pricebookId, {
      limit: 100,
      offset: 0,
    });
    expect(bPrices.prices.map((price) => price.id)).toEqual([b.priceId]);
  });

  it("put B's admin-created file in B's store and left B's file after A's token aimed at it", async () => {
    const bCreated = createdFileIds['other-admin'] ?? '';
    expect(await fileRepository.get(a.test.store.id, bCreated)).toBeUndefined();
    const files = await fileRepository.all(b.test.store.id);
    expect(files.map((file) => file.id)).toEqual([b.fileId, bCreated]);
  });

  it("left A's victim product exactly as it was, and A holds exactly its expected products", async () => {
    const storeId = a.test.store.id;
    expect(await productRepository.get(storeId, a.productId)).toEqual(aProductBefore);
    expect(await jobRepository.get(storeId, aJobId)).toEqual(aJobBefore);
    const products = await productRepository.all(storeId);
    expect(products.map((product) => product.attributes.name)).toEqual([
      'a victim',
      'renamed by own-admin',
      'created by own-admin',
    ]);
    expect(await productRepository.idOfSku(storeId, 'created')).toBe(createdProductIds['own-admin']);
  });

  it("put B's admin-created product in B's store (its sku claimed there), not in A's", async () => {
    const bCreated = createdProductIds['other-admin'];
    expect(bCreated).toBeDefined();
    expect(await productRepository.get(a.test.store.id, bCreated ?? '')).toBeUndefined();
    expect(await productRepository.idOfSku(b.test.store.id, 'created')).toBe(bCreated);
  });

  it("put B's admin-created catalog in B's store, not in A's", async () => {
    const bCreated = createdCatalogIds['other-admin'];
    expect(bCreated).toBeDefined();
    expect(await pcmRepository.getCatalog(a.test.store.id, bCreated ?? '')).toBeUndefined();
    expect(await pcmRepository.getCatalog(b.test.store.id, bCreated ?? '')).toMatchObject({
      name: 'created by other-admin',
    });
  });

  it("left B's victim key, keys and mapping as they were after A's admin token aimed at them", async () => {
    expect(await applicationKeyRepository.get(b.test.store.id, b.victimKeyId, true)).toEqual(bVictimBefore);
    const page = await applicationKeyRepository.list(b.test.store.id, { limit: 100, offset: 0 });
    expect(page.keys.map((key) => key.id)).toEqual([
      b.test.keyId,
      b.victimKeyId,
      createdKeyIds['other-admin'],
    ]);
    expect(page.total).toBe(3);
    expect(page.reservedRateLimitTotal).toBe(5 + 1);
    expect(await mappingRepository.get(b.mappingId)).toMatchObject({ prefix: b.initialPrefix, version: 1 });
    expect(await mappingRepository.getReservation(prefixFor('a-on-b'))).toBeUndefined();
  });
});
