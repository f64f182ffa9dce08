import type { Schema } from '../schema/index';
import { MAX_PRICEBOOKS_PER_STORE } from '../store/pricebook-repository';
import { NEW_PRICEBOOK_SCHEMA, PRICEBOOK_UPDATE_SCHEMA } from '../validation/pricebook';
import {
  type HeaderSpec,
  listDocumentSchema,
  type OperationSpec,
  type Parameter,
  pageParameters,
  pathIdParameter,
} from './operation';
import { ERROR_BODY_SCHEMA } from './schemas';

/** The platform's price books (`/pcm/pricebooks`, docs/price-books.md). */

const TAG = 'Price books' as const;
const DATE: Schema = { type: 'string', format: 'date-time' };

export const PRICEBOOK_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'meta'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'pricebook' },
    attributes: {
      type: 'object',
      required: ['name', 'created_at', 'updated_at'],
      additionalProperties: false,
      properties: {
        name: { type: 'string' },
        description: { type: 'string', description: 'Absent when never set.' },
        external_ref: { type: 'string', description: 'Absent when never set.' },
        created_at: DATE,
        updated_at: DATE,
      },
    },
    meta: {
      type: 'object',
      required: ['owner'],
      additionalProperties: false,
      properties: { owner: { const: 'store' } },
    },
  },
};

const document: Schema = {
  type: 'object',
  required: ['data', 'links'],
  properties: {
    data: PRICEBOOK_SCHEMA,
    links: { type: 'object', required: ['self'], properties: { self: { type: 'string' } } },
  },
};
const LOCATION: HeaderSpec = { description: 'The URL of the new price book.', schema: { type: 'string' } };
const PRICEBOOK_ID = pathIdParameter('pricebook_id', 'price book');
const PAGE = pageParameters(25);
/** A query parameter of the platform's that these routes refuse rather than ignore. */
const unserved = (name: string): Parameter => ({
  name,
  in: 'query',
  description: 'Not served: any value is a 400 naming it.',
  schema: { type: 'string' },
});
const INVALID: [string, Schema] = [
  'An attribute breaks its rule, is unknown or is missing (`source` names it): nothing was written.',
  ERROR_BODY_SCHEMA,
];

export const PRICEBOOK_OPERATIONS: Record<string, OperationSpec> = {
  'POST /pcm/pricebooks': {
    operationId: 'createPriceBook',
    summary: 'Create a price book',
    description: `Only \`name\` is required; it is unique in the store (compared exactly). A store holds at most ${MAX_PRICEBOOKS_PER_STORE} price books.`,
    tag: TAG,
    requestBody: NEW_PRICEBOOK_SCHEMA,
    responses: {
      201: ['The new price book.', document, { Location: LOCATION }],
      409: [
        `The name is another price book's, the store has ${MAX_PRICEBOOKS_PER_STORE} price books, or concurrent writes kept conflicting: nothing was written.`,
        ERROR_BODY_SCHEMA,
      ],
      422: INVALID,
    },
  },
  'GET /pcm/pricebooks': {
    operationId: 'getPriceBooks',
    summary: "List the store's price books",
    description: 'Oldest first.',
    tag: TAG,
    parameters: [...PAGE, unserved('filter'), unserved('include')],
    responses: {
      200: [
        'A page of price books, with `meta.results.total` and `meta.page`.',
        listDocumentSchema(PRICEBOOK_SCHEMA),
      ],
    },
  },
  'GET /pcm/pricebooks/{pricebook_id}': {
    operationId: 'getPriceBookById',
    summary: 'Get a price book',
    description: 'One price book of the store.',
    tag: TAG,
    parameters: [PRICEBOOK_ID, unserved('include')],
    responses: { 200: ['The price book.', document] },
  },
  'PUT /pcm/pricebooks/{pricebook_id}': {
    operationId: 'updatePriceBook',
    summary: 'Update a price book',
    description:
      "Only the attributes sent change (an empty `attributes` changes nothing). `data.id`, when sent, must be the path's.",
    tag: TAG,
    parameters: [PRICEBOOK_ID],
    requestBody: PRICEBOOK_UPDATE_SCHEMA,
    responses: {
      200: ['The price book.', document],
      409: [
        "`data.id` is not the path's, the new name is another price book's, or concurrent writes kept conflicting.",
        ERROR_BODY_SCHEMA,
      ],
      422: INVALID,
    },
  },
  'DELETE /pcm/pricebooks/{pricebook_id}': {
    operationId: 'deletePriceBook',
    summary: 'Delete a price book',
    description: 'Frees its name at once.',
    tag: TAG,
    parameters: [PRICEBOOK_ID],
    responses: {
      204: ['Deleted.'],
      409: ['Concurrent writes kept conflicting: nothing was deleted.', ERROR_BODY_SCHEMA],
    },
  },
};
