import { MAX_RULES_PER_STORE, RULES_MAX_BYTES } from '../catalog/registry-size';
import type { Schema } from '../schema/index';
import { CATALOG_RULE_UPDATE_SCHEMA, NEW_CATALOG_RULE_SCHEMA } from '../validation/catalog-rule';
import {
  type HeaderSpec,
  listDocumentSchema,
  type OperationSpec,
  pageParameters,
  pathIdParameter,
} from './operation';
import { ERROR_BODY_SCHEMA } from './schemas';

/** The platform's catalog rules (`/pcm/catalogs/rules`, docs/catalog-rules.md). */

const TAG = 'Catalog rules' as const;
const DATE: Schema = { type: 'string', format: 'date-time' };
const STRINGS: Schema = { type: 'array', items: { type: 'string' } };

export const CATALOG_RULE_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'links', 'meta'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'catalog_rule' },
    attributes: {
      type: 'object',
      required: [
        'name',
        'catalog_id',
        'account_ids',
        'customer_ids',
        'channels',
        'tags',
        'schedules',
        'created_at',
        'updated_at',
      ],
      additionalProperties: false,
      properties: {
        name: { type: 'string' },
        description: { type: 'string', description: 'Absent when never set.' },
        catalog_id: { type: 'string', format: 'uuid' },
        account_ids: STRINGS,
        customer_ids: STRINGS,
        channels: STRINGS,
        tags: STRINGS,
        schedules: {
          type: 'array',
          items: {
            type: 'object',
            required: ['valid_from', 'valid_to'],
            additionalProperties: false,
            properties: {
              valid_from: { type: ['string', 'null'], format: 'date-time' },
              valid_to: { type: ['string', 'null'], format: 'date-time' },
            },
          },
        },
        created_at: DATE,
        updated_at: DATE,
      },
    },
    links: { type: 'object', required: ['self'], properties: { self: { type: 'string' } } },
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
    data: CATALOG_RULE_SCHEMA,
    links: { type: 'object', required: ['self'], properties: { self: { type: 'string' } } },
  },
};
const LOCATION: HeaderSpec = { description: 'The URL of the new rule.', schema: { type: 'string' } };
const RULE_ID = pathIdParameter('catalog_rule_id', 'catalog rule');
const INVALID: [string, Schema] = [
  'An attribute breaks its rule, is unknown or is missing, or `catalog_id` is not a catalog of the store (`source` names it): nothing was written.',
  ERROR_BODY_SCHEMA,
];
const EFFECT =
  'Shoppers are matched against the new rules at once, without a republish (within the few seconds a container reuses the registry it read).';

export const CATALOG_RULE_OPERATIONS: Record<string, OperationSpec> = {
  'POST /pcm/catalogs/rules': {
    operationId: 'createRule',
    summary: 'Create a catalog rule',
    description: `\`name\` (no spaces) and \`catalog_id\` (a catalog of the store) are required. A store holds at most ${MAX_RULES_PER_STORE} rules, taking at most ${RULES_MAX_BYTES} bytes together. ${EFFECT}`,
    tag: TAG,
    requestBody: NEW_CATALOG_RULE_SCHEMA,
    responses: {
      201: ['The new rule.', document, { Location: LOCATION }],
      409: [
        `The store has ${MAX_RULES_PER_STORE} rules or its rules would take more than ${RULES_MAX_BYTES} bytes, or concurrent writes kept conflicting: nothing was written.`,
        ERROR_BODY_SCHEMA,
      ],
      422: INVALID,
    },
  },
  'GET /pcm/catalogs/rules': {
    operationId: 'getRules',
    summary: "List the store's catalog rules",
    description: 'Oldest first; `filter=in(id,…)` (or `eq(id,…)`) keeps the rules of those ids.',
    tag: TAG,
    parameters: [
      ...pageParameters(25),
      {
        name: 'filter',
        in: 'query',
        description: '`in(id,…)` or `eq(id,…)`: only those rules.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      200: [
        'A page of rules, with `meta.results.total` and `meta.page`.',
        listDocumentSchema(CATALOG_RULE_SCHEMA),
      ],
    },
  },
  'GET /pcm/catalogs/rules/{catalog_rule_id}': {
    operationId: 'getRuleByID',
    summary: 'Get a catalog rule',
    description: 'One catalog rule of the store.',
    tag: TAG,
    parameters: [RULE_ID],
    responses: { 200: ['The rule.', document] },
  },
  'PUT /pcm/catalogs/rules/{catalog_rule_id}': {
    operationId: 'updateRule',
    summary: 'Update a catalog rule',
    description: `\`data.id\` (the path's) and \`type\` are required; only the attributes sent change. ${EFFECT}`,
    tag: TAG,
    parameters: [RULE_ID],
    requestBody: CATALOG_RULE_UPDATE_SCHEMA,
    responses: {
      200: ['The rule.', document],
      409: [
        "`data.id` is not the path's, the rules would take too many bytes, or concurrent writes kept conflicting.",
        ERROR_BODY_SCHEMA,
      ],
      422: INVALID,
    },
  },
  'DELETE /pcm/catalogs/rules/{catalog_rule_id}': {
    operationId: 'deleteRuleByID',
    summary: 'Delete a catalog rule',
    description: EFFECT,
    tag: TAG,
    parameters: [RULE_ID],
    responses: {
      204: ['Deleted.'],
      409: ['Concurrent writes kept conflicting: nothing was deleted.', ERROR_BODY_SCHEMA],
    },
  },
};
