import { APPLICATION_KEYS_DEFAULT_LIMIT } from '../application-keys/render';
import type { AuthRequirement } from '../auth/middleware';
import {
  CURRENCY_HEADER_SCHEMA,
  INCLUDE_SCHEMA,
  SVC_CHANNEL_SCHEMA,
  SVC_CONTEXT_TAG_SCHEMA,
} from '../catalog/child-list-response';
import { MAX_FILTER_BYTES, MAX_FILTER_EXPRESSIONS } from '../filter/index';
import { type BodyKind, bodyMediaTypes, maxBodyBytes } from '../http/middleware';
import { pageParameterSchemas } from '../pagination/index';
import type { Schema } from '../schema/index';
import { ACCESS_TOKEN_REQUEST_SCHEMA } from '../validation/access-token';
import { APPLICATION_KEY_UPDATE_SCHEMA, NEW_APPLICATION_KEY_SCHEMA } from '../validation/application-key';
import { MAPPING_UPDATE_SCHEMA } from '../validation/merchant-realm-mapping';
import { CATALOG_RULE_OPERATIONS } from './catalog-rules';
import { CURRENCY_OPERATIONS } from './currencies';
import { FILE_OPERATIONS } from './files';
import { HIERARCHY_OPERATIONS } from './hierarchies';
import { INTEGRATION_OPERATIONS } from './integrations';
import { JOB_OPERATIONS } from './jobs';
import { NAVIGATION_OPERATIONS } from './navigation';
import { NODE_OPERATIONS } from './nodes';
import {
  type HeaderSpec,
  OPERATION_TAGS,
  type OperationSpec,
  type OperationTag,
  type Parameter,
} from './operation';
import { PRICE_OPERATIONS, PRICEBOOK_OPERATIONS } from './pricebooks';
import { PRODUCT_OPERATIONS } from './products';
import { PUBLISHING_OPERATIONS } from './publishing';
import {
  ACCESS_TOKEN_SCHEMA,
  APPLICATION_KEY_DOCUMENT_SCHEMA,
  APPLICATION_KEY_LIST_SCHEMA,
  CATALOG_RELEASE_DOCUMENT_SCHEMA,
  CHILD_PRODUCT_LIST_SCHEMA,
  COMPONENT_SCHEMAS,
  CREATED_APPLICATION_KEY_SCHEMA,
  ERROR_BODY_SCHEMA,
  MERCHANT_REALM_MAPPING_DOCUMENT_SCHEMA,
  PRODUCT_DOCUMENT_SCHEMA,
} from './schemas';
import { VARIATION_OPERATIONS } from './variations';

type Json = Record<string, unknown>;

const KEY_ID: Parameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: "The key's id. Another store's id answers 404, as an unknown one does.",
  schema: { type: 'string' },
};
const MAPPING_ID: Parameter = {
  name: 'mapping_id',
  in: 'path',
  required: true,
  description: "The mapping's id. Another store's id answers 404, as an unknown one does.",
  schema: { type: 'string' },
};

function pageParameters(defaultLimit: number | string): Parameter[] {
  const schemas = pageParameterSchemas({ defaultLimit: 0 });
  return [
    {
      name: 'page[limit]',
      in: 'query',
      description: `Records per page (default: ${defaultLimit}).`,
      schema: schemas.limit,
    },
    { name: 'page[offset]', in: 'query', description: 'Records to skip.', schema: schemas.offset },
  ];
}

const LOCATION: HeaderSpec = {
  description: 'The URL of the new resource.',
  schema: { type: 'string' },
  required: true,
};

/** The shopper context, language and currency headers every catalog read takes. */
const SHOPPER_HEADERS: Parameter[] = [
  {
    name: 'SVC-Channel',
    in: 'header',
    description:
      "Required unless the store's `channel_required` setting is false (`npm run admin -- set-channel-header`); a request without one then matches only catalog rules that name no channel.",
    schema: SVC_CHANNEL_SCHEMA,
  },
  { name: 'SVC-Context-Tag', in: 'header', schema: SVC_CONTEXT_TAG_SCHEMA },
  {
    name: 'Accept-Language',
    in: 'header',
    description:
      "Picks the text locale among the product's; otherwise the store's default locale. `X-Moltin-Language` is read when this header is absent.",
    schema: { type: 'string' },
  },
  {
    name: 'X-Moltin-Language',
    in: 'header',
    description: "What the official SDK's `language` option sends: used when `Accept-Language` is absent.",
    schema: { type: 'string' },
  },
  { name: 'EP-Currency', in: 'header', schema: CURRENCY_HEADER_SCHEMA },
  {
    name: 'X-Moltin-Currency',
    in: 'header',
    description: "What the official SDK's `currency` option sends; `EP-Currency` wins when both are sent.",
    schema: { type: 'string' },
  },
];

const CATALOG_FILTER_PARAMETER: Parameter = {
  name: 'filter',
  in: 'query',
  description: `e.g. \`eq(slug,blue-shirt)\` or \`in(id,ID1,ID2)\`: \`eq\`/\`in\` over id, name, sku, slug, manufacturer_part_num, upc_ean, product_types and tags; at most ${MAX_FILTER_EXPRESSIONS} expressions joined by \`:\` (AND). See docs/filtering.md.`,
  schema: { type: 'string', description: `At most ${MAX_FILTER_BYTES} bytes (UTF-8).` },
};

/** The storefront's catalog reads besides the child list. */
const CATALOG_PRODUCT_OPERATIONS: Record<string, OperationSpec> = {
  'GET /catalog': {
    operationId: 'getCatalogRelease',
    summary: 'Get the catalog release the shopper context selects',
    description:
      'The current release of the catalog the catalog rules select for the channel, tag and time (as every catalog read selects it).',
    tag: 'Catalog',
    parameters: SHOPPER_HEADERS,
    responses: {
      200: ['The release.', CATALOG_RELEASE_DOCUMENT_SCHEMA],
      404: ['No catalog for this context.', ERROR_BODY_SCHEMA],
    },
  },
  'GET /catalog/products': {
    operationId: 'getAllProducts',
    summary: 'List the live products of the selected release',
    description:
      'In publish order (with `in(id,…)`: oldest `updated_at` first), filtered and paginated like the child list. `id`, `slug` and `sku` terms are answered from lookups built at publish time.',
    tag: 'Catalog',
    parameters: [
      CATALOG_FILTER_PARAMETER,
      ...pageParameters("the store's page length"),
      { name: 'include', in: 'query', schema: INCLUDE_SCHEMA },
      ...SHOPPER_HEADERS,
    ],
    responses: {
      200: ['A page of live products.', CHILD_PRODUCT_LIST_SCHEMA],
      404: ['No catalog for this context.', ERROR_BODY_SCHEMA],
    },
  },
  'GET /catalog/products/{product_id}': {
    operationId: 'getProduct',
    summary: 'Get one live product of the selected release',
    description: 'Rendered as the child list renders products; `include` adds `included`.',
    tag: 'Catalog',
    parameters: [
      {
        name: 'product_id',
        in: 'path',
        required: true,
        description: "The product. A draft, an unknown id or another store's product answers 404.",
        schema: { type: 'string' },
      },
      { name: 'include', in: 'query', schema: INCLUDE_SCHEMA },
      ...SHOPPER_HEADERS,
    ],
    responses: {
      200: ['The product.', PRODUCT_DOCUMENT_SCHEMA],
      404: ['No catalog for this context, or no such live product.', ERROR_BODY_SCHEMA],
    },
  },
};

/** One entry per route of the route table; building the document fails if a route has none. */
const OPERATIONS: Record<string, OperationSpec> = {
  'POST /oauth/access_token': {
    operationId: 'createAccessToken',
    summary: 'Get an access token',
    description:
      "`client_credentials` (client id and secret) gives an admin token for the key's store; `implicit` (client id only) gives a storefront token that can read the catalog. Form-encoded or JSON; a repeated form parameter is 400 `invalid_request`.",
    tag: 'Authentication',
    requestBody: ACCESS_TOKEN_REQUEST_SCHEMA,
    responses: {
      200: ['A bearer token.', ACCESS_TOKEN_SCHEMA],
      401: ['Unknown client id or wrong secret ("Invalid client credentials").', ERROR_BODY_SCHEMA],
    },
  },
  'GET /v2/application-keys': {
    operationId: 'listApplicationKeys',
    summary: "List the store's application keys",
    description:
      "Oldest first, with the number of keys (of the filtered list, with `filter`) and the sum of the reserved rate limits of all the store's keys.",
    tag: 'Application keys',
    parameters: [
      {
        name: 'filter',
        in: 'query',
        description:
          "e.g. `eq(name,Storefront)` or `in(client_id,abc,def)`: `eq`/`in` over name and client_id, joined by `:` (AND); the catalog's grammar (docs/filtering.md). A `client_id` filter reads only those keys; a `name`-only filter reads all the store's keys (docs/application-keys.md).",
        schema: { type: 'string', description: `At most ${MAX_FILTER_BYTES} bytes (UTF-8).` },
      },
      ...pageParameters(APPLICATION_KEYS_DEFAULT_LIMIT),
    ],
    responses: { 200: ['A page of keys.', APPLICATION_KEY_LIST_SCHEMA] },
  },
  'POST /v2/application-keys': {
    operationId: 'createApplicationKey',
    summary: 'Create an application key',
    description: 'The response is the only place the client secret ever appears.',
    tag: 'Application keys',
    requestBody: NEW_APPLICATION_KEY_SCHEMA,
    responses: {
      201: ['The new key, with its client secret.', CREATED_APPLICATION_KEY_SCHEMA, { Location: LOCATION }],
      409: [
        "The reserved rate limits would exceed the store's limit, the store already holds its most keys (MAX_KEYS_PER_STORE, default 1,000), or a write conflict persisted (nothing written).",
        ERROR_BODY_SCHEMA,
      ],
    },
  },
  'GET /v2/application-keys/{id}': {
    operationId: 'getApplicationKey',
    summary: 'Get an application key',
    description: 'Never shows the client secret.',
    tag: 'Application keys',
    parameters: [KEY_ID],
    responses: { 200: ['The key.', APPLICATION_KEY_DOCUMENT_SCHEMA] },
  },
  'PUT /v2/application-keys/{id}': {
    operationId: 'updateApplicationKey',
    summary: 'Update an application key',
    description: 'Renames the key and/or changes its reserved rate limit.',
    tag: 'Application keys',
    parameters: [KEY_ID],
    requestBody: APPLICATION_KEY_UPDATE_SCHEMA,
    responses: {
      200: ['The updated key.', APPLICATION_KEY_DOCUMENT_SCHEMA],
      409: [
        "The reserved rate limits would exceed the store's limit, or a write conflict persisted (nothing written).",
        ERROR_BODY_SCHEMA,
      ],
    },
  },
  'DELETE /v2/application-keys/{id}': {
    operationId: 'deleteApplicationKey',
    summary: 'Delete an application key',
    description:
      'Revokes its credentials; its tokens can write nothing from now on (containers may accept them for reads for up to 2 s).',
    tag: 'Application keys',
    parameters: [KEY_ID],
    responses: {
      204: ['Deleted.'],
      409: ['A write conflict persisted (nothing written).', ERROR_BODY_SCHEMA],
    },
  },
  'GET /v2/merchant-realm-mappings': {
    operationId: 'getStoreMerchantRealmMapping',
    summary: "Get the store's merchant realm mapping",
    description: 'Every store has exactly one mapping; this returns it as an object.',
    tag: 'Merchant realm mappings',
    responses: { 200: ['The mapping.', MERCHANT_REALM_MAPPING_DOCUMENT_SCHEMA] },
  },
  'GET /v2/merchant-realm-mappings/{mapping_id}': {
    operationId: 'getMerchantRealmMapping',
    summary: 'Get a merchant realm mapping',
    description: "The store's mapping by id.",
    tag: 'Merchant realm mappings',
    parameters: [MAPPING_ID],
    responses: { 200: ['The mapping.', MERCHANT_REALM_MAPPING_DOCUMENT_SCHEMA] },
  },
  'PUT /v2/merchant-realm-mappings/{mapping_id}': {
    operationId: 'updateMerchantRealmMapping',
    summary: "Set the mapping's prefix",
    description: 'Prefixes are unique across all stores, compared without case; the old prefix is released.',
    tag: 'Merchant realm mappings',
    parameters: [MAPPING_ID],
    requestBody: MAPPING_UPDATE_SCHEMA,
    responses: {
      200: ['The updated mapping.', MERCHANT_REALM_MAPPING_DOCUMENT_SCHEMA],
      409: ['The prefix is in use by another store, or a write conflict persisted.', ERROR_BODY_SCHEMA],
    },
  },
  'GET /catalog/products/{product_id}/relationships/children': {
    operationId: 'getProductChildren',
    summary: "List a base product's live children",
    description:
      'From the catalog the shopper context selects (catalog rules match the channel, tag and time), in publish order, filtered and paginated.',
    tag: 'Catalog',
    parameters: [
      {
        name: 'product_id',
        in: 'path',
        required: true,
        description: 'The base (parent) product.',
        schema: { type: 'string' },
      },
      {
        name: 'filter',
        in: 'query',
        description: `e.g. \`eq(sku,ABC-1):in(tags,sale,new)\`: \`eq\`/\`in\` over id, name, sku, slug, manufacturer_part_num, upc_ean, product_types and tags; at most ${MAX_FILTER_EXPRESSIONS} expressions joined by \`:\` (AND). See docs/filtering.md.`,
        schema: { type: 'string', description: `At most ${MAX_FILTER_BYTES} bytes (UTF-8).` },
      },
      ...pageParameters("the store's page length"),
      { name: 'include', in: 'query', schema: INCLUDE_SCHEMA },
      ...SHOPPER_HEADERS,
    ],
    responses: {
      200: ['A page of live children.', CHILD_PRODUCT_LIST_SCHEMA],
      404: ['No catalog for this context, or no such live product.', ERROR_BODY_SCHEMA],
      422: ['The product is not a base product.', ERROR_BODY_SCHEMA],
    },
  },
  ...CATALOG_PRODUCT_OPERATIONS,
  ...NAVIGATION_OPERATIONS,
  ...PUBLISHING_OPERATIONS,
  ...FILE_OPERATIONS,
  ...CURRENCY_OPERATIONS,
  ...PRODUCT_OPERATIONS,
  ...PRICEBOOK_OPERATIONS,
  ...PRICE_OPERATIONS,
  ...CATALOG_RULE_OPERATIONS,
  ...VARIATION_OPERATIONS,
  ...HIERARCHY_OPERATIONS,
  ...NODE_OPERATIONS,
  ...JOB_OPERATIONS,
  ...INTEGRATION_OPERATIONS,
};

const SECURITY_RESPONSE_HEADERS: Record<string, HeaderSpec> = {
  'X-Content-Type-Options': {
    description: 'Always `nosniff`.',
    schema: { const: 'nosniff' },
    required: true,
  },
  'Strict-Transport-Security': {
    description: 'HTTPS only.',
    schema: { type: 'string', pattern: '^max-age=\\d+' },
    required: true,
  },
};
const NO_STORE: Record<string, HeaderSpec> = {
  'Cache-Control': { description: 'Never cached.', schema: { const: 'no-store' }, required: true },
};
const RETRY_AFTER: Record<string, HeaderSpec> = {
  'Retry-After': {
    description: 'Whole seconds to wait before retrying (at least 1).',
    schema: { type: 'string', pattern: '^[1-9]\\d*$' },
    required: true,
  },
};
const WHOLE_NUMBER = { type: 'string', pattern: '^(0|[1-9]\\d*)$' } as const;
/**
 * The caller's allowance (docs/rate-limits.md), on every response to a request that was counted against a
 * store: absent where no key is known yet (a 401, a malformed token request) or the limiter failed open
 * before knowing the limits.
 */
const RATE_LIMIT_HEADERS: Record<string, HeaderSpec> = {
  'X-RateLimit-Limit': {
    description: "Requests per second this key may make: its reservation plus the store's unreserved pool.",
    schema: WHOLE_NUMBER,
  },
  'X-RateLimit-Remaining': {
    description: 'About how many of them are left in the current one-second window (an estimate).',
    schema: WHOLE_NUMBER,
  },
  'X-RateLimit-Reset': {
    description: 'Whole seconds until the current window ends and the allowance is whole again (at least 1).',
    schema: { type: 'string', pattern: '^[1-9]\\d*$' },
  },
};

/** Replaces every registered component object (by identity) below the top with a `$ref`. */
function withRefs(schema: Schema, top?: Schema): unknown {
  if (schema !== top) {
    for (const [name, component] of Object.entries(COMPONENT_SCHEMAS)) {
      if (component === schema) return { $ref: `#/components/schemas/${name}` };
    }
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([name, child]) => [name, withRefs(child)]),
      );
    } else if (key === 'items' || key === 'additionalProperties') {
      out[key] = typeof value === 'object' ? withRefs(value as Schema) : value;
    } else if (key === 'anyOf' || key === 'oneOf') {
      out[key] = (value as Schema[]).map((branch) => withRefs(branch));
    } else {
      out[key] = value;
    }
  }
  if (out.discriminator && Array.isArray(out.oneOf)) {
    // OpenAPI's discriminator mapping: each grant value to its branch.
    const mapping: Record<string, string> = {};
    const property = (out.discriminator as { propertyName: string }).propertyName;
    for (const [index, branch] of (schema.oneOf ?? []).entries()) {
      const tag = branch.properties?.[property]?.const;
      const ref = (out.oneOf as Json[])[index]?.$ref;
      if (typeof tag === 'string' && typeof ref === 'string') mapping[tag] = ref;
    }
    out.discriminator = { propertyName: property, mapping };
  }
  return out;
}

/** Named headers, published once under `components.headers` and referred to from every response. */
const COMPONENT_HEADERS: Record<string, HeaderSpec> = {
  XContentTypeOptions: SECURITY_RESPONSE_HEADERS['X-Content-Type-Options'] as HeaderSpec,
  StrictTransportSecurity: SECURITY_RESPONSE_HEADERS['Strict-Transport-Security'] as HeaderSpec,
  CacheControlNoStore: NO_STORE['Cache-Control'] as HeaderSpec,
  RetryAfter: RETRY_AFTER['Retry-After'] as HeaderSpec,
  XRateLimitLimit: RATE_LIMIT_HEADERS['X-RateLimit-Limit'] as HeaderSpec,
  XRateLimitRemaining: RATE_LIMIT_HEADERS['X-RateLimit-Remaining'] as HeaderSpec,
  XRateLimitReset: RATE_LIMIT_HEADERS['X-RateLimit-Reset'] as HeaderSpec,
  Location: LOCATION,
};

function headerObject(spec: HeaderSpec): Json {
  return { description: spec.description, required: spec.required ?? false, schema: withRefs(spec.schema) };
}

function headersObject(headers: Record<string, HeaderSpec>): Json {
  return Object.fromEntries(
    Object.entries(headers).map(([name, spec]) => {
      const component = Object.entries(COMPONENT_HEADERS).find(([, known]) => known === spec)?.[0];
      return [name, component ? { $ref: `#/components/headers/${component}` } : headerObject(spec)];
    }),
  );
}

const errorResponse = (description: string, headers: Record<string, HeaderSpec>) => ({
  description,
  headers: headersObject(headers),
  content: { 'application/json': { schema: withRefs(ERROR_BODY_SCHEMA) } },
});

function operationObject(route: DocumentedRoute, definition: DocumentedFunction, spec: OperationSpec): Json {
  const common = {
    ...SECURITY_RESPONSE_HEADERS,
    ...(definition.auth === 'any' ? {} : NO_STORE),
    ...RATE_LIMIT_HEADERS,
  };
  const responses: Json = {};
  for (const [status, [description, schema, headers]] of Object.entries(spec.responses)) {
    responses[status] =
      schema === ERROR_BODY_SCHEMA
        ? errorResponse(description, common)
        : {
            description,
            headers: headersObject({ ...common, ...headers }),
            ...(schema ? { content: { 'application/json': { schema: withRefs(schema) } } } : {}),
          };
  }
  if ((spec.requestBody !== undefined) !== (definition.body !== undefined)) {
    throw new Error(`${route.function}: the route table and the document disagree on a request body`);
  }
  const generic: [number, string, Record<string, HeaderSpec>?][] = [];
  if (spec.requestBody !== undefined || (spec.parameters ?? []).some((p) => p.in !== 'path')) {
    generic.push([400, 'A parameter, header or body field is invalid; `source` names it.']);
  }
  if (definition.auth !== 'none') generic.push([401, 'Missing, malformed, unknown or expired bearer token.']);
  if (definition.auth === 'admin') generic.push([403, 'A storefront (implicit) token on an admin route.']);
  if ((spec.parameters ?? []).some((p) => p.in === 'path'))
    generic.push([404, 'No such resource in this store.']);
  if (definition.body !== undefined) {
    generic.push(
      [
        413,
        definition.body === 'document'
          ? `The body is over ${maxBodyBytes(definition.body) / 1024} KiB: a larger document is uploaded (POST /pcm/catalogs/{catalog_id}/document-uploads).`
          : `The body is over ${maxBodyBytes(definition.body) / 1024} KiB.`,
      ],
      [
        415,
        definition.body === 'json-or-multipart' || definition.body === 'upload'
          ? 'The body is neither JSON nor multipart/form-data, or a JSON body declares a charset other than UTF-8.'
          : 'The body is not JSON (or form-encoded, for the token endpoint), or declares a charset other than UTF-8.',
      ],
    );
  }
  generic.push(
    [
      429,
      definition.auth === 'none'
        ? "Over the key's rate limit (counted by `client_id`), or too many failed secrets for this `client_id` (10 a minute); retry after `Retry-After` seconds. Nothing was done."
        : "Over the key's allowance (its reservation plus the store's shared pool, per second); retry after `Retry-After` seconds. Nothing was done.",
      RETRY_AFTER,
    ],
    [500, 'Something unexpected; the detail is generic and the request id is logged.'],
    [503, 'DynamoDB is throttled or unavailable; retry after `Retry-After` seconds.', RETRY_AFTER],
  );
  for (const [status, description, headers] of generic) {
    responses[String(status)] ??= errorResponse(description, { ...common, ...headers });
  }
  const body = definition.body;
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    ...(definition.auth === 'none'
      ? { security: [] }
      : { security: [{ [definition.auth === 'admin' ? 'adminToken' : 'anyToken']: [] }] }),
    ...(spec.parameters
      ? { parameters: spec.parameters.map((p) => ({ ...p, schema: withRefs(p.schema) })) }
      : {}),
    ...(spec.requestBody
      ? {
          requestBody: {
            required: spec.requestBodyOptional !== true,
            content: Object.fromEntries(
              bodyMediaTypes(body ?? 'json').map((type) => [
                type,
                {
                  schema: withRefs(
                    (type === 'multipart/form-data' ? spec.formBody : undefined) ??
                      (spec.requestBody as Schema),
                  ),
                },
              ]),
            ),
          },
        }
      : {}),
    responses,
    'x-function': route.function,
  };
}

/** A route of the route table (`functions/routes.ts`), as far as the document needs it. */
export interface DocumentedRoute {
  method: string;
  path: string;
  function: string;
}

/** A function of the route table: who may call it, which bodies it takes, what it does. */
export interface DocumentedFunction {
  auth: AuthRequirement;
  body?: BodyKind;
  description: string;
}

/** The route table the document is built from (passed in: `lib/` never imports `functions/`). */
export interface RouteTable {
  routes: readonly DocumentedRoute[];
  functions: Readonly<Record<string, DocumentedFunction>>;
}

function functionOf(functions: RouteTable['functions'], route: DocumentedRoute): DocumentedFunction {
  const definition = functions[route.function];
  if (!definition) throw new Error(`the route table has no function ${route.function}`);
  return definition;
}

/** "Commerce API: " and every tag, in words, so the title grows with what the API serves. */
export function documentTitle(): string {
  const names = OPERATION_TAGS.map((tag) => tag.toLowerCase());
  return `Commerce API: ${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * The OpenAPI 3.1 document of every route, built from the route table (paths, methods, who may call),
 * the schemas the handlers validate with, and the response schemas the test suites check responses
 * against. `openapi.json` is this document, committed; a test fails when it is stale.
 */
export function buildOpenApiDocument({ routes, functions }: RouteTable): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const spec = operationOf(route);
    paths[route.path] ??= {};
    (paths[route.path] as Json)[route.method.toLowerCase()] = operationObject(
      route,
      functionOf(functions, route),
      spec,
    );
  }
  for (const key of Object.keys(OPERATIONS)) {
    if (!routes.some((route) => `${route.method} ${route.path}` === key)) {
      throw new Error(`the OpenAPI document describes ${key}, which is not in the route table`);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: documentTitle(),
      version: '0.1.0',
      description:
        'Compatible with the commerce API the official `@elasticpath/js-sdk` calls. Errors are `{"errors": [{status, title, detail, source?, request_id}]}`.',
    },
    servers: [{ url: 'http://127.0.0.1:3000', description: 'npm start (the local harness)' }],
    tags: OPERATION_TAGS.map((name) => ({ name })),
    paths,
    components: {
      schemas: Object.fromEntries(
        Object.entries(COMPONENT_SCHEMAS).map(([name, schema]) => [name, withRefs(schema, schema)]),
      ),
      headers: Object.fromEntries(
        Object.entries(COMPONENT_HEADERS).map(([name, spec]) => [name, headerObject(spec)]),
      ),
      securitySchemes: {
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'A `client_credentials` token from POST /oauth/access_token.',
        },
        anyToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'Any token of the store: `client_credentials` or `implicit`.',
        },
      },
    },
  };
}

/** The part of the API (its tag in the document) a route belongs to; throws for a route the document lacks. */
export function routeTag(route: DocumentedRoute): OperationTag {
  return operationOf(route).tag;
}

function operationOf(route: DocumentedRoute): OperationSpec {
  const key = `${route.method} ${route.path}`;
  const spec = OPERATIONS[key];
  if (!spec) throw new Error(`the OpenAPI document has no operation for ${key}`);
  return spec;
}
