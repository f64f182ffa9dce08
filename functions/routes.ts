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

/*
 * Each function's definition is a constant of its own, named after the function (`get-currency`:
 * GET_CURRENCY), which its handler imports: a bundle then holds its own definition, not the whole table
 * (25 KiB, about a fifth of a small function's bundle and of what its import compiles). FUNCTIONS below
 * gathers them under their names.
 */
export const CREATE_ACCESS_TOKEN = {
  auth: 'none',
  body: 'json-or-form',
  tables: { keys: 'readwrite', limits: 'readwrite' },
  description: 'POST /oauth/access_token: issues bearer tokens from application keys',
} as const satisfies FunctionDefinition;

export const LIST_APPLICATION_KEYS = {
  auth: 'admin',
  tables: { keys: 'read', limits: 'readwrite' },
  description: "GET /v2/application-keys: a page of the store's application keys with totals",
} as const satisfies FunctionDefinition;

export const CREATE_APPLICATION_KEY = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'readwrite', limits: 'readwrite' },
  description: 'POST /v2/application-keys: creates an application key (secret shown once)',
} as const satisfies FunctionDefinition;

export const GET_APPLICATION_KEY = {
  auth: 'admin',
  tables: { keys: 'read', limits: 'readwrite' },
  description: 'GET /v2/application-keys/{id}: one application key of the store',
} as const satisfies FunctionDefinition;

export const UPDATE_APPLICATION_KEY = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'readwrite', limits: 'readwrite' },
  description: 'PUT /v2/application-keys/{id}: renames a key or changes its reserved rate limit',
} as const satisfies FunctionDefinition;

export const DELETE_APPLICATION_KEY = {
  auth: 'admin',
  tables: { keys: 'readwrite', limits: 'readwrite' },
  description: 'DELETE /v2/application-keys/{id}: deletes a key, revoking its credentials and tokens',
} as const satisfies FunctionDefinition;

export const GET_MERCHANT_REALM_MAPPING = {
  auth: 'admin',
  // keys: read resolves the bearer token; mappings: read serves the mapping.
  tables: { keys: 'read', mappings: 'read', limits: 'readwrite' },
  description: "GET /v2/merchant-realm-mappings[/{mapping_id}]: the store's merchant realm mapping",
} as const satisfies FunctionDefinition;

export const UPDATE_MERCHANT_REALM_MAPPING = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', mappings: 'readwrite', limits: 'readwrite' },
  description: "PUT /v2/merchant-realm-mappings/{mapping_id}: sets the store's unique prefix",
} as const satisfies FunctionDefinition;

export const LIST_CHILD_PRODUCTS = {
  auth: 'any',
  // keys: read resolves the bearer token; products: read serves the catalog.
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /catalog/products/{product_id}/relationships/children: live children of a base product',
} as const satisfies FunctionDefinition;

export const GET_CATALOG = {
  auth: 'any',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  bucket: 'link-deltas',
  description: 'GET /catalog: the catalog release the shopper context selects',
} as const satisfies FunctionDefinition;

export const GET_CATALOG_PRODUCT = {
  auth: 'any',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /catalog/products/{product_id}: one live product of the selected release',
} as const satisfies FunctionDefinition;

export const LIST_CATALOG_PRODUCTS = {
  auth: 'any',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /catalog/products: live products of the selected release, filtered and paginated',
} as const satisfies FunctionDefinition;

export const LIST_NODES = {
  auth: 'any',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /catalog/nodes: the nodes of the selected catalog, or those `filter=in(id,...)` names',
} as const satisfies FunctionDefinition;

export const GET_NODE = {
  auth: 'any',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /catalog/nodes/{node_id}: one node of the selected catalog',
} as const satisfies FunctionDefinition;

export const LIST_NODE_CHILDREN = {
  auth: 'any',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /catalog/nodes/{node_id}/relationships/children: the direct children of a node',
} as const satisfies FunctionDefinition;

export const LIST_NODE_PRODUCTS = {
  auth: 'any',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /catalog/nodes/{node_id}/relationships/products: the live products in a node',
} as const satisfies FunctionDefinition;

export const LIST_HIERARCHIES = {
  auth: 'any',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /catalog/hierarchies: the hierarchies (root nodes) of the selected catalog',
} as const satisfies FunctionDefinition;

export const GET_HIERARCHY = {
  auth: 'any',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /catalog/hierarchies/{hierarchy_id}: one hierarchy of the selected catalog',
} as const satisfies FunctionDefinition;

export const LIST_HIERARCHY_CHILDREN = {
  auth: 'any',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /catalog/hierarchies/{hierarchy_id}/children: the direct children of a hierarchy',
} as const satisfies FunctionDefinition;

export const LIST_HIERARCHY_NODES = {
  auth: 'any',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /catalog/hierarchies/{hierarchy_id}/nodes: every node below a hierarchy',
} as const satisfies FunctionDefinition;

export const LIST_HIERARCHY_PRODUCTS = {
  auth: 'any',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description:
    'GET /catalog/hierarchies/{hierarchy_id}/products: the live products in any node of a hierarchy',
} as const satisfies FunctionDefinition;

export const PCM_CREATE_CATALOG = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'POST /pcm/catalogs: creates a catalog (its content comes from a release document)',
} as const satisfies FunctionDefinition;

export const PCM_LIST_CATALOGS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/catalogs: the store's catalogs",
} as const satisfies FunctionDefinition;

export const PCM_GET_CATALOG = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/catalogs/{catalog_id}: one catalog of the store',
} as const satisfies FunctionDefinition;

export const PCM_UPDATE_CATALOG = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    "PUT /pcm/catalogs/{catalog_id}: changes a catalog's name, description, hierarchies or price book",
} as const satisfies FunctionDefinition;

export const PCM_DELETE_CATALOG = {
  auth: 'admin',
  // readwrite: the catalog's documents and uploads are deleted with it.
  bucket: 'readwrite',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'DELETE /pcm/catalogs/{catalog_id}: deletes a catalog that has no releases, and its documents',
} as const satisfies FunctionDefinition;

export const PCM_CREATE_CATALOG_RULE = {
  auth: 'admin',
  body: 'json',
  integrations: 'emit',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'POST /pcm/catalogs/rules: creates a catalog rule (which catalog which shoppers get)',
} as const satisfies FunctionDefinition;

export const PCM_LIST_CATALOG_RULES = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/catalogs/rules: the store's catalog rules, paginated, filter=in(id,...)",
} as const satisfies FunctionDefinition;

export const PCM_GET_CATALOG_RULE = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/catalogs/rules/{catalog_rule_id}: one catalog rule of the store',
} as const satisfies FunctionDefinition;

export const PCM_UPDATE_CATALOG_RULE = {
  auth: 'admin',
  body: 'json',
  integrations: 'emit',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: "PUT /pcm/catalogs/rules/{catalog_rule_id}: changes the rule's attributes that are sent",
} as const satisfies FunctionDefinition;

export const PCM_DELETE_CATALOG_RULE = {
  auth: 'admin',
  integrations: 'emit',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'DELETE /pcm/catalogs/rules/{catalog_rule_id}: deletes a catalog rule',
} as const satisfies FunctionDefinition;

export const PCM_PUT_CATALOG_DOCUMENT = {
  auth: 'admin',
  body: 'document',
  bucket: 'readwrite',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: "PUT /pcm/catalogs/{catalog_id}/document: stores the catalog's release document (up to 5 MB)",
} as const satisfies FunctionDefinition;

export const PCM_CREATE_DOCUMENT_UPLOAD = {
  auth: 'admin',
  bucket: 'readwrite',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'POST /pcm/catalogs/{catalog_id}/document-uploads: a pre-signed URL to upload a larger document to S3',
} as const satisfies FunctionDefinition;

export const PCM_CREATE_VARIATION = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'POST /pcm/variations: creates a variation',
} as const satisfies FunctionDefinition;

export const PCM_LIST_VARIATIONS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/variations: the store's variations with their options",
} as const satisfies FunctionDefinition;

export const PCM_GET_VARIATION = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/variations/{variation_id}: one variation with its options',
} as const satisfies FunctionDefinition;

export const PCM_UPDATE_VARIATION = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: "PUT /pcm/variations/{variation_id}: changes a variation's name or sort order",
} as const satisfies FunctionDefinition;

export const PCM_DELETE_VARIATION = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'DELETE /pcm/variations/{variation_id}: deletes a variation, its options and their modifiers',
} as const satisfies FunctionDefinition;

export const PCM_CREATE_VARIATION_OPTION = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'POST /pcm/variations/{variation_id}/options: adds an option to a variation',
} as const satisfies FunctionDefinition;

export const PCM_LIST_VARIATION_OPTIONS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/variations/{variation_id}/options: a variation's options",
} as const satisfies FunctionDefinition;

export const PCM_GET_VARIATION_OPTION = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/variations/{variation_id}/options/{option_id}: one option with its modifiers',
} as const satisfies FunctionDefinition;

export const PCM_UPDATE_VARIATION_OPTION = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    "PUT /pcm/variations/{variation_id}/options/{option_id}: changes an option's name, description or sort order",
} as const satisfies FunctionDefinition;

export const PCM_DELETE_VARIATION_OPTION = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'DELETE /pcm/variations/{variation_id}/options/{option_id}: deletes an option and its modifiers',
} as const satisfies FunctionDefinition;

export const PCM_CREATE_OPTION_MODIFIER = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'POST /pcm/variations/{variation_id}/options/{option_id}/modifiers: adds a modifier to an option',
} as const satisfies FunctionDefinition;

export const PCM_LIST_OPTION_MODIFIERS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/variations/{variation_id}/options/{option_id}/modifiers: an option's modifiers",
} as const satisfies FunctionDefinition;

export const PCM_GET_OPTION_MODIFIER = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}: one modifier',
} as const satisfies FunctionDefinition;

export const PCM_UPDATE_OPTION_MODIFIER = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    "PUT /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}: replaces a modifier's definition",
} as const satisfies FunctionDefinition;

export const PCM_DELETE_OPTION_MODIFIER = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'DELETE /pcm/variations/{variation_id}/options/{option_id}/modifiers/{modifier_id}: deletes a modifier',
} as const satisfies FunctionDefinition;

export const PCM_CREATE_RELEASE = {
  auth: 'admin',
  body: 'json',
  // readwrite: a pending upload becomes the catalog's document (copied out of uploads/) first.
  bucket: 'readwrite',
  workflow: 'start',
  integrations: 'emit',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    "POST /pcm/catalogs/{catalog_id}/releases: publishes the catalog's document (201 PENDING at once)",
} as const satisfies FunctionDefinition;

export const PCM_LIST_RELEASES = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  bucket: 'link-deltas',
  description: "GET /pcm/catalogs/{catalog_id}/releases: the catalog's releases, newest first",
} as const satisfies FunctionDefinition;

export const PCM_GET_RELEASE = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  bucket: 'link-deltas',
  description: 'GET /pcm/catalogs/{catalog_id}/releases/{release_id}: one release (or latestPublished)',
} as const satisfies FunctionDefinition;

export const PCM_DELETE_RELEASE = {
  auth: 'admin',
  integrations: 'emit',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  // The releases it reclaims go with their delta files.
  bucket: 'delete-deltas',
  description:
    'DELETE /pcm/catalogs/{catalog_id}/releases/{release_id}: deletes a release (the current: rolls back)',
} as const satisfies FunctionDefinition;

export const PCM_DELETE_RELEASES = {
  auth: 'admin',
  integrations: 'emit',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  // The releases it reclaims go with their delta files.
  bucket: 'delete-deltas',
  description: 'DELETE /pcm/catalogs/{catalog_id}/releases: deletes every release, unpublishing the catalog',
} as const satisfies FunctionDefinition;

export const CREATE_FILE = {
  auth: 'admin',
  body: 'json-or-multipart',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'POST /v2/files: records a file hosted elsewhere from its file_location (never fetched)',
} as const satisfies FunctionDefinition;

export const LIST_FILES = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /v2/files: a page of the store's files with totals, filtered on id, file_name, public",
} as const satisfies FunctionDefinition;

export const GET_FILE = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /v2/files/{file_id}: one file of the store',
} as const satisfies FunctionDefinition;

export const DELETE_FILE = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'DELETE /v2/files/{file_id}: deletes a file of the store',
} as const satisfies FunctionDefinition;

export const CREATE_CURRENCY = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'POST /v2/currencies: adds a currency (at most 10 a store, codes unique, the first the default)',
} as const satisfies FunctionDefinition;

export const LIST_CURRENCIES = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /v2/currencies: the store's currencies, paginated",
} as const satisfies FunctionDefinition;

export const GET_CURRENCY = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /v2/currencies/{currency_id}: one currency of the store',
} as const satisfies FunctionDefinition;

export const UPDATE_CURRENCY = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'PUT /v2/currencies/{currency_id}: changes the fields sent; default: true makes it the default',
} as const satisfies FunctionDefinition;

export const DELETE_CURRENCY = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'DELETE /v2/currencies/{currency_id}: deletes a currency that is not the default',
} as const satisfies FunctionDefinition;

export const CREATE_INTEGRATION = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'POST /v2/integrations: creates a webhook integration (at most 25 a store; its URL must resolve to public addresses)',
} as const satisfies FunctionDefinition;

export const LIST_INTEGRATIONS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /v2/integrations: the store's integrations, paginated",
} as const satisfies FunctionDefinition;

export const GET_INTEGRATION = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /v2/integrations/{integration_id}: one integration of the store',
} as const satisfies FunctionDefinition;

export const UPDATE_INTEGRATION = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'PUT /v2/integrations/{integration_id}: changes the fields sent',
} as const satisfies FunctionDefinition;

export const DELETE_INTEGRATION = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'DELETE /v2/integrations/{integration_id}: deletes an integration',
} as const satisfies FunctionDefinition;

export const LIST_ALL_INTEGRATION_LOGS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /v2/integrations/logs: the delivery attempts of the store's integrations, newest first",
} as const satisfies FunctionDefinition;

export const LIST_INTEGRATION_LOGS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /v2/integrations/{integration_id}/logs: an integration's delivery attempts, newest first",
} as const satisfies FunctionDefinition;

export const LIST_INTEGRATION_JOBS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /v2/integrations/{integration_id}/jobs: an integration's deliveries, one per event",
} as const satisfies FunctionDefinition;

export const GET_INTEGRATION_JOB_LOGS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /v2/integrations/{integration_id}/jobs/{job_id}/logs: the attempts of one delivery',
} as const satisfies FunctionDefinition;

export const PCM_CREATE_PRICEBOOK = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'POST /pcm/pricebooks: creates a price book (its name unique in the store)',
} as const satisfies FunctionDefinition;

export const PCM_LIST_PRICEBOOKS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/pricebooks: the store's price books, paginated",
} as const satisfies FunctionDefinition;

export const PCM_GET_PRICEBOOK = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/pricebooks/{pricebook_id}: one price book of the store',
} as const satisfies FunctionDefinition;

export const PCM_UPDATE_PRICEBOOK = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: "PUT /pcm/pricebooks/{pricebook_id}: changes the price book's attributes that are sent",
} as const satisfies FunctionDefinition;

export const PCM_DELETE_PRICEBOOK = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'DELETE /pcm/pricebooks/{pricebook_id}: deletes a price book, freeing its name',
} as const satisfies FunctionDefinition;

export const PCM_LIST_ALL_PRICES = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description:
    'GET /pcm/pricebooks/prices: the prices of every price book of the store, filtered and paginated',
} as const satisfies FunctionDefinition;

export const PCM_CREATE_PRICE = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'POST /pcm/pricebooks/{pricebook_id}/prices: creates a price (one per sku in the book)',
} as const satisfies FunctionDefinition;

export const PCM_LIST_PRICES = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/pricebooks/{pricebook_id}/prices: a price book's prices, filtered and paginated",
} as const satisfies FunctionDefinition;

export const PCM_GET_PRICE = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/pricebooks/{pricebook_id}/prices/{price_id}: one price of a price book',
} as const satisfies FunctionDefinition;

export const PCM_UPDATE_PRICE = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    "PUT /pcm/pricebooks/{pricebook_id}/prices/{price_id}: changes the price's attributes that are sent",
} as const satisfies FunctionDefinition;

export const PCM_DELETE_PRICE = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'DELETE /pcm/pricebooks/{pricebook_id}/prices/{price_id}: deletes a price, freeing its sku',
} as const satisfies FunctionDefinition;

export const PCM_CREATE_PRICE_MODIFIER = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'POST /pcm/pricebooks/{pricebook_id}/modifiers: creates a price modifier (its name unique in the book)',
} as const satisfies FunctionDefinition;

export const PCM_LIST_PRICE_MODIFIERS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description:
    "GET /pcm/pricebooks/{pricebook_id}/modifiers: a price book's price modifiers, filtered and paginated",
} as const satisfies FunctionDefinition;

export const PCM_GET_PRICE_MODIFIER = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description:
    'GET /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}: one price modifier of a price book',
} as const satisfies FunctionDefinition;

export const PCM_UPDATE_PRICE_MODIFIER = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    "PUT /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}: changes the modifier's attributes that are sent",
} as const satisfies FunctionDefinition;

export const PCM_DELETE_PRICE_MODIFIER = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'DELETE /pcm/pricebooks/{pricebook_id}/modifiers/{modifier_id}: deletes a price modifier, freeing its name',
} as const satisfies FunctionDefinition;

export const PCM_CREATE_PRODUCT = {
  auth: 'admin',
  body: 'large-json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'POST /pcm/products: creates a product (sku and external_ref unique in the store)',
} as const satisfies FunctionDefinition;

export const PCM_LIST_PRODUCTS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/products: the store's products, filtered and paginated",
} as const satisfies FunctionDefinition;

export const PCM_GET_PRODUCT = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/products/{product_id}: one product of the store',
} as const satisfies FunctionDefinition;

export const PCM_GET_COMPONENT_PRODUCTS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/products/{product_id}/relationships/component_products: the products a bundle names',
} as const satisfies FunctionDefinition;

export const PCM_UPDATE_PRODUCT = {
  auth: 'admin',
  body: 'large-json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: "PUT /pcm/products/{product_id}: changes the product's attributes that are sent",
} as const satisfies FunctionDefinition;

export const PCM_DELETE_PRODUCT = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'DELETE /pcm/products/{product_id}: deletes a product no bundle uses, freeing its sku',
} as const satisfies FunctionDefinition;

export const PCM_GET_PRODUCT_VARIATIONS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/products/{product_id}/relationships/variations: the linked variations in link order',
} as const satisfies FunctionDefinition;

export const PCM_CREATE_PRODUCT_VARIATIONS = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'POST /pcm/products/{product_id}/relationships/variations: links variations to a product',
} as const satisfies FunctionDefinition;

export const PCM_UPDATE_PRODUCT_VARIATIONS = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    "PUT /pcm/products/{product_id}/relationships/variations: replaces a product's linked variations",
} as const satisfies FunctionDefinition;

export const PCM_DELETE_PRODUCT_VARIATIONS = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'DELETE /pcm/products/{product_id}/relationships/variations: unlinks the variations listed',
} as const satisfies FunctionDefinition;

export const PCM_GET_CHILD_PRODUCTS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/products/{product_id}/children: a page of a parent's built children",
} as const satisfies FunctionDefinition;

export const PCM_BUILD_CHILD_PRODUCTS = {
  auth: 'admin',
  body: 'json',
  jobs: 'enqueue',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: "POST /pcm/products/{product_id}/build: starts a job building a product's child products",
} as const satisfies FunctionDefinition;

export const PCM_LIST_JOBS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/jobs: the store's jobs, newest first, paginated",
} as const satisfies FunctionDefinition;

export const PCM_GET_JOB = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/jobs/{job_id}: one job of the store',
} as const satisfies FunctionDefinition;

export const PCM_GET_JOB_ERRORS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/jobs/{job_id}/errors: a job's errors, in the order recorded",
} as const satisfies FunctionDefinition;

export const PCM_CANCEL_JOB = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'POST /pcm/jobs/{job_id}/cancel: cancels a pending job (409 once it started)',
} as const satisfies FunctionDefinition;

export const PCM_GET_PRODUCT_MAIN_IMAGE = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/products/{product_id}/relationships/main_image: the product's main image",
} as const satisfies FunctionDefinition;

export const PCM_WRITE_PRODUCT_MAIN_IMAGE = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    "POST, PUT, DELETE /pcm/products/{product_id}/relationships/main_image: sets or removes the product's main image",
} as const satisfies FunctionDefinition;

export const PCM_GET_PRODUCT_FILES = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/products/{product_id}/relationships/files: the files the product lists',
} as const satisfies FunctionDefinition;

export const PCM_WRITE_PRODUCT_FILES = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    "POST, PUT, DELETE /pcm/products/{product_id}/relationships/files: adds, replaces or removes the product's files",
} as const satisfies FunctionDefinition;

export const PCM_CREATE_HIERARCHY = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'POST /pcm/hierarchies: creates a hierarchy (slug unique in the store)',
} as const satisfies FunctionDefinition;

export const PCM_LIST_HIERARCHIES = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/hierarchies: the store's hierarchies, paginated",
} as const satisfies FunctionDefinition;

export const PCM_GET_HIERARCHY = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/hierarchies/{hierarchy_id}: one hierarchy of the store',
} as const satisfies FunctionDefinition;

export const PCM_UPDATE_HIERARCHY = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    "PUT /pcm/hierarchies/{hierarchy_id}: changes a hierarchy's name, description, slug or locales",
} as const satisfies FunctionDefinition;

export const PCM_DELETE_HIERARCHY = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'DELETE /pcm/hierarchies/{hierarchy_id}: deletes a hierarchy, freeing its slug',
} as const satisfies FunctionDefinition;

export const PCM_CREATE_NODE = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'POST /pcm/hierarchies/{hierarchy_id}/nodes: creates a node (names and slugs unique among siblings)',
} as const satisfies FunctionDefinition;

export const PCM_LIST_NODES = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/hierarchies/{hierarchy_id}/nodes: every node of a hierarchy, paginated',
} as const satisfies FunctionDefinition;

export const PCM_GET_NODE = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}: one node',
} as const satisfies FunctionDefinition;

export const PCM_UPDATE_NODE = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    "PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}: changes a node's attributes or sort order",
} as const satisfies FunctionDefinition;

export const PCM_DELETE_NODE = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description: 'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}: deletes a node and its descendants',
} as const satisfies FunctionDefinition;

export const PCM_LIST_HIERARCHY_CHILDREN = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/hierarchies/{hierarchy_id}/children: a hierarchy's top-level nodes",
} as const satisfies FunctionDefinition;

export const PCM_LIST_NODE_CHILDREN = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: "GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/children: a node's children",
} as const satisfies FunctionDefinition;

export const PCM_CREATE_NODE_CHILDREN = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'POST /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/children: moves nodes under a node',
} as const satisfies FunctionDefinition;

export const PCM_WRITE_NODE_PARENT = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'PUT /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent: moves a node under another',
} as const satisfies FunctionDefinition;

export const PCM_DELETE_NODE_PARENT = {
  auth: 'admin',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/parent: makes a node top-level',
} as const satisfies FunctionDefinition;

export const PCM_WRITE_NODE_PRODUCTS = {
  auth: 'admin',
  body: 'json',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'POST, DELETE /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/relationships/products: attaches or detaches products',
} as const satisfies FunctionDefinition;

export const PCM_LIST_NODE_PRODUCTS = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description:
    "GET /pcm/hierarchies/{hierarchy_id}/nodes/{node_id}/products: a node's products, curated first",
} as const satisfies FunctionDefinition;

export const PCM_LIST_PRODUCT_NODES = {
  auth: 'admin',
  tables: { keys: 'read', products: 'read', limits: 'readwrite' },
  description: 'GET /pcm/products/{product_id}/nodes: the nodes a product is attached to',
} as const satisfies FunctionDefinition;

export const PCM_IMPORT_PRODUCTS = {
  auth: 'admin',
  body: 'upload',
  // readwrite: the file is stored in the documents bucket for the job to read.
  bucket: 'readwrite',
  jobs: 'enqueue',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'POST /pcm/products/import: imports products from a CSV file as a product-import job (201 pending)',
} as const satisfies FunctionDefinition;

export const PCM_IMPORT_PRICES = {
  auth: 'admin',
  body: 'upload',
  // readwrite: the file is stored in the documents bucket for the job to read.
  bucket: 'readwrite',
  jobs: 'enqueue',
  tables: { keys: 'read', products: 'readwrite', limits: 'readwrite' },
  description:
    'POST /pcm/pricebooks/import: imports price books and prices from a JSONL file as a price-import job (201 pending)',
} as const satisfies FunctionDefinition;

export const PCM_CREATE_IMPORT_UPLOAD = {
  auth: 'admin',
  // readwrite: the pre-signed PUT URL carries the signer's s3:PutObject.
  bucket: 'readwrite',
  tables: { keys: 'read', limits: 'readwrite' },
  description:
    'POST /pcm/products/import-uploads: a pre-signed URL to upload an import file over 4 MiB (up to 50 MB) to S3',
} as const satisfies FunctionDefinition;

/**
 * The single route table: the CDK stack creates one Lambda per function and one API route per entry,
 * and the local server routes requests with the same entries, so local routes equal deployed ones.
 */
export const FUNCTIONS = {
  'create-access-token': CREATE_ACCESS_TOKEN,
  'list-application-keys': LIST_APPLICATION_KEYS,
  'create-application-key': CREATE_APPLICATION_KEY,
  'get-application-key': GET_APPLICATION_KEY,
  'update-application-key': UPDATE_APPLICATION_KEY,
  'delete-application-key': DELETE_APPLICATION_KEY,
  'get-merchant-realm-mapping': GET_MERCHANT_REALM_MAPPING,
  'update-merchant-realm-mapping': UPDATE_MERCHANT_REALM_MAPPING,
  'list-child-products': LIST_CHILD_PRODUCTS,
  'get-catalog': GET_CATALOG,
  'get-catalog-product': GET_CATALOG_PRODUCT,
  'list-catalog-products': LIST_CATALOG_PRODUCTS,
  'list-nodes': LIST_NODES,
  'get-node': GET_NODE,
  'list-node-children': LIST_NODE_CHILDREN,
  'list-node-products': LIST_NODE_PRODUCTS,
  'list-hierarchies': LIST_HIERARCHIES,
  'get-hierarchy': GET_HIERARCHY,
  'list-hierarchy-children': LIST_HIERARCHY_CHILDREN,
  'list-hierarchy-nodes': LIST_HIERARCHY_NODES,
  'list-hierarchy-products': LIST_HIERARCHY_PRODUCTS,
  'pcm-create-catalog': PCM_CREATE_CATALOG,
  'pcm-list-catalogs': PCM_LIST_CATALOGS,
  'pcm-get-catalog': PCM_GET_CATALOG,
  'pcm-update-catalog': PCM_UPDATE_CATALOG,
  'pcm-delete-catalog': PCM_DELETE_CATALOG,
  'pcm-create-catalog-rule': PCM_CREATE_CATALOG_RULE,
  'pcm-list-catalog-rules': PCM_LIST_CATALOG_RULES,
  'pcm-get-catalog-rule': PCM_GET_CATALOG_RULE,
  'pcm-update-catalog-rule': PCM_UPDATE_CATALOG_RULE,
  'pcm-delete-catalog-rule': PCM_DELETE_CATALOG_RULE,
  'pcm-put-catalog-document': PCM_PUT_CATALOG_DOCUMENT,
  'pcm-create-document-upload': PCM_CREATE_DOCUMENT_UPLOAD,
  'pcm-create-variation': PCM_CREATE_VARIATION,
  'pcm-list-variations': PCM_LIST_VARIATIONS,
  'pcm-get-variation': PCM_GET_VARIATION,
  'pcm-update-variation': PCM_UPDATE_VARIATION,
  'pcm-delete-variation': PCM_DELETE_VARIATION,
  'pcm-create-variation-option': PCM_CREATE_VARIATION_OPTION,
  'pcm-list-variation-options': PCM_LIST_VARIATION_OPTIONS,
  'pcm-get-variation-option': PCM_GET_VARIATION_OPTION,
  'pcm-update-variation-option': PCM_UPDATE_VARIATION_OPTION,
  'pcm-delete-variation-option': PCM_DELETE_VARIATION_OPTION,
  'pcm-create-option-modifier': PCM_CREATE_OPTION_MODIFIER,
  'pcm-list-option-modifiers': PCM_LIST_OPTION_MODIFIERS,
  'pcm-get-option-modifier': PCM_GET_OPTION_MODIFIER,
  'pcm-update-option-modifier': PCM_UPDATE_OPTION_MODIFIER,
  'pcm-delete-option-modifier': PCM_DELETE_OPTION_MODIFIER,
  'pcm-create-release': PCM_CREATE_RELEASE,
  'pcm-list-releases': PCM_LIST_RELEASES,
  'pcm-get-release': PCM_GET_RELEASE,
  'pcm-delete-release': PCM_DELETE_RELEASE,
  'pcm-delete-releases': PCM_DELETE_RELEASES,
  'create-file': CREATE_FILE,
  'list-files': LIST_FILES,
  'get-file': GET_FILE,
  'delete-file': DELETE_FILE,
  'create-currency': CREATE_CURRENCY,
  'list-currencies': LIST_CURRENCIES,
  'get-currency': GET_CURRENCY,
  'update-currency': UPDATE_CURRENCY,
  'delete-currency': DELETE_CURRENCY,
  'create-integration': CREATE_INTEGRATION,
  'list-integrations': LIST_INTEGRATIONS,
  'get-integration': GET_INTEGRATION,
  'update-integration': UPDATE_INTEGRATION,
  'delete-integration': DELETE_INTEGRATION,
  'list-all-integration-logs': LIST_ALL_INTEGRATION_LOGS,
  'list-integration-logs': LIST_INTEGRATION_LOGS,
  'list-integration-jobs': LIST_INTEGRATION_JOBS,
  'get-integration-job-logs': GET_INTEGRATION_JOB_LOGS,
  'pcm-create-pricebook': PCM_CREATE_PRICEBOOK,
  'pcm-list-pricebooks': PCM_LIST_PRICEBOOKS,
  'pcm-get-pricebook': PCM_GET_PRICEBOOK,
  'pcm-update-pricebook': PCM_UPDATE_PRICEBOOK,
  'pcm-delete-pricebook': PCM_DELETE_PRICEBOOK,
  'pcm-list-all-prices': PCM_LIST_ALL_PRICES,
  'pcm-create-price': PCM_CREATE_PRICE,
  'pcm-list-prices': PCM_LIST_PRICES,
  'pcm-get-price': PCM_GET_PRICE,
  'pcm-update-price': PCM_UPDATE_PRICE,
  'pcm-delete-price': PCM_DELETE_PRICE,
  'pcm-create-price-modifier': PCM_CREATE_PRICE_MODIFIER,
  'pcm-list-price-modifiers': PCM_LIST_PRICE_MODIFIERS,
  'pcm-get-price-modifier': PCM_GET_PRICE_MODIFIER,
  'pcm-update-price-modifier': PCM_UPDATE_PRICE_MODIFIER,
  'pcm-delete-price-modifier': PCM_DELETE_PRICE_MODIFIER,
  'pcm-create-product': PCM_CREATE_PRODUCT,
  'pcm-list-products': PCM_LIST_PRODUCTS,
  'pcm-get-product': PCM_GET_PRODUCT,
  'pcm-get-component-products': PCM_GET_COMPONENT_PRODUCTS,
  'pcm-update-product': PCM_UPDATE_PRODUCT,
  'pcm-delete-product': PCM_DELETE_PRODUCT,
  'pcm-get-product-variations': PCM_GET_PRODUCT_VARIATIONS,
  'pcm-create-product-variations': PCM_CREATE_PRODUCT_VARIATIONS,
  'pcm-update-product-variations': PCM_UPDATE_PRODUCT_VARIATIONS,
  'pcm-delete-product-variations': PCM_DELETE_PRODUCT_VARIATIONS,
  'pcm-get-child-products': PCM_GET_CHILD_PRODUCTS,
  'pcm-build-child-products': PCM_BUILD_CHILD_PRODUCTS,
  'pcm-list-jobs': PCM_LIST_JOBS,
  'pcm-get-job': PCM_GET_JOB,
  'pcm-get-job-errors': PCM_GET_JOB_ERRORS,
  'pcm-cancel-job': PCM_CANCEL_JOB,
  'pcm-get-product-main-image': PCM_GET_PRODUCT_MAIN_IMAGE,
  'pcm-write-product-main-image': PCM_WRITE_PRODUCT_MAIN_IMAGE,
  'pcm-get-product-files': PCM_GET_PRODUCT_FILES,
  'pcm-write-product-files': PCM_WRITE_PRODUCT_FILES,
  'pcm-create-hierarchy': PCM_CREATE_HIERARCHY,
  'pcm-list-hierarchies': PCM_LIST_HIERARCHIES,
  'pcm-get-hierarchy': PCM_GET_HIERARCHY,
  'pcm-update-hierarchy': PCM_UPDATE_HIERARCHY,
  'pcm-delete-hierarchy': PCM_DELETE_HIERARCHY,
  'pcm-create-node': PCM_CREATE_NODE,
  'pcm-list-nodes': PCM_LIST_NODES,
  'pcm-get-node': PCM_GET_NODE,
  'pcm-update-node': PCM_UPDATE_NODE,
  'pcm-delete-node': PCM_DELETE_NODE,
  'pcm-list-hierarchy-children': PCM_LIST_HIERARCHY_CHILDREN,
  'pcm-list-node-children': PCM_LIST_NODE_CHILDREN,
  'pcm-create-node-children': PCM_CREATE_NODE_CHILDREN,
  'pcm-write-node-parent': PCM_WRITE_NODE_PARENT,
  'pcm-delete-node-parent': PCM_DELETE_NODE_PARENT,
  'pcm-write-node-products': PCM_WRITE_NODE_PRODUCTS,
  'pcm-list-node-products': PCM_LIST_NODE_PRODUCTS,
  'pcm-list-product-nodes': PCM_LIST_PRODUCT_NODES,
  'pcm-import-products': PCM_IMPORT_PRODUCTS,
  'pcm-import-prices': PCM_IMPORT_PRICES,
  'pcm-create-import-upload': PCM_CREATE_IMPORT_UPLOAD,
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
