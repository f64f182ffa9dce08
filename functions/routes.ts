import type { AuthRequirement } from '../lib/auth/middleware';
import { type CorsConfiguration, corsConfiguration } from '../lib/http/cors';
import type { BodyKind } from '../lib/http/middleware';
import type { TableRole } from '../lib/store/schema';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type TableAccess = 'read' | 'readwrite';

export interface RouteDefinition {
  method: HttpMethod;
  /** API Gateway route path, with `{param}` placeholders. */
  path: string;
  /** The operation: `functions/<function>/handler.ts`, one Lambda function each. */
  function: FunctionName;
}

export interface FunctionDefinition {
  /** Who may call it: the middleware enforces this and the OpenAPI document publishes it. */
  auth: AuthRequirement;
  /** Which request bodies it parses (absent: none). */
  body?: BodyKind;
  /**
   * Least privilege: the tables the function touches and how. Every function writes to `limits`: the rate
   * limiter's shared windows (docs/rate-limits.md), kept apart so read-only functions stay read-only on the
   * data tables.
   */
  tables: Partial<Record<TableRole, TableAccess>>;
  /**
   * What it does with the documents bucket (release documents and their uploads), if anything: `link-deltas`
   * signs links to releases' delta files (and reads nothing), `delete-deltas` deletes them with their
   * releases (and touches nothing else); BUCKET_ACTIONS in infra/publishing.ts.
   */
  bucket?: 'read' | 'readwrite' | 'link-deltas' | 'delete-deltas';
  /** `start`: it starts the publishing workflow (functions/workflow.ts). */
  workflow?: 'start';
  /** `enqueue`: it starts jobs (`enqueueJob` in lib/jobs/service.ts): it may send to the jobs queue. */
  jobs?: 'enqueue';
  /**
   * `emit`: it emits webhook events (`emitIntegrationEvent` in lib/integrations/events.ts): it may send to the
   * deliveries queue.
   */
  integrations?: 'emit';
  description: string;
}

/**
 * True when the function writes a data table: its handler then runs its writes as the caller
 * (`asWriteCaller` in `lib/http/write-caller.ts`), whose transactions check the caller's token and key,
 * so a deleted key's token cannot write at all (a unit test holds every such handler to it). The rate
 * limiter's `limits` table, which every function writes, does not count: it holds no data a revoked key
 * could change.
 */
export function writesTables(definition: { tables?: FunctionDefinition['tables'] }): boolean {
  return Object.entries(definition.tables ?? {}).some(
    ([role, access]) => role !== 'limits' && access === 'readwrite',
  );
}

/**
 * The single route table: the CDK stack creates one Lambda per function and one API route per entry,
 * and the local server routes requests with the same entries, so local routes equal deployed ones.
 */
export const FUNCTIONS = {
  'create-access-token': {
    auth: 'none',
    body: 'json-or-form',
    tables: { keys: 'readwrite', limits: 'readwrite' },
    description: 'POST /oauth/access_token: issues bearer tokens from application keys',
  },
  'list-application-keys': {
    auth: 'admin',
    tables: { keys: 'read', limits: 'readwrite' },
    description: "GET /v2/application-keys: a page of the store's application keys with totals",
  },
  'create-application-key': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'readwrite', limits: 'readwrite' },
    description: 'POST /v2/application-keys: creates an application key (secret shown once)',
  },
  'get-application-key': {
    auth: 'admin',
    tables: { keys: 'read', limits: 'readwrite' },
    description: 'GET /v2/application-keys/{id}: one application key of the store',
  },
  'update-application-key': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'readwrite', limits: 'readwrite' },
    description: 'PUT /v2/application-keys/{id}: renames a key or changes its reserved rate limit',
  },
  'delete-application-key': {
    auth: 'admin',
    tables: { keys: 'readwrite', limits: 'readwrite' },
    description: 'DELETE /v2/application-keys/{id}: deletes a key, revoking its credentials and tokens',
  },
  'get-merchant-realm-mapping': {
    auth: 'admin',
    // keys: read resolves the bearer token; mappings: read serves the mapping.
    tables: { keys: 'read', mappings: 'read', limits: 'readwrite' },
    description: "GET /v2/merchant-realm-mappings[/{mapping_id}]: the store's merchant realm mapping",
  },
  'update-merchant-realm-mapping': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', mappings: 'readwrite', limits: 'readwrite' },
    description: "PUT /v2/merchant-realm-mappings/{mapping_id}: sets the store's unique prefix",
  },
  'list-child-products': {
    auth: 'any',
    // keys: read resolves the bearer token; products: read serves the catalog.
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /catalog/products/{product_id}/relationships/children: live children of a base product',
  },
  'get-catalog': {
    auth: 'any',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    bucket: 'link-deltas',
    description: 'GET /catalog: the catalog release the shopper context selects',
  },
  'get-catalog-product': {
    auth: 'any',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /catalog/products/{product_id}: one live product of the selected release',
  },
  'list-catalog-products': {
    auth: 'any',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /catalog/products: live products of the selected release, filtered and paginated',
  },
  'list-nodes': {
    auth: 'any',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /catalog/nodes: the nodes of the selected catalog, or those `filter=in(id,...)` names',
  },
  'get-node': {
    auth: 'any',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /catalog/nodes/{node_id}: one node of the selected catalog',
  },
  'list-node-children': {
    auth: 'any',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /catalog/nodes/{node_id}/relationships/children: the direct children of a node',
  },
  'list-node-products': {
    auth: 'any',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /catalog/nodes/{node_id}/relationships/products: the live products in a node',
  },
  'list-hierarchies': {
    auth: 'any',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /catalog/hierarchies: the hierarchies (root nodes) of the selected catalog',
  },
  'get-hierarchy': {
    auth: 'any',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /catalog/hierarchies/{hierarchy_id}: one hierarchy of the selected catalog',
  },
  'list-hierarchy-children': {
    auth: 'any',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /catalog/hierarchies/{hierarchy_id}/children: the direct children of a hierarchy',
  },
  'list-hierarchy-nodes': {
    auth: 'any',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /catalog/hierarchies/{hierarchy_id}/nodes: every node below a hierarchy',
  },
  'list-hierarchy-products': {
    auth: 'any',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description:
      'GET /catalog/hierarchies/{hierarchy_id}/products: the live products in any node of a hierarchy',
  },
  'pcm-create-catalog': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'POST /pcm/catalogs: creates a catalog (its content comes from a release document)',
  },
  'pcm-list-catalogs': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/catalogs: the store's catalogs",
  },
  'pcm-get-catalog': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /pcm/catalogs/{catalog_id}: one catalog of the store',
  },
  'pcm-update-catalog': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      "PUT /pcm/catalogs/{catalog_id}: changes a catalog's name, description, hierarchies or price book",
  },
  'pcm-delete-catalog': {
    auth: 'admin',
    // readwrite: the catalog's documents and uploads are deleted with it.
    bucket: 'readwrite',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'DELETE /pcm/catalogs/{catalog_id}: deletes a catalog that has no releases, and its documents',
  },
  'pcm-create-catalog-rule': {
    auth: 'admin',
    body: 'json',
    integrations: 'emit',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'POST /pcm/catalogs/rules: creates a catalog rule (which catalog which shoppers get)',
  },
  'pcm-list-catalog-rules': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/catalogs/rules: the store's catalog rules, paginated, filter=in(id,...)",
  },
  'pcm-get-catalog-rule': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /pcm/catalogs/rules/{catalog_rule_id}: one catalog rule of the store',
  },
  'pcm-update-catalog-rule': {
    auth: 'admin',
    body: 'json',
    integrations: 'emit',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: "PUT /pcm/catalogs/rules/{catalog_rule_id}: changes the rule's attributes that are sent",
  },
  'pcm-delete-catalog-rule': {
    auth: 'admin',
    integrations: 'emit',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'DELETE /pcm/catalogs/rules/{catalog_rule_id}: deletes a catalog rule',
  },
  'pcm-put-catalog-document': {
    auth: 'admin',
    body: 'document',
    bucket: 'readwrite',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      "PUT /pcm/catalogs/{catalog_id}/document: stores the catalog's release document (up to 5 MB)",
  },
  'pcm-create-document-upload': {
    auth: 'admin',
    bucket: 'readwrite',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'POST /pcm/catalogs/{catalog_id}/document-uploads: a pre-signed URL to upload a larger document to S3',
  },
  'pcm-create-variation': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'POST /pcm/variations: creates a variation',
  },
  'pcm-list-variations': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/variations: the store's variations with their options",
  },
  'pcm-get-variation': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /pcm/variations/{variation_id}: one variation with its options',
  },
  'pcm-update-variation': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: "PUT /pcm/variations/{variation_id}: changes a variation's name or sort order",
  },
  'pcm-delete-variation': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'DELETE /pcm/variations/{variation_id}: deletes a variation, its options and their modifiers',
  },
  'pcm-create-variation-option': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'POST /pcm/variations/{variation_id}/options: adds an option to a variation',
  },
  'pcm-list-variation-options': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/variations/{variation_id}/options: a variation's options",
  },
  'pcm-get-variation-option': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /pcm/variations/{variation_id}/options/{option_id}: one option with its modifiers',
  },
  'pcm-update-variation-option': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      "PUT /pcm/variations/{variation_id}/options/{option_id}: changes an option's name, description or sort order",
  },
  'pcm-delete-variation-option': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'DELETE /pcm/variations/{variation_id}/options/{option_id}: deletes an option and its modifiers',
  },
  'pcm-create-option-modifier': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'POST /pcm/variations/{variation_id}/options/{option_id}/modifiers: adds a modifier to an option',
  },
  'pcm-list-option-modifiers': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/variations/{variation_id}/options/{option_id}/modifiers: an option's modifiers",
  },
  'pcm-get-option-modifier': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description:
      'GET /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}: one modifier',
  },
  'pcm-update-option-modifier': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      "PUT /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}: replaces a modifier's definition",
  },
  'pcm-delete-option-modifier': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'DELETE /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}: deletes a modifier',
  },
  'pcm-create-release': {
    auth: 'admin',
    body: 'json',
    // readwrite: a pending upload becomes the catalog's document (copied out of uploads/) first.
    bucket: 'readwrite',
    workflow: 'start',
    integrations: 'emit',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      "POST /pcm/catalogs/{catalog_id}/releases: publishes the catalog's document (201 PENDING at once)",
  },
  'pcm-list-releases': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    bucket: 'link-deltas',
    description: "GET /pcm/catalogs/{catalog_id}/releases: the catalog's releases, newest first",
  },
  'pcm-get-release': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    bucket: 'link-deltas',
    description: 'GET /pcm/catalogs/{catalog_id}/releases/{release_id}: one release (or latestPublished)',
  },
  'pcm-delete-release': {
    auth: 'admin',
    integrations: 'emit',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    // The releases it reclaims go with their delta files.
    bucket: 'delete-deltas',
    description:
      'DELETE /pcm/catalogs/{catalog_id}/releases/{release_id}: deletes a release (the current: rolls back)',
  },
  'pcm-delete-releases': {
    auth: 'admin',
    integrations: 'emit',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    // The releases it reclaims go with their delta files.
    bucket: 'delete-deltas',
    description:
      'DELETE /pcm/catalogs/{catalog_id}/releases: deletes every release, unpublishing the catalog',
  },
  'create-file': {
    auth: 'admin',
    body: 'json-or-multipart',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'POST /v2/files: records a file hosted elsewhere from its file_location (never fetched)',
  },
  'list-files': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /v2/files: a page of the store's files with totals, filtered on id, file_name, public",
  },
  'get-file': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /v2/files/{file_id}: one file of the store',
  },
  'delete-file': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'DELETE /v2/files/{file_id}: deletes a file of the store',
  },
  'create-currency': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'POST /v2/currencies: adds a currency (at most 10 a store, codes unique, the first the default)',
  },
  'list-currencies': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /v2/currencies: the store's currencies, paginated",
  },
  'get-currency': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /v2/currencies/{currency_id}: one currency of the store',
  },
  'update-currency': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'PUT /v2/currencies/{currency_id}: changes the fields sent; default: true makes it the default',
  },
  'delete-currency': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'DELETE /v2/currencies/{currency_id}: deletes a currency that is not the default',
  },
  'create-integration': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'POST /v2/integrations: creates a webhook integration (at most 25 a store; its URL must resolve to public addresses)',
  },
  'list-integrations': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /v2/integrations: the store's integrations, paginated",
  },
  'get-integration': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /v2/integrations/{integration_id}: one integration of the store',
  },
  'update-integration': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'PUT /v2/integrations/{integration_id}: changes the fields sent',
  },
  'delete-integration': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'DELETE /v2/integrations/{integration_id}: deletes an integration',
  },
  'list-all-integration-logs': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /v2/integrations/logs: the delivery attempts of the store's integrations, newest first",
  },
  'list-integration-logs': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description:
      "GET /v2/integrations/{integration_id}/logs: an integration's delivery attempts, newest first",
  },
  'list-integration-jobs': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /v2/integrations/{integration_id}/jobs: an integration's deliveries, one per event",
  },
  'get-integration-job-logs': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /v2/integrations/{integration_id}/jobs/{job_id}/logs: the attempts of one delivery',
  },
  'pcm-create-pricebook': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'POST /pcm/pricebooks: creates a price book (its name unique in the store)',
  },
  'pcm-list-pricebooks': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/pricebooks: the store's price books, paginated",
  },
  'pcm-get-pricebook': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /pcm/pricebooks/{pricebook_id}: one price book of the store',
  },
  'pcm-update-pricebook': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: "PUT /pcm/pricebooks/{pricebook_id}: changes the price book's attributes that are sent",
  },
  'pcm-delete-pricebook': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'DELETE /pcm/pricebooks/{pricebook_id}: deletes a price book, freeing its name',
  },
  'pcm-list-all-prices': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description:
      'GET /pcm/pricebooks/prices: the prices of every price book of the store, filtered and paginated',
  },
  'pcm-create-price': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'POST /pcm/pricebooks/{pricebook_id}/prices: creates a price (one per sku in the book)',
  },
  'pcm-list-prices': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/pricebooks/{pricebook_id}/prices: a price book's prices, filtered and paginated",
  },
  'pcm-get-price': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /pcm/pricebooks/{pricebook_id}/prices/{price_id}: one price of a price book',
  },
  'pcm-update-price': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      "PUT /pcm/pricebooks/{pricebook_id}/prices/{price_id}: changes the price's attributes that are sent",
  },
  'pcm-delete-price': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'DELETE /pcm/pricebooks/{pricebook_id}/prices/{price_id}: deletes a price, freeing its sku',
  },
  'pcm-create-price-modifier': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'POST /pcm/pricebooks/{pricebook_id}/modifiers: creates a price modifier (its name unique in the book)',
  },
  'pcm-list-price-modifiers': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description:
      "GET /pcm/pricebooks/{pricebook_id}/modifiers: a price book's price modifiers, filtered and paginated",
  },
  'pcm-get-price-modifier': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description:
      'GET /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}: one price modifier of a price book',
  },
  'pcm-update-price-modifier': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      "PUT /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}: changes the modifier's attributes that are sent",
  },
  'pcm-delete-price-modifier': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'DELETE /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}: deletes a price modifier, freeing its name',
  },
  'pcm-create-product': {
    auth: 'admin',
    body: 'large-json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'POST /pcm/products: creates a product (sku and external_ref unique in the store)',
  },
  'pcm-list-products': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/products: the store's products, filtered and paginated",
  },
  'pcm-get-product': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /pcm/products/{product_id}: one product of the store',
  },
  'pcm-get-component-products': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description:
      'GET /pcm/products/{product_id}/relationships/component_products: the products a bundle names',
  },
  'pcm-update-product': {
    auth: 'admin',
    body: 'large-json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: "PUT /pcm/products/{product_id}: changes the product's attributes that are sent",
  },
  'pcm-delete-product': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'DELETE /pcm/products/{product_id}: deletes a product no bundle uses, freeing its sku',
  },
  'pcm-get-product-variations': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description:
      'GET /pcm/products/{product_id}/relationships/variations: the linked variations in link order',
  },
  'pcm-create-product-variations': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'POST /pcm/products/{product_id}/relationships/variations: links variations to a product',
  },
  'pcm-update-product-variations': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      "PUT /pcm/products/{product_id}/relationships/variations: replaces a product's linked variations",
  },
  'pcm-delete-product-variations': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'DELETE /pcm/products/{product_id}/relationships/variations: unlinks the variations listed',
  },
  'pcm-get-child-products': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/products/{product_id}/children: a page of a parent's built children",
  },
  'pcm-build-child-products': {
    auth: 'admin',
    body: 'json',
    jobs: 'enqueue',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: "POST /pcm/products/{product_id}/build: starts a job building a product's child products",
  },
  'pcm-list-jobs': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/jobs: the store's jobs, newest first, paginated",
  },
  'pcm-get-job': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /pcm/jobs/{job_id}: one job of the store',
  },
  'pcm-get-job-errors': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/jobs/{job_id}/errors: a job's errors, in the order recorded",
  },
  'pcm-cancel-job': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'POST /pcm/jobs/{job_id}/cancel: cancels a pending job (409 once it started)',
  },
  'pcm-get-product-main-image': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/products/{product_id}/relationships/main_image: the product's main image",
  },
  'pcm-write-product-main-image': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      "POST, PUT, DELETE /pcm/products/{product_id}/relationships/main_image: sets or removes the product's main image",
  },
  'pcm-get-product-files': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /pcm/products/{product_id}/relationships/files: the files the product lists',
  },
  'pcm-write-product-files': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      "POST, PUT, DELETE /pcm/products/{product_id}/relationships/files: adds, replaces or removes the product's files",
  },
  'pcm-create-hierarchy': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'POST /pcm/hierarchies: creates a hierarchy (slug unique in the store)',
  },
  'pcm-list-hierarchies': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/hierarchies: the store's hierarchies, paginated",
  },
  'pcm-get-hierarchy': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /pcm/hierarchies/{hierarchy_id}: one hierarchy of the store',
  },
  'pcm-update-hierarchy': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      "PUT /pcm/hierarchies/{hierarchy_id}: changes a hierarchy's name, description, slug or locales",
  },
  'pcm-delete-hierarchy': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'DELETE /pcm/hierarchies/{hierarchy_id}: deletes a hierarchy, freeing its slug',
  },
  'pcm-create-node': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'POST /pcm/hierarchies/{hierarchy_id}/nodes: creates a node (names and slugs unique among siblings)',
  },
  'pcm-list-nodes': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /pcm/hierarchies/{hierarchy_id}/nodes: every node of a hierarchy, paginated',
  },
  'pcm-get-node': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}: one node',
  },
  'pcm-update-node': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      "PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}: changes a node's attributes or sort order",
  },
  'pcm-delete-node': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description: 'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}: deletes a node and its descendants',
  },
  'pcm-list-hierarchy-children': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/hierarchies/{hierarchy_id}/children: a hierarchy's top-level nodes",
  },
  'pcm-list-node-children': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: "GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/children: a node's children",
  },
  'pcm-create-node-children': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'POST /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/children: moves nodes under a node',
  },
  'pcm-write-node-parent': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent: moves a node under another',
  },
  'pcm-delete-node-parent': {
    auth: 'admin',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent: makes a node top-level',
  },
  'pcm-write-node-products': {
    auth: 'admin',
    body: 'json',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'POST, DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products: attaches or detaches products',
  },
  'pcm-list-node-products': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description:
      "GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/products: a node's products, curated first",
  },
  'pcm-list-product-nodes': {
    auth: 'admin',
    tables: { keys: 'read', products: 'read', limits: 'readwrite' },
    description: 'GET /pcm/products/{product_id}/nodes: the nodes a product is attached to',
  },
  'pcm-import-products': {
    auth: 'admin',
    body: 'upload',
    // readwrite: the file is stored in the documents bucket for the job to read.
    bucket: 'readwrite',
    jobs: 'enqueue',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'POST /pcm/products/import: imports products from a CSV file as a product-import job (201 pending)',
  },
  'pcm-import-prices': {
    auth: 'admin',
    body: 'upload',
    // readwrite: the file is stored in the documents bucket for the job to read.
    bucket: 'readwrite',
    jobs: 'enqueue',
    tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
    description:
      'POST /pcm/pricebooks/import: imports price books and prices from a JSONL file as a price-import job (201 pending)',
  },
  'pcm-create-import-upload': {
    auth: 'admin',
    // readwrite: the pre-signed PUT URL carries the signer's s3:PutObject.
    bucket: 'readwrite',
    tables: { keys: 'read', limits: 'readwrite' },
    description:
      'POST /pcm/products/import-uploads: a pre-signed URL to upload an import file over 4 MiB (up to 50 MB) to S3',
  },
} as const satisfies Record<string, FunctionDefinition>;

/** The name of a function: `functions/<name>/handler.ts`. */
export type FunctionName = keyof typeof FUNCTIONS;

/** A product's linked variations: four routes share the path. */
const VARIATION_LINKS = '/pcm/products/{product_id}/relationships/variations';

export const ROUTES: RouteDefinition[] = [
  { method: 'POST', path: '/oauth/access_token', function: 'create-access-token' },
  { method: 'GET', path: '/v2/application-keys', function: 'list-application-keys' },
  { method: 'POST', path: '/v2/application-keys', function: 'create-application-key' },
  { method: 'GET', path: '/v2/application-keys/{id}', function: 'get-application-key' },
  { method: 'PUT', path: '/v2/application-keys/{id}', function: 'update-application-key' },
  { method: 'DELETE', path: '/v2/application-keys/{id}', function: 'delete-application-key' },
  { method: 'GET', path: '/v2/merchant-realm-mappings', function: 'get-merchant-realm-mapping' },
  {
    method: 'GET',
    path: '/v2/merchant-realm-mappings/{mapping_id}',
    function: 'get-merchant-realm-mapping',
  },
  {
    method: 'PUT',
    path: '/v2/merchant-realm-mappings/{mapping_id}',
    function: 'update-merchant-realm-mapping',
  },
  {
    method: 'GET',
    path: '/catalog/products/{product_id}/relationships/children',
    function: 'list-child-products',
  },
  { method: 'GET', path: '/catalog', function: 'get-catalog' },
  { method: 'GET', path: '/catalog/products', function: 'list-catalog-products' },
  { method: 'GET', path: '/catalog/products/{product_id}', function: 'get-catalog-product' },
  { method: 'GET', path: '/catalog/nodes', function: 'list-nodes' },
  { method: 'GET', path: '/catalog/nodes/{node_id}', function: 'get-node' },
  { method: 'GET', path: '/catalog/nodes/{node_id}/relationships/children', function: 'list-node-children' },
  { method: 'GET', path: '/catalog/nodes/{node_id}/relationships/products', function: 'list-node-products' },
  { method: 'GET', path: '/catalog/hierarchies', function: 'list-hierarchies' },
  { method: 'GET', path: '/catalog/hierarchies/{hierarchy_id}', function: 'get-hierarchy' },
  {
    method: 'GET',
    path: '/catalog/hierarchies/{hierarchy_id}/children',
    function: 'list-hierarchy-children',
  },
  { method: 'GET', path: '/catalog/hierarchies/{hierarchy_id}/nodes', function: 'list-hierarchy-nodes' },
  {
    method: 'GET',
    path: '/catalog/hierarchies/{hierarchy_id}/products',
    function: 'list-hierarchy-products',
  },
  { method: 'POST', path: '/pcm/catalogs', function: 'pcm-create-catalog' },
  { method: 'GET', path: '/pcm/catalogs', function: 'pcm-list-catalogs' },
  // Before `/pcm/catalogs/{catalog_id}`: like API Gateway, the literal `rules` wins over the parameter.
  { method: 'POST', path: '/pcm/catalogs/rules', function: 'pcm-create-catalog-rule' },
  { method: 'GET', path: '/pcm/catalogs/rules', function: 'pcm-list-catalog-rules' },
  { method: 'GET', path: '/pcm/catalogs/rules/{catalog_rule_id}', function: 'pcm-get-catalog-rule' },
  { method: 'PUT', path: '/pcm/catalogs/rules/{catalog_rule_id}', function: 'pcm-update-catalog-rule' },
  { method: 'DELETE', path: '/pcm/catalogs/rules/{catalog_rule_id}', function: 'pcm-delete-catalog-rule' },
  { method: 'GET', path: '/pcm/catalogs/{catalog_id}', function: 'pcm-get-catalog' },
  { method: 'PUT', path: '/pcm/catalogs/{catalog_id}', function: 'pcm-update-catalog' },
  { method: 'DELETE', path: '/pcm/catalogs/{catalog_id}', function: 'pcm-delete-catalog' },
  { method: 'PUT', path: '/pcm/catalogs/{catalog_id}/document', function: 'pcm-put-catalog-document' },
  {
    method: 'POST',
    path: '/pcm/catalogs/{catalog_id}/document-uploads',
    function: 'pcm-create-document-upload',
  },
  { method: 'POST', path: '/pcm/catalogs/{catalog_id}/releases', function: 'pcm-create-release' },
  { method: 'GET', path: '/pcm/catalogs/{catalog_id}/releases', function: 'pcm-list-releases' },
  { method: 'GET', path: '/pcm/catalogs/{catalog_id}/releases/{release_id}', function: 'pcm-get-release' },
  {
    method: 'DELETE',
    path: '/pcm/catalogs/{catalog_id}/releases/{release_id}',
    function: 'pcm-delete-release',
  },
  { method: 'DELETE', path: '/pcm/catalogs/{catalog_id}/releases', function: 'pcm-delete-releases' },
  { method: 'POST', path: '/v2/files', function: 'create-file' },
  { method: 'GET', path: '/v2/files', function: 'list-files' },
  { method: 'GET', path: '/v2/files/{file_id}', function: 'get-file' },
  { method: 'DELETE', path: '/v2/files/{file_id}', function: 'delete-file' },
  { method: 'POST', path: '/v2/currencies', function: 'create-currency' },
  { method: 'GET', path: '/v2/currencies', function: 'list-currencies' },
  { method: 'GET', path: '/v2/currencies/{currency_id}', function: 'get-currency' },
  { method: 'PUT', path: '/v2/currencies/{currency_id}', function: 'update-currency' },
  { method: 'DELETE', path: '/v2/currencies/{currency_id}', function: 'delete-currency' },
  { method: 'POST', path: '/v2/integrations', function: 'create-integration' },
  { method: 'GET', path: '/v2/integrations', function: 'list-integrations' },
  { method: 'GET', path: '/v2/integrations/logs', function: 'list-all-integration-logs' },
  { method: 'GET', path: '/v2/integrations/{integration_id}', function: 'get-integration' },
  { method: 'PUT', path: '/v2/integrations/{integration_id}', function: 'update-integration' },
  { method: 'DELETE', path: '/v2/integrations/{integration_id}', function: 'delete-integration' },
  { method: 'GET', path: '/v2/integrations/{integration_id}/logs', function: 'list-integration-logs' },
  { method: 'GET', path: '/v2/integrations/{integration_id}/jobs', function: 'list-integration-jobs' },
  {
    method: 'GET',
    path: '/v2/integrations/{integration_id}/jobs/{job_id}/logs',
    function: 'get-integration-job-logs',
  },
  { method: 'POST', path: '/pcm/pricebooks', function: 'pcm-create-pricebook' },
  { method: 'GET', path: '/pcm/pricebooks', function: 'pcm-list-pricebooks' },
  { method: 'GET', path: '/pcm/pricebooks/prices', function: 'pcm-list-all-prices' },
  { method: 'POST', path: '/pcm/pricebooks/import', function: 'pcm-import-prices' },
  { method: 'GET', path: '/pcm/pricebooks/{pricebook_id}', function: 'pcm-get-pricebook' },
  { method: 'PUT', path: '/pcm/pricebooks/{pricebook_id}', function: 'pcm-update-pricebook' },
  { method: 'DELETE', path: '/pcm/pricebooks/{pricebook_id}', function: 'pcm-delete-pricebook' },
  { method: 'POST', path: '/pcm/pricebooks/{pricebook_id}/prices', function: 'pcm-create-price' },
  { method: 'GET', path: '/pcm/pricebooks/{pricebook_id}/prices', function: 'pcm-list-prices' },
  { method: 'GET', path: '/pcm/pricebooks/{pricebook_id}/prices/{price_id}', function: 'pcm-get-price' },
  { method: 'PUT', path: '/pcm/pricebooks/{pricebook_id}/prices/{price_id}', function: 'pcm-update-price' },
  {
    method: 'DELETE',
    path: '/pcm/pricebooks/{pricebook_id}/prices/{price_id}',
    function: 'pcm-delete-price',
  },
  { method: 'POST', path: '/pcm/pricebooks/{pricebook_id}/modifiers', function: 'pcm-create-price-modifier' },
  { method: 'GET', path: '/pcm/pricebooks/{pricebook_id}/modifiers', function: 'pcm-list-price-modifiers' },
  {
    method: 'GET',
    path: '/pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}',
    function: 'pcm-get-price-modifier',
  },
  {
    method: 'PUT',
    path: '/pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}',
    function: 'pcm-update-price-modifier',
  },
  {
    method: 'DELETE',
    path: '/pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}',
    function: 'pcm-delete-price-modifier',
  },
  { method: 'POST', path: '/pcm/products', function: 'pcm-create-product' },
  { method: 'GET', path: '/pcm/products', function: 'pcm-list-products' },
  { method: 'GET', path: '/pcm/products/{product_id}', function: 'pcm-get-product' },
  { method: 'PUT', path: '/pcm/products/{product_id}', function: 'pcm-update-product' },
  { method: 'DELETE', path: '/pcm/products/{product_id}', function: 'pcm-delete-product' },
  {
    method: 'GET',
    path: '/pcm/products/{product_id}/relationships/component_products',
    function: 'pcm-get-component-products',
  },
  {
    method: 'GET',
    path: '/pcm/products/{product_id}/relationships/main_image',
    function: 'pcm-get-product-main-image',
  },
  {
    method: 'POST',
    path: '/pcm/products/{product_id}/relationships/main_image',
    function: 'pcm-write-product-main-image',
  },
  {
    method: 'PUT',
    path: '/pcm/products/{product_id}/relationships/main_image',
    function: 'pcm-write-product-main-image',
  },
  {
    method: 'DELETE',
    path: '/pcm/products/{product_id}/relationships/main_image',
    function: 'pcm-write-product-main-image',
  },
  {
    method: 'GET',
    path: '/pcm/products/{product_id}/relationships/files',
    function: 'pcm-get-product-files',
  },
  {
    method: 'POST',
    path: '/pcm/products/{product_id}/relationships/files',
    function: 'pcm-write-product-files',
  },
  {
    method: 'PUT',
    path: '/pcm/products/{product_id}/relationships/files',
    function: 'pcm-write-product-files',
  },
  {
    method: 'DELETE',
    path: '/pcm/products/{product_id}/relationships/files',
    function: 'pcm-write-product-files',
  },
  { method: 'GET', path: VARIATION_LINKS, function: 'pcm-get-product-variations' },
  { method: 'POST', path: VARIATION_LINKS, function: 'pcm-create-product-variations' },
  { method: 'PUT', path: VARIATION_LINKS, function: 'pcm-update-product-variations' },
  { method: 'DELETE', path: VARIATION_LINKS, function: 'pcm-delete-product-variations' },
  { method: 'GET', path: '/pcm/products/{product_id}/children', function: 'pcm-get-child-products' },
  { method: 'POST', path: '/pcm/products/{product_id}/build', function: 'pcm-build-child-products' },
  { method: 'POST', path: '/pcm/variations', function: 'pcm-create-variation' },
  { method: 'GET', path: '/pcm/variations', function: 'pcm-list-variations' },
  { method: 'GET', path: '/pcm/variations/{variation_id}', function: 'pcm-get-variation' },
  { method: 'PUT', path: '/pcm/variations/{variation_id}', function: 'pcm-update-variation' },
  { method: 'DELETE', path: '/pcm/variations/{variation_id}', function: 'pcm-delete-variation' },
  { method: 'POST', path: '/pcm/variations/{variation_id}/options', function: 'pcm-create-variation-option' },
  { method: 'GET', path: '/pcm/variations/{variation_id}/options', function: 'pcm-list-variation-options' },
  {
    method: 'GET',
    path: '/pcm/variations/{variation_id}/options/{option_id}',
    function: 'pcm-get-variation-option',
  },
  {
    method: 'PUT',
    path: '/pcm/variations/{variation_id}/options/{option_id}',
    function: 'pcm-update-variation-option',
  },
  {
    method: 'DELETE',
    path: '/pcm/variations/{variation_id}/options/{option_id}',
    function: 'pcm-delete-variation-option',
  },
  {
    method: 'POST',
    path: '/pcm/variations/{variation_id}/options/{option_id}/modifiers',
    function: 'pcm-create-option-modifier',
  },
  {
    method: 'GET',
    path: '/pcm/variations/{variation_id}/options/{option_id}/modifiers',
    function: 'pcm-list-option-modifiers',
  },
  {
    method: 'GET',
    path: '/pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}',
    function: 'pcm-get-option-modifier',
  },
  {
    method: 'PUT',
    path: '/pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}',
    function: 'pcm-update-option-modifier',
  },
  {
    method: 'DELETE',
    path: '/pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}',
    function: 'pcm-delete-option-modifier',
  },
  { method: 'GET', path: '/pcm/jobs', function: 'pcm-list-jobs' },
  { method: 'GET', path: '/pcm/jobs/{job_id}', function: 'pcm-get-job' },
  { method: 'GET', path: '/pcm/jobs/{job_id}/errors', function: 'pcm-get-job-errors' },
  { method: 'POST', path: '/pcm/jobs/{job_id}/cancel', function: 'pcm-cancel-job' },
  { method: 'POST', path: '/pcm/hierarchies', function: 'pcm-create-hierarchy' },
  { method: 'GET', path: '/pcm/hierarchies', function: 'pcm-list-hierarchies' },
  { method: 'GET', path: '/pcm/hierarchies/{hierarchy_id}', function: 'pcm-get-hierarchy' },
  { method: 'PUT', path: '/pcm/hierarchies/{hierarchy_id}', function: 'pcm-update-hierarchy' },
  { method: 'DELETE', path: '/pcm/hierarchies/{hierarchy_id}', function: 'pcm-delete-hierarchy' },
  { method: 'POST', path: '/pcm/hierarchies/{hierarchy_id}/nodes', function: 'pcm-create-node' },
  { method: 'GET', path: '/pcm/hierarchies/{hierarchy_id}/nodes', function: 'pcm-list-nodes' },
  { method: 'GET', path: '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}', function: 'pcm-get-node' },
  { method: 'PUT', path: '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}', function: 'pcm-update-node' },
  { method: 'DELETE', path: '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}', function: 'pcm-delete-node' },
  {
    method: 'GET',
    path: '/pcm/hierarchies/{hierarchy_id}/children',
    function: 'pcm-list-hierarchy-children',
  },
  {
    method: 'GET',
    path: '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/children',
    function: 'pcm-list-node-children',
  },
  {
    method: 'POST',
    path: '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/children',
    function: 'pcm-create-node-children',
  },
  {
    method: 'PUT',
    path: '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent',
    function: 'pcm-write-node-parent',
  },
  {
    method: 'DELETE',
    path: '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent',
    function: 'pcm-delete-node-parent',
  },
  {
    method: 'POST',
    path: '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products',
    function: 'pcm-write-node-products',
  },
  {
    method: 'DELETE',
    path: '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products',
    function: 'pcm-write-node-products',
  },
  {
    method: 'GET',
    path: '/pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/products',
    function: 'pcm-list-node-products',
  },
  { method: 'GET', path: '/pcm/products/{product_id}/nodes', function: 'pcm-list-product-nodes' },
  { method: 'POST', path: '/pcm/products/import', function: 'pcm-import-products' },
  { method: 'POST', path: '/pcm/products/import-uploads', function: 'pcm-create-import-upload' },
];

/** Both halves of the route table, as the OpenAPI document builder takes them. */
export const ROUTE_TABLE = { routes: ROUTES, functions: FUNCTIONS } as const;

/**
 * The CORS configuration of the API for a set of allowed origins: the methods of the route table, the
 * headers of lib/http/cors.ts. The CDK stack's `corsPreflight` and the local server both take it from
 * here, so the two cannot disagree.
 */
export function apiCorsConfiguration(origins: readonly string[]): CorsConfiguration {
  return corsConfiguration(
    origins,
    ROUTES.map((route) => route.method),
  );
}
