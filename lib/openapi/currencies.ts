import type { Schema } from '../schema/index';
import { MAX_CURRENCIES_PER_STORE } from '../store/currency-repository';
import { CURRENCY_REQUIRED, CURRENCY_UPDATE_SCHEMA, NEW_CURRENCY_SCHEMA } from '../validation/currency';
import {
  type HeaderSpec,
  listDocumentSchema,
  type OperationSpec,
  pageParameters,
  pathIdParameter,
} from './operation';
import { ERROR_BODY_SCHEMA, SELF_LINKS_SCHEMA, timestampsSchema } from './schemas';

/** The platform's currencies (`/v2/currencies`, legacy flat format; docs/currencies.md). */

const TAG = 'Currencies' as const;

export const CURRENCY_SCHEMA: Schema = {
  type: 'object',
  required: ['id', ...CURRENCY_REQUIRED, 'links', 'meta'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'currency' },
    code: { type: 'string', description: 'As sent.' },
    exchange_rate: { type: 'number' },
    format: { type: 'string' },
    decimal_point: { type: 'string' },
    thousand_separator: { type: 'string' },
    decimal_places: { type: 'integer' },
    default: { type: 'boolean', description: 'Exactly one currency of the store is the default.' },
    enabled: { type: 'boolean' },
    links: SELF_LINKS_SCHEMA,
    meta: {
      type: 'object',
      required: ['owner', 'timestamps'],
      additionalProperties: false,
      properties: { owner: { const: 'store' }, timestamps: timestampsSchema('created_at', 'updated_at') },
    },
  },
};

const document: Schema = { type: 'object', required: ['data'], properties: { data: CURRENCY_SCHEMA } };
const LOCATION: HeaderSpec = { description: 'The URL of the new currency.', schema: { type: 'string' } };
const CURRENCY_ID = pathIdParameter('currency_id', 'currency');
const PAGE = pageParameters(25);
const CONFLICT: [string, Schema] = [
  'Concurrent writes kept conflicting (`write conflict, please retry`): nothing was written.',
  ERROR_BODY_SCHEMA,
];

export const CURRENCY_OPERATIONS: Record<string, OperationSpec> = {
  'POST /v2/currencies': {
    operationId: 'createACurrency',
    summary: 'Add a currency',
    description: `Every field, directly under \`data\` (no \`attributes\`). A store has at most ${MAX_CURRENCIES_PER_STORE} currencies; codes are unique in it without regard to case. Its first currency is the default (whatever \`default\` says); \`default: true\` on a later one makes it the default and unsets the previous one. The default must be enabled.`,
    tag: TAG,
    requestBody: NEW_CURRENCY_SCHEMA,
    responses: {
      201: ['The new currency.', document, { Location: LOCATION }],
      409: CONFLICT,
      422: [
        `A field breaks its rule (\`source\` names it), the store has ${MAX_CURRENCIES_PER_STORE} currencies already (\`Currency limit reached\`), or the currency would be a disabled default. A code the store has is 400 \`Currency already exists\`.`,
        ERROR_BODY_SCHEMA,
      ],
    },
  },
  'GET /v2/currencies': {
    operationId: 'getAllCurrencies',
    summary: "List the store's currencies",
    description: 'Oldest first.',
    tag: TAG,
    parameters: PAGE,
    responses: {
      200: [
        'A page of currencies, with `meta.results.total` and `meta.page`.',
        listDocumentSchema(CURRENCY_SCHEMA),
      ],
    },
  },
  'GET /v2/currencies/{currency_id}': {
    operationId: 'getACurrency',
    summary: 'Get a currency',
    description: 'One currency of the store.',
    tag: TAG,
    parameters: [CURRENCY_ID],
    responses: { 200: ['The currency.', document] },
  },
  'PUT /v2/currencies/{currency_id}': {
    operationId: 'updateACurrency',
    summary: 'Update a currency',
    description:
      "Only the fields sent change (none sent: nothing changes). `default: true` makes it the default, unsetting the previous one; `default: false` on the default and disabling the default are 422 (make another currency the default instead). A new code must not be another currency's (400 `Currency already exists`).",
    tag: TAG,
    parameters: [CURRENCY_ID],
    requestBody: CURRENCY_UPDATE_SCHEMA,
    responses: {
      200: ['The currency.', document],
      409: ['`data.id` is not the id of the path, or concurrent writes kept conflicting.', ERROR_BODY_SCHEMA],
      422: [
        'A field breaks its rule, or the change would leave the store without an enabled default.',
        ERROR_BODY_SCHEMA,
      ],
    },
  },
  'DELETE /v2/currencies/{currency_id}': {
    operationId: 'deleteACurrency',
    summary: 'Delete a currency',
    description: 'Not the default: make another currency the default first.',
    tag: TAG,
    parameters: [CURRENCY_ID],
    responses: {
      204: ['Deleted.'],
      409: CONFLICT,
      422: ['It is the default currency: nothing was deleted.', ERROR_BODY_SCHEMA],
    },
  },
};
