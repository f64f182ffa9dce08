import type { Schema } from '../schema/index';
import { MAX_PRICEBOOKS_PER_STORE } from '../store/pricebook-repository';
import {
  NEW_PRICE_MODIFIER_SCHEMA,
  NEW_PRICE_SCHEMA,
  PRICE_MODIFIER_TYPE,
  PRICE_MODIFIER_UPDATE_SCHEMA,
  PRICE_RESPONSE_BYTES_MAX,
  PRICE_TYPE,
  PRICE_UPDATE_SCHEMA,
} from '../validation/price';
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
    parameters: [
      PRICEBOOK_ID,
      {
        name: 'include',
        in: 'query',
        description:
          "`prices`: the book's first 100 prices (oldest first) in `included`, and `meta.prices` (`total`, `included`). Any other value is a 400.",
        schema: { type: 'string', enum: ['prices'] },
      },
    ],
    responses: {
      200: ['The price book.', document],
      400: ['An include other than `prices`.', ERROR_BODY_SCHEMA],
    },
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
    description:
      'Frees its name at once, then deletes its prices and price modifiers (100 items a round) before answering.',
    tag: TAG,
    parameters: [PRICEBOOK_ID],
    responses: {
      204: ['Deleted.'],
      409: ['Concurrent writes kept conflicting: nothing was deleted.', ERROR_BODY_SCHEMA],
    },
  },
};

const ENTRY_META: Schema = {
  type: 'object',
  required: ['owner', 'pricebook_id'],
  additionalProperties: false,
  properties: { owner: { const: 'store' }, pricebook_id: { type: 'string', format: 'uuid' } },
};
const entrySchema = (type: string, attributes: Schema, extra: Record<string, Schema> = {}): Schema => ({
  type: 'object',
  required: ['id', 'type', 'attributes', 'meta'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: type },
    attributes,
    meta: ENTRY_META,
    ...extra,
  },
});
const attributesOf = (schema: Schema): Schema => {
  const attributes = (schema.properties?.data?.properties?.attributes ?? {}) as Schema;
  return {
    type: 'object',
    required: [...(attributes.required ?? []), 'created_at', 'updated_at'],
    additionalProperties: false,
    properties: { ...attributes.properties, created_at: DATE, updated_at: DATE },
  };
};
export const PRICE_SCHEMA = entrySchema(PRICE_TYPE, attributesOf(NEW_PRICE_SCHEMA), {
  pricebook_external_ref: {
    type: 'string',
    description: "Across books only: the book's external_ref, when it has one.",
  },
});
export const PRICE_MODIFIER_SCHEMA = entrySchema(
  PRICE_MODIFIER_TYPE,
  attributesOf(NEW_PRICE_MODIFIER_SCHEMA),
);

const entryDocument = (item: Schema): Schema => ({
  type: 'object',
  required: ['data', 'links'],
  properties: {
    data: item,
    links: { type: 'object', required: ['self'], properties: { self: { type: 'string' } } },
  },
});
const filterParameter = (what: string): Parameter => ({
  name: 'filter',
  in: 'query',
  description: `${what}, in the filter grammar of the product list (\`:\` joins expressions, AND). sku and id compare without regard to case.`,
  schema: { type: 'string' },
});
const PRICE_ID = pathIdParameter('price_id', 'price');
const MODIFIER_ID = pathIdParameter('modifier_id', 'price modifier');
const BAD_LIST: [string, Schema] = ['A bad filter or page.', ERROR_BODY_SCHEMA];
const SIZE = `A price's or modifier's attributes may take at most ${PRICE_RESPONSE_BYTES_MAX} bytes as a response counts them.`;

/** Create, list, get, update and delete of one kind of book entry. */
function entryOperations(
  kind: {
    path: string;
    id: Parameter;
    what: string;
    operation: string;
    schema: Schema;
    unique: string;
    filter: string;
  },
  bodies: { create: Schema; update: Schema },
): Record<string, OperationSpec> {
  const item = `/pcm/pricebooks/{pricebook_id}/${kind.path}/{${kind.id.name}}`;
  const document = entryDocument(kind.schema);
  return {
    [`POST /pcm/pricebooks/{pricebook_id}/${kind.path}`]: {
      operationId: `create${kind.operation}`,
      summary: `Create a ${kind.what}`,
      description: `${kind.unique} ${SIZE}`,
      tag: TAG,
      parameters: [PRICEBOOK_ID],
      requestBody: bodies.create,
      responses: {
        201: [
          `The new ${kind.what}.`,
          document,
          { Location: { description: 'Its URL.', schema: { type: 'string' } } },
        ],
        409: [
          `${kind.unique} Or concurrent writes kept conflicting: nothing was written.`,
          ERROR_BODY_SCHEMA,
        ],
        422: INVALID,
      },
    },
    [`GET /pcm/pricebooks/{pricebook_id}/${kind.path}`]: {
      operationId: `get${kind.operation}s`,
      summary: `List a price book's ${kind.what}s`,
      description: 'Oldest first; `meta.results.total` counts what the filter matches.',
      tag: TAG,
      parameters: [PRICEBOOK_ID, ...PAGE, filterParameter(kind.filter)],
      responses: { 200: [`A page of ${kind.what}s.`, listDocumentSchema(kind.schema)], 400: BAD_LIST },
    },
    [`GET ${item}`]: {
      operationId: `get${kind.operation}`,
      summary: `Get a ${kind.what}`,
      description: `One ${kind.what} of a price book of the store.`,
      tag: TAG,
      parameters: [PRICEBOOK_ID, kind.id],
      responses: { 200: [`The ${kind.what}.`, document] },
    },
    [`PUT ${item}`]: {
      operationId: `update${kind.operation}`,
      summary: `Update a ${kind.what}`,
      description: "Only the attributes sent change. `data.id`, when sent, must be the path's.",
      tag: TAG,
      parameters: [PRICEBOOK_ID, kind.id],
      requestBody: bodies.update,
      responses: {
        200: [`The ${kind.what}.`, document],
        409: [
          `\`data.id\` is not the path's; ${kind.unique} Or concurrent writes kept conflicting.`,
          ERROR_BODY_SCHEMA,
        ],
        422: INVALID,
      },
    },
    [`DELETE ${item}`]: {
      operationId: `delete${kind.operation}`,
      summary: `Delete a ${kind.what}`,
      description: 'Frees what it claimed at once.',
      tag: TAG,
      parameters: [PRICEBOOK_ID, kind.id],
      responses: {
        204: ['Deleted.'],
        409: ['Concurrent writes kept conflicting: nothing was deleted.', ERROR_BODY_SCHEMA],
      },
    },
  };
}

export const PRICE_OPERATIONS: Record<string, OperationSpec> = {
  'GET /pcm/pricebooks/prices': {
    operationId: 'getAllPrices',
    summary: 'List the prices of every price book',
    description:
      "Books oldest first, each book's prices oldest first; each price carries its book's `external_ref` as `pricebook_external_ref`. `gt`/`lt` on dates are not served (a 400).",
    tag: TAG,
    parameters: [
      ...PAGE,
      filterParameter('`eq` and `in` on id, sku, external_ref; `like` on sku, external_ref'),
    ],
    responses: { 200: ['A page of prices.', listDocumentSchema(PRICE_SCHEMA)], 400: BAD_LIST },
  },
  ...entryOperations(
    {
      path: 'prices',
      id: PRICE_ID,
      what: 'price',
      operation: 'ProductPrice',
      schema: PRICE_SCHEMA,
      unique:
        "One price per sku in a book (compared without regard to case): another price's sku is a 409 naming data.attributes.sku.",
      filter: '`eq` on sku, external_ref; `in` on sku',
    },
    { create: NEW_PRICE_SCHEMA, update: PRICE_UPDATE_SCHEMA },
  ),
  ...entryOperations(
    {
      path: 'modifiers',
      id: MODIFIER_ID,
      what: 'price modifier',
      operation: 'PriceModifier',
      schema: PRICE_MODIFIER_SCHEMA,
      unique:
        "Names are unique in the book (compared exactly): another modifier's name is a 409 naming data.attributes.name.",
      filter: '`eq` on name, external_ref',
    },
    { create: NEW_PRICE_MODIFIER_SCHEMA, update: PRICE_MODIFIER_UPDATE_SCHEMA },
  ),
};
