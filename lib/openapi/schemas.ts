import type { Schema } from '../schema/index';
import {
  ACCESS_TOKEN_REQUEST_SCHEMA,
  CLIENT_CREDENTIALS_GRANT_SCHEMA,
  IMPLICIT_GRANT_SCHEMA,
} from '../validation/access-token';
import { APPLICATION_KEY_UPDATE_SCHEMA, NEW_APPLICATION_KEY_SCHEMA } from '../validation/application-key';
import { MAPPING_UPDATE_SCHEMA } from '../validation/merchant-realm-mapping';

/*
 * Response schemas: what the handlers' renderers produce, published in the OpenAPI document and checked
 * against every response of the integration and e2e suites (test/support/openapi.ts). Request schemas
 * are imported from lib/validation, where the handlers compile them: one object, two uses.
 */

const UUID: Schema = { type: 'string', format: 'uuid' };
const DATE_TIME: Schema = { type: 'string', format: 'date-time' };
const URL_OR_NULL: Schema = { type: ['string', 'null'] };

export const ERROR_OBJECT_SCHEMA: Schema = {
  type: 'object',
  required: ['status', 'title', 'detail', 'request_id'],
  additionalProperties: false,
  properties: {
    status: { type: 'string', pattern: '^[45][0-9]{2}$', description: 'The HTTP status, as a string.' },
    title: { type: 'string', description: "The status's name, e.g. `Bad Request`." },
    detail: { type: 'string', description: 'What went wrong, in words; never internals or secrets.' },
    source: { type: 'string', description: 'The field, parameter or header at fault, e.g. `data.prefix`.' },
    request_id: { type: 'string', description: 'Quote it when asking for support; it is on every log line.' },
  },
};

export const ERROR_BODY_SCHEMA: Schema = {
  type: 'object',
  required: ['errors'],
  additionalProperties: false,
  properties: { errors: { type: 'array', minItems: 1, items: ERROR_OBJECT_SCHEMA } },
};

const TIMESTAMPS: Schema = {
  type: 'object',
  required: ['created_at', 'updated_at', 'last_used_at'],
  properties: {
    created_at: DATE_TIME,
    updated_at: DATE_TIME,
    last_used_at: { type: ['string', 'null'], format: 'date-time' },
  },
};

const APPLICATION_KEY_FIELDS: Record<string, Schema> = {
  id: UUID,
  type: { const: 'application_key' },
  name: { type: 'string' },
  client_id: { type: 'string' },
  reserved_rate_limit: { type: 'integer', minimum: 0 },
  meta: { type: 'object', required: ['timestamps'], properties: { timestamps: TIMESTAMPS } },
};

export const APPLICATION_KEY_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'name', 'client_id', 'reserved_rate_limit', 'meta'],
  // Never a client secret: only the create response shows it.
  additionalProperties: false,
  properties: APPLICATION_KEY_FIELDS,
};

const SELF_LINK: Schema = { type: 'object', required: ['self'], properties: { self: { type: 'string' } } };

export const APPLICATION_KEY_DOCUMENT_SCHEMA: Schema = {
  type: 'object',
  required: ['data', 'links'],
  properties: { data: APPLICATION_KEY_SCHEMA, links: SELF_LINK },
};

export const CREATED_APPLICATION_KEY_SCHEMA: Schema = {
  type: 'object',
  required: ['data', 'links'],
  properties: {
    data: {
      type: 'object',
      required: ['id', 'type', 'name', 'client_id', 'client_secret', 'reserved_rate_limit', 'meta'],
      additionalProperties: false,
      properties: {
        ...APPLICATION_KEY_FIELDS,
        client_secret: {
          type: 'string',
          description: 'Shown once, in this response only; only its hash is stored.',
        },
      },
    },
    links: SELF_LINK,
  },
};

const PAGE_META: Schema = {
  type: 'object',
  required: ['limit', 'offset', 'current', 'total'],
  properties: {
    limit: { type: 'integer', minimum: 1 },
    offset: { type: 'integer', minimum: 0 },
    current: { type: 'integer', minimum: 1 },
    total: { type: 'integer', minimum: 1 },
  },
};

const RESULTS: Schema = {
  type: 'object',
  required: ['total'],
  properties: { total: { type: 'integer', minimum: 0 } },
};

export const APPLICATION_KEY_LIST_SCHEMA: Schema = {
  type: 'object',
  required: ['data', 'links', 'meta'],
  properties: {
    data: { type: 'array', items: APPLICATION_KEY_SCHEMA },
    links: {
      type: 'object',
      required: ['current', 'first', 'last', 'next', 'prev'],
      description: 'Absolute URLs; `next`/`prev` are null at the edges.',
      properties: {
        current: { type: 'string' },
        first: { type: 'string' },
        last: { type: 'string' },
        next: URL_OR_NULL,
        prev: URL_OR_NULL,
      },
    },
    meta: {
      type: 'object',
      required: ['page', 'results', 'total_reserved_rate_limit'],
      properties: {
        page: PAGE_META,
        results: RESULTS,
        total_reserved_rate_limit: { type: 'integer', minimum: 0 },
      },
    },
  },
};

export const MERCHANT_REALM_MAPPING_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'prefix', 'realm_id', 'store_id'],
  additionalProperties: false,
  properties: {
    id: UUID,
    type: { const: 'merchant-realm-mappings' },
    prefix: { type: ['string', 'null'], description: 'Null until the store sets one.' },
    realm_id: { type: 'string' },
    store_id: UUID,
  },
};

export const MERCHANT_REALM_MAPPING_DOCUMENT_SCHEMA: Schema = {
  type: 'object',
  required: ['data'],
  properties: { data: MERCHANT_REALM_MAPPING_SCHEMA },
};

export const ACCESS_TOKEN_SCHEMA: Schema = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in', 'expires', 'identifier'],
  additionalProperties: false,
  properties: {
    access_token: { type: 'string', description: 'Send it as `Authorization: Bearer <access_token>`.' },
    token_type: { const: 'Bearer' },
    expires_in: { type: 'integer', minimum: 1, description: 'Seconds until it expires.' },
    expires: { type: 'integer', description: 'When it expires, in seconds since the Unix epoch.' },
    identifier: { enum: ['client_credentials', 'implicit'] },
  },
};

export const PRODUCT_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'relationships', 'meta'],
  properties: {
    id: UUID,
    type: { const: 'product' },
    attributes: {
      type: 'object',
      required: ['name', 'slug', 'status', 'commodity_type', 'product_types', 'language'],
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        sku: { type: 'string', description: 'Absent for a product without one (a bundle, say).' },
        slug: { type: 'string' },
        status: { const: 'live' },
        commodity_type: { enum: ['physical', 'digital'] },
        base_product_id: UUID,
        product_types: { type: 'array', items: { enum: ['standard', 'parent', 'child', 'bundle'] } },
        tags: { type: 'array', items: { type: 'string' } },
        language: { type: 'string', description: 'The locale the text is in (from `accept-language`).' },
        price: { type: 'object' },
        extensions: { type: 'object' },
      },
    },
    relationships: { type: 'object' },
    meta: { type: 'object' },
  },
};

/** A file in `included.main_images[]` / `included.files[]` (the platform's file object). */
export const FILE_SCHEMA: Schema = {
  type: 'object',
  required: ['type', 'id', 'file_name', 'mime_type', 'file_size', 'link', 'meta'],
  additionalProperties: false,
  properties: {
    type: { const: 'file' },
    id: UUID,
    file_name: { type: 'string' },
    mime_type: { type: 'string' },
    file_size: { type: 'integer', minimum: 0, description: 'Bytes.' },
    link: {
      type: 'object',
      required: ['href'],
      additionalProperties: false,
      properties: { href: { type: 'string', description: 'Where the file is served.' } },
    },
    meta: {
      type: 'object',
      additionalProperties: false,
      properties: {
        dimensions: {
          type: 'object',
          required: ['width', 'height'],
          properties: { width: { type: 'integer' }, height: { type: 'integer' } },
        },
        timestamps: {
          type: 'object',
          required: ['created_at'],
          properties: { created_at: { type: 'string', format: 'date-time' } },
        },
      },
    },
  },
};

/** `included` of the child list: only the members `include` asked for, each entity once. */
export const INCLUDED_SCHEMA: Schema = {
  type: 'object',
  additionalProperties: false,
  description:
    'Present only with `include`; holds only what it names. Main images and files of the products in `data`; live component products of its bundles.',
  properties: {
    main_images: { type: 'array', items: FILE_SCHEMA },
    files: { type: 'array', items: FILE_SCHEMA },
    component_products: { type: 'array', items: PRODUCT_SCHEMA },
  },
};

export const CHILD_PRODUCT_LIST_SCHEMA: Schema = {
  type: 'object',
  required: ['data', 'meta', 'links'],
  properties: {
    data: { type: 'array', items: PRODUCT_SCHEMA },
    included: INCLUDED_SCHEMA,
    meta: {
      type: 'object',
      required: ['results', 'page'],
      properties: { results: RESULTS, page: PAGE_META },
    },
    links: {
      type: 'object',
      required: ['self', 'first', 'last', 'prev', 'next'],
      description:
        'Relative URIs keeping `filter` and `include`; `prev`/`next` null at the edges, `last` null on a single page.',
      properties: {
        self: { type: 'string' },
        first: { type: 'string' },
        last: URL_OR_NULL,
        prev: URL_OR_NULL,
        next: URL_OR_NULL,
      },
    },
  },
};

/** One product (`GET /catalog/products/{id}`): `data`, and `included` when asked for. */
export const PRODUCT_DOCUMENT_SCHEMA: Schema = {
  type: 'object',
  required: ['data'],
  properties: { data: PRODUCT_SCHEMA, included: INCLUDED_SCHEMA },
};

/** `relationships.delta` of a release: its delta file's link. */
export const DELTA_RELATIONSHIP: Schema = {
  type: 'object',
  required: ['links'],
  properties: {
    links: {
      type: 'object',
      required: ['related'],
      properties: {
        related: {
          type: 'string',
          description:
            "A pre-signed URL of the release's delta file (gzipped JSON lines), valid for one hour from the read that answered it; read the release again for a fresh one. Shown for 30 days after the release was published.",
        },
      },
    },
  },
};

export const IS_FULL_PUBLISH: Schema = {
  type: 'boolean',
  description:
    'Whether the publish wrote the whole catalog rather than what changed since the release before; true for releases published before this was recorded.',
};

export const IS_FULL_DELTA: Schema = {
  type: 'boolean',
  description:
    "Whether the release's delta file holds the whole catalog (purge and reload) rather than the changes since the release before (apply them); before the delta file is written, the create body's `export_full_delta` (default false).",
};

/** The platform's `catalog-release` resource (`GET /catalog`). */
export const CATALOG_RELEASE_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'relationships', 'meta', 'links'],
  properties: {
    id: { type: 'string', description: 'The release id.' },
    type: { const: 'catalog-release' },
    attributes: {
      type: 'object',
      required: ['name', 'description', 'catalog_id', 'published_at', 'hierarchies'],
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        catalog_id: { type: 'string' },
        pricebook_id: { type: ['string', 'null'] },
        published_at: { type: 'string', format: 'date-time' },
        hierarchies: {
          type: 'array',
          description: 'The root nodes of the release.',
          items: {
            type: 'object',
            required: ['id', 'name'],
            properties: { id: { type: 'string' }, name: { type: 'string' } },
          },
        },
      },
    },
    relationships: {
      type: 'object',
      properties: { delta: DELTA_RELATIONSHIP },
    },
    meta: {
      type: 'object',
      required: ['release_status', 'total_products', 'total_nodes'],
      properties: {
        created_at: { type: 'string' },
        started_at: { type: 'string' },
        updated_at: { type: 'string' },
        release_status: { const: 'PUBLISHED' },
        is_full_publish: IS_FULL_PUBLISH,
        is_full_delta: IS_FULL_DELTA,
        owner: { const: 'store' },
        percent_completed: { const: 100 },
        total_products: { type: 'integer', description: 'Live products.' },
        total_nodes: { type: 'integer' },
      },
    },
    links: { type: 'object', properties: { self: { type: 'string' } } },
  },
};

export const CATALOG_RELEASE_DOCUMENT_SCHEMA: Schema = {
  type: 'object',
  required: ['data'],
  properties: { data: CATALOG_RELEASE_SCHEMA },
};

/**
 * Named components of the document: wherever one of these objects appears (by identity) the document
 * says `$ref` instead of repeating it.
 */
export const COMPONENT_SCHEMAS: Record<string, Schema> = {
  Error: ERROR_OBJECT_SCHEMA,
  ErrorBody: ERROR_BODY_SCHEMA,
  AccessTokenRequest: ACCESS_TOKEN_REQUEST_SCHEMA,
  ClientCredentialsGrant: CLIENT_CREDENTIALS_GRANT_SCHEMA,
  ImplicitGrant: IMPLICIT_GRANT_SCHEMA,
  AccessToken: ACCESS_TOKEN_SCHEMA,
  ApplicationKeyCreate: NEW_APPLICATION_KEY_SCHEMA,
  ApplicationKeyUpdate: APPLICATION_KEY_UPDATE_SCHEMA,
  ApplicationKey: APPLICATION_KEY_SCHEMA,
  ApplicationKeyDocument: APPLICATION_KEY_DOCUMENT_SCHEMA,
  CreatedApplicationKeyDocument: CREATED_APPLICATION_KEY_SCHEMA,
  ApplicationKeyList: APPLICATION_KEY_LIST_SCHEMA,
  MerchantRealmMappingUpdate: MAPPING_UPDATE_SCHEMA,
  MerchantRealmMapping: MERCHANT_REALM_MAPPING_SCHEMA,
  MerchantRealmMappingDocument: MERCHANT_REALM_MAPPING_DOCUMENT_SCHEMA,
  Product: PRODUCT_SCHEMA,
  ChildProductList: CHILD_PRODUCT_LIST_SCHEMA,
  ProductDocument: PRODUCT_DOCUMENT_SCHEMA,
  CatalogRelease: CATALOG_RELEASE_SCHEMA,
  File: FILE_SCHEMA,
  Included: INCLUDED_SCHEMA,
  PageMeta: PAGE_META,
};

/** `{data}`: one resource of the platform's authoring APIs. */
export const dataDocument = (data: Schema): Schema => ({
  type: 'object',
  required: ['data'],
  properties: { data },
});

/** A page of resources of the platform's authoring APIs: `data`, `links`, `meta`. */
export const pageOf = (item: Schema): Schema => ({
  type: 'object',
  required: ['data', 'links', 'meta'],
  properties: { data: { type: 'array', items: item }, links: { type: 'object' }, meta: { type: 'object' } },
});

/** `links` of a resource that links only to itself. */
export const SELF_LINKS_SCHEMA: Schema = {
  type: 'object',
  required: ['self'],
  additionalProperties: false,
  properties: { self: { type: 'string' } },
};

/** `timestamps` with the given date-time members, all required. */
export const timestampsSchema = (...names: string[]): Schema => ({
  type: 'object',
  required: names,
  additionalProperties: false,
  properties: Object.fromEntries(names.map((name) => [name, { type: 'string', format: 'date-time' }])),
});
