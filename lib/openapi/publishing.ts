import { MAX_DOCUMENT_BYTES } from '../http/middleware';
import { pageParameterSchemas } from '../pagination/index';
import type { Schema } from '../schema/index';
import {
  CATALOG_UPDATE_SCHEMA,
  MAX_CATALOGS_PER_STORE,
  NEW_CATALOG_SCHEMA,
  NEW_RELEASE_SCHEMA,
} from '../validation/pcm-catalog';
import type { HeaderSpec, OperationSpec, Parameter } from './operation';
import { DELTA_RELATIONSHIP, ERROR_BODY_SCHEMA, IS_FULL_DELTA, IS_FULL_PUBLISH } from './schemas';

/** The platform's catalog and release API (`/pcm/catalogs`, docs/catalog-api.md). */

export const DATE: Schema = { type: 'string', format: 'date-time' };
export const LOCATION: HeaderSpec = {
  description: 'The URL of the new resource.',
  schema: { type: 'string' },
};

export const PCM_CATALOG_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'relationships', 'links', 'meta'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'catalog' },
    attributes: {
      type: 'object',
      required: ['name', 'description', 'hierarchy_ids', 'pricebook_id', 'created_at', 'updated_at', 'owner'],
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        hierarchy_ids: { type: 'array', items: { type: 'string' } },
        pricebook_id: { type: ['string', 'null'] },
        pricebook_ids: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'priority'],
            properties: { id: { type: 'string', format: 'uuid' }, priority: { type: 'integer' } },
          },
          description: 'The price books by priority, when the catalog takes several.',
        },
        created_at: DATE,
        updated_at: DATE,
        owner: { const: 'store' },
      },
    },
    relationships: { type: 'object' },
    links: { type: 'object', required: ['self'], properties: { self: { type: 'string' } } },
    meta: {
      type: 'object',
      required: ['document', 'publishing_release_id'],
      properties: {
        document: {
          type: ['object', 'null'],
          description: 'The document the next release publishes: its size and when it was stored.',
        },
        publishing_release_id: { type: ['string', 'null'], description: 'The release being published.' },
      },
    },
  },
};

export const PCM_RELEASE_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'links', 'meta'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'catalog-release' },
    attributes: {
      type: 'object',
      required: ['name', 'published_at', 'catalog_id', 'description', 'hierarchies'],
      properties: {
        name: { type: 'string' },
        published_at: { type: ['string', 'null'] },
        catalog_id: { type: 'string' },
        description: { type: 'string' },
        hierarchies: { type: 'array' },
      },
    },
    relationships: {
      type: 'object',
      description:
        'Present once the release is PUBLISHED and has a delta file (docs/catalog-api.md, "Delta files").',
      properties: { delta: DELTA_RELATIONSHIP },
    },
    links: { type: 'object', required: ['self'], properties: { self: { type: 'string' } } },
    meta: {
      type: 'object',
      required: [
        'created_at',
        'started_at',
        'updated_at',
        'release_status',
        'is_full_publish',
        'is_full_delta',
        'total_products',
        'total_nodes',
        'percent_completed',
        'owner',
        'current',
      ],
      properties: {
        created_at: DATE,
        started_at: DATE,
        updated_at: DATE,
        release_status: { enum: ['PENDING', 'IN_PROGRESS', 'PUBLISHED', 'FAILED'] },
        is_full_publish: IS_FULL_PUBLISH,
        is_full_delta: IS_FULL_DELTA,
        total_products: { type: ['integer', 'null'] },
        total_nodes: { type: ['integer', 'null'] },
        percent_completed: { type: 'integer', minimum: 0, maximum: 100 },
        owner: { const: 'store' },
        current: {
          type: 'boolean',
          description: "Whether this is the release shoppers read (the catalog's current one).",
        },
        errors: {
          type: 'array',
          description: 'FAILED only: the first 100 issues; `source` is the JSON path in the document.',
          items: { type: 'object', required: ['status', 'title', 'detail', 'source', 'rule'] },
        },
        errors_total: { type: 'integer', description: 'FAILED only: how many issues there were.' },
        warnings: {
          type: 'array',
          description:
            "PUBLISHED only: why no shopper can ever be given the catalog (`not_selectable`: the store has catalog rules and none names this catalog, or the store has no rules and an older catalog takes every request, or every rule's schedules have ended); empty when shoppers can reach it.",
          items: {
            type: 'object',
            required: ['code', 'detail'],
            properties: { code: { const: 'not_selectable' }, detail: { type: 'string' } },
          },
        },
      },
    },
  },
};

export const DOCUMENT_UPLOAD_SCHEMA: Schema = {
  type: 'object',
  required: ['type', 'id', 'upload_url', 'expires_at', 'method', 'headers'],
  properties: {
    type: { const: 'catalog-document-upload' },
    id: { type: 'string', format: 'uuid', description: 'The upload.' },
    upload_url: {
      type: 'string',
      description:
        'A pre-signed URL of the documents bucket: `PUT` the document there, with the `headers` below (the URL is signed for them), as one request of at most 5 GB.',
    },
    expires_at: { ...DATE, description: 'When the URL stops working (15 minutes after it was issued).' },
    method: { const: 'PUT' },
    headers: {
      type: 'object',
      required: ['Content-Type'],
      properties: { 'Content-Type': { const: 'application/json' } },
    },
  },
};

const document = (data: Schema): Schema => ({ type: 'object', required: ['data'], properties: { data } });
const list = (item: Schema): Schema => ({
  type: 'object',
  required: ['data', 'links', 'meta'],
  properties: { data: { type: 'array', items: item }, links: { type: 'object' }, meta: { type: 'object' } },
});

const CATALOG_ID: Parameter = {
  name: 'catalog_id',
  in: 'path',
  required: true,
  description: "The catalog. An unknown id or another store's answers 404.",
  schema: { type: 'string' },
};
const RELEASE_ID: Parameter = {
  name: 'release_id',
  in: 'path',
  required: true,
  description: 'The release.',
  schema: { type: 'string' },
};
export const PAGE: Parameter[] = (() => {
  const schemas = pageParameterSchemas({ defaultLimit: 25 });
  return [
    { name: 'page[limit]', in: 'query', schema: schemas.limit },
    { name: 'page[offset]', in: 'query', schema: schemas.offset },
  ];
})();

export const PUBLISHING_OPERATIONS: Record<string, OperationSpec> = {
  'POST /pcm/catalogs': {
    operationId: 'createCatalog',
    summary: 'Create a catalog',
    description: `A catalog: authored when it names hierarchies (its releases publish their live attached products, priced from its price books: docs/catalog-api.md), else published from the release document \`PUT …/document\` stores. The hierarchies and price books must be the store's (422). A store holds at most ${MAX_CATALOGS_PER_STORE} catalogs (409 past it).`,
    tag: 'Catalog publishing',
    requestBody: NEW_CATALOG_SCHEMA,
    responses: {
      201: ['The new catalog.', document(PCM_CATALOG_SCHEMA), { Location: LOCATION }],
      409: [`The store has ${MAX_CATALOGS_PER_STORE} catalogs already.`, ERROR_BODY_SCHEMA],
      422: [
        "A hierarchy or price book is not the store's, one is named twice, or both `pricebook_id` and `pricebook_ids` are sent.",
        ERROR_BODY_SCHEMA,
      ],
    },
  },
  'GET /pcm/catalogs': {
    operationId: 'getCatalogs',
    summary: "List the store's catalogs",
    description: 'Oldest first.',
    tag: 'Catalog publishing',
    parameters: PAGE,
    responses: { 200: ['A page of catalogs.', list(PCM_CATALOG_SCHEMA)] },
  },
  'GET /pcm/catalogs/{catalog_id}': {
    operationId: 'getCatalogById',
    summary: 'Get a catalog',
    description: 'With the size of its current document and the release being published, if any.',
    tag: 'Catalog publishing',
    parameters: [CATALOG_ID],
    responses: { 200: ['The catalog.', document(PCM_CATALOG_SCHEMA)] },
  },
  'PUT /pcm/catalogs/{catalog_id}': {
    operationId: 'updateCatalog',
    summary: 'Update a catalog',
    description:
      "Any of its attributes; `data.id`, when given, must be the path's (409 otherwise). Setting `pricebook_id` clears `pricebook_ids` and the other way round.",
    tag: 'Catalog publishing',
    parameters: [CATALOG_ID],
    requestBody: CATALOG_UPDATE_SCHEMA,
    responses: {
      200: ['The catalog.', document(PCM_CATALOG_SCHEMA)],
      409: [
        '`data.id` is not the id of the path, or hierarchies for a catalog that has a document (or an upload pending).',
        ERROR_BODY_SCHEMA,
      ],
      422: [
        "A hierarchy or price book is not the store's, one is named twice, or both `pricebook_id` and `pricebook_ids` are sent.",
        ERROR_BODY_SCHEMA,
      ],
    },
  },
  'DELETE /pcm/catalogs/{catalog_id}': {
    operationId: 'deleteCatalogById',
    summary: 'Delete a catalog',
    description:
      'Only a catalog without releases that no catalog rule names (change or delete the rules first).',
    tag: 'Catalog publishing',
    parameters: [CATALOG_ID],
    responses: {
      204: ['Deleted.'],
      409: ['The catalog has releases, or catalog rules name it.', ERROR_BODY_SCHEMA],
    },
  },
  'PUT /pcm/catalogs/{catalog_id}/document': {
    operationId: 'putCatalogDocument',
    summary: "Store the catalog's release document",
    description: `The release document (the JSON Schema \`npm run catalog -- validate\` checks; docs/catalog.md), up to ${MAX_DOCUMENT_BYTES} bytes, stored as sent. The next release publishes it; it is validated then.`,
    tag: 'Catalog publishing',
    parameters: [CATALOG_ID],
    requestBody: { type: 'object', description: 'A release document (docs/catalog.md).' },
    responses: {
      200: ['The catalog, with the size of its document.', document(PCM_CATALOG_SCHEMA)],
      409: ['The catalog names hierarchies: it publishes them, not a document.', ERROR_BODY_SCHEMA],
    },
  },
  'POST /pcm/catalogs/{catalog_id}/document-uploads': {
    operationId: 'createCatalogDocumentUpload',
    summary: 'Upload a larger release document',
    description: `For a document over the ${MAX_DOCUMENT_BYTES} bytes \`PUT …/document\` takes: a pre-signed URL to \`PUT\` it straight to object storage, valid for 15 minutes. The catalog's next release takes the uploaded document in as the catalog's document, when it was stored after the current one; an upload never made leaves the document as it is. The upload is not checked when it arrives: invalid JSON fails the release, with the line and column in \`meta.errors\`. A newer upload request replaces an older one. The upload is refused (and discarded) once the application key that asked for it is deleted: its URL may still work, but no release takes its file in. No request body.`,
    tag: 'Catalog publishing',
    parameters: [CATALOG_ID],
    responses: {
      201: ['Where and how to upload the document.', document(DOCUMENT_UPLOAD_SCHEMA)],
      409: ['The catalog names hierarchies: it publishes them, not a document.', ERROR_BODY_SCHEMA],
    },
  },
  'POST /pcm/catalogs/{catalog_id}/releases': {
    operationId: 'publishRelease',
    summary: 'Publish the catalog',
    description:
      "Answers 201 at once with `release_status` `PENDING`; poll the release: `IN_PROGRESS` with `percent_completed`, then `PUBLISHED` (the catalog serves it) or `FAILED` with `meta.errors`. An authored catalog (one naming hierarchies) publishes the live products attached to them as they are now, priced from its price books; another publishes its document, and a document uploaded (`…/document-uploads`) after the current one becomes the catalog's document first. The body is optional.",
    tag: 'Catalog publishing',
    parameters: [CATALOG_ID],
    requestBody: NEW_RELEASE_SCHEMA,
    requestBodyOptional: true,
    responses: {
      201: ['The new release.', document(PCM_RELEASE_SCHEMA), { Location: LOCATION }],
      409: [
        'The catalog has no document and names no hierarchies, a release of it is being published, or its pending upload was asked for by an application key deleted since (the upload is discarded).',
        ERROR_BODY_SCHEMA,
      ],
    },
  },
  'GET /pcm/catalogs/{catalog_id}/releases': {
    operationId: 'getReleases',
    summary: "List the catalog's releases",
    description:
      'Newest first: the three newest releases (being published, published or failed) that were not deleted, the current one always among them.',
    tag: 'Catalog publishing',
    parameters: [CATALOG_ID, ...PAGE],
    responses: { 200: ['A page of releases.', list(PCM_RELEASE_SCHEMA)] },
  },
  'GET /pcm/catalogs/{catalog_id}/releases/{release_id}': {
    operationId: 'getReleaseById',
    summary: 'Get a release',
    description: '`latestPublished` names the newest published release.',
    tag: 'Catalog publishing',
    parameters: [CATALOG_ID, RELEASE_ID],
    responses: { 200: ['The release.', document(PCM_RELEASE_SCHEMA)] },
  },
  'DELETE /pcm/catalogs/{catalog_id}/releases/{release_id}': {
    operationId: 'deleteReleaseById',
    summary: 'Delete a release',
    description:
      'Gone from the API at once; its items are reclaimed once no shopper can still be reading it (a minute after it was replaced). Deleting the current release rolls the catalog back to the newest published release before it, in one write with the registry shoppers read, or unpublishes the catalog when there is none. Not one being published.',
    tag: 'Catalog publishing',
    parameters: [CATALOG_ID, RELEASE_ID],
    responses: {
      204: ['Deleted.'],
      409: ['The release is being published, or concurrent writes kept conflicting.', ERROR_BODY_SCHEMA],
    },
  },
  'DELETE /pcm/catalogs/{catalog_id}/releases': {
    operationId: 'deleteReleases',
    summary: "Delete the catalog's releases",
    description:
      "Every release but one being published, each as `DELETE …/releases/{release_id}` deletes it: the catalog is unpublished (shoppers get what the store's other catalogs and rules give them).",
    tag: 'Catalog publishing',
    parameters: [CATALOG_ID],
    responses: {
      204: ['Deleted.'],
      409: ['Concurrent writes kept conflicting.', ERROR_BODY_SCHEMA],
    },
  },
};
