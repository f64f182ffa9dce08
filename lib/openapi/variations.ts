import { pageParameterSchemas } from '../pagination/index';
import type { Schema } from '../schema/index';
import {
  MODIFIER_TYPES,
  MODIFIER_UPDATE_SCHEMA,
  NEW_MODIFIER_SCHEMA,
  NEW_OPTION_SCHEMA,
  NEW_VARIATION_SCHEMA,
  OPTION_UPDATE_SCHEMA,
  VARIATION_UPDATE_SCHEMA,
} from '../validation/variation';
import type { OperationSpec, Parameter } from './operation';
import { dataDocument, ERROR_BODY_SCHEMA, pageOf } from './schemas';

/** The platform's variations, their options and the options' modifiers (docs/variations.md). */

const DATE: Schema = { type: 'string', format: 'date-time' };
const SORT_ORDER: Schema = { type: 'integer', description: 'Absent when not set.' };
const TAG = 'Variations' as const;

export const VARIATION_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'meta'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'product-variation' },
    attributes: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, sort_order: SORT_ORDER },
    },
    meta: {
      type: 'object',
      required: ['options', 'owner', 'created_at', 'updated_at'],
      properties: {
        options: {
          type: 'array',
          description: 'The options, oldest first.',
          items: {
            type: 'object',
            required: ['id', 'name', 'description', 'created_at', 'updated_at'],
            properties: {
              id: { type: 'string', format: 'uuid' },
              name: { type: 'string' },
              description: { type: 'string' },
              sort_order: SORT_ORDER,
              created_at: DATE,
              updated_at: DATE,
            },
          },
        },
        owner: { const: 'store' },
        created_at: DATE,
        updated_at: DATE,
      },
    },
  },
};

export const OPTION_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'meta'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'product-variation-option' },
    attributes: {
      type: 'object',
      required: ['name', 'description'],
      properties: { name: { type: 'string' }, description: { type: 'string' }, sort_order: SORT_ORDER },
    },
    meta: {
      type: 'object',
      required: ['owner', 'modifiers', 'created_at', 'updated_at'],
      properties: {
        owner: { const: 'store' },
        modifiers: {
          type: 'array',
          description:
            'The modifiers, oldest first, each `{<type>: value}`: `{sku_builder: {seek, set}}`, `{price: reference_name}`.',
          items: { type: 'object' },
        },
        created_at: DATE,
        updated_at: DATE,
      },
    },
  },
};

export const MODIFIER_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'meta'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'product-variation-modifier' },
    attributes: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { enum: MODIFIER_TYPES },
        value: { anyOf: [{ type: 'string' }, { type: 'object' }] },
        seek: { type: 'string' },
        set: { type: 'string' },
        reference_name: { type: 'string' },
      },
    },
    meta: { type: 'object', required: ['owner'], properties: { owner: { const: 'store' } } },
  },
};

const document = dataDocument;
const list = pageOf;
const id = (name: string, what: string): Parameter => ({
  name,
  in: 'path',
  required: true,
  description: `The ${what}. An unknown id or another store's answers 404.`,
  schema: { type: 'string' },
});
const VARIATION_ID = id('variation_id', 'variation');
const OPTION_ID = id('option_id', 'option');
const MODIFIER_ID = id('modifier_id', 'modifier');
const PAGE: Parameter[] = (() => {
  const schemas = pageParameterSchemas({ defaultLimit: 25 });
  return [
    { name: 'page[limit]', in: 'query', schema: schemas.limit },
    { name: 'page[offset]', in: 'query', schema: schemas.offset },
  ];
})();
const MISMATCH: [string, Schema] = ['`data.id` is not the id of the path.', ERROR_BODY_SCHEMA];
const WRONG_SHAPE: [string, Schema] = [
  "The value fields do not fit the modifier's type (`value` missing, `seek`/`set` on a non-builder, …).",
  ERROR_BODY_SCHEMA,
];

const V = '/pcm/variations';
const O = `${V}/{variation_id}/options`;
const M = `${O}/{option_id}/modifiers`;

export const VARIATION_OPERATIONS: Record<string, OperationSpec> = {
  [`POST ${V}`]: {
    operationId: 'createVariation',
    summary: 'Create a variation',
    description: 'A variation without options.',
    tag: TAG,
    requestBody: NEW_VARIATION_SCHEMA,
    responses: { 201: ['The new variation.', document(VARIATION_SCHEMA)] },
  },
  [`GET ${V}`]: {
    operationId: 'getAllVariations',
    summary: "List the store's variations",
    description: 'Oldest first, each with its options in `meta.options`.',
    tag: TAG,
    parameters: PAGE,
    responses: { 200: ['A page of variations.', list(VARIATION_SCHEMA)] },
  },
  [`GET ${V}/{variation_id}`]: {
    operationId: 'getVariation',
    summary: 'Get a variation',
    description: 'With its options in `meta.options`.',
    tag: TAG,
    parameters: [VARIATION_ID],
    responses: { 200: ['The variation.', document(VARIATION_SCHEMA)] },
  },
  [`PUT ${V}/{variation_id}`]: {
    operationId: 'updateVariation',
    summary: 'Update a variation',
    description: 'The attributes sent; `sort_order: null` removes it.',
    tag: TAG,
    parameters: [VARIATION_ID],
    requestBody: VARIATION_UPDATE_SCHEMA,
    responses: { 200: ['The variation.', document(VARIATION_SCHEMA)], 409: MISMATCH },
  },
  [`DELETE ${V}/{variation_id}`]: {
    operationId: 'deleteVariation',
    summary: 'Delete a variation',
    description: 'With its options and their modifiers; not while a product links it.',
    tag: TAG,
    parameters: [VARIATION_ID],
    responses: {
      204: ['Deleted.'],
      422: ['One or more variations are currently in use: a product links the variation.', ERROR_BODY_SCHEMA],
    },
  },
  [`POST ${O}`]: {
    operationId: 'createOption',
    summary: 'Add an option to a variation',
    description: 'Option names are A-Z, a-z, 0-9, `-`, `_` and `.`.',
    tag: TAG,
    parameters: [VARIATION_ID],
    requestBody: NEW_OPTION_SCHEMA,
    responses: { 201: ['The new option.', document(OPTION_SCHEMA)] },
  },
  [`GET ${O}`]: {
    operationId: 'getAllOptions',
    summary: "List a variation's options",
    description: 'Oldest first, each with its modifiers in `meta.modifiers`.',
    tag: TAG,
    parameters: [VARIATION_ID, ...PAGE],
    responses: { 200: ['A page of options.', list(OPTION_SCHEMA)] },
  },
  [`GET ${O}/{option_id}`]: {
    operationId: 'getOption',
    summary: 'Get an option',
    description: 'With its modifiers in `meta.modifiers`.',
    tag: TAG,
    parameters: [VARIATION_ID, OPTION_ID],
    responses: { 200: ['The option.', document(OPTION_SCHEMA)] },
  },
  [`PUT ${O}/{option_id}`]: {
    operationId: 'updateOption',
    summary: 'Update an option',
    description: 'The attributes sent; `sort_order: null` removes it.',
    tag: TAG,
    parameters: [VARIATION_ID, OPTION_ID],
    requestBody: OPTION_UPDATE_SCHEMA,
    responses: { 200: ['The option.', document(OPTION_SCHEMA)], 409: MISMATCH },
  },
  [`DELETE ${O}/{option_id}`]: {
    operationId: 'deleteOption',
    summary: 'Delete an option',
    description: 'With its modifiers.',
    tag: TAG,
    parameters: [VARIATION_ID, OPTION_ID],
    responses: { 204: ['Deleted.'] },
  },
  [`POST ${M}`]: {
    operationId: 'createModifier',
    summary: 'Add a modifier to an option',
    description:
      '`value` for the value types (`physical`/`digital` for `commodity_type`, `draft`/`live` for `status`, an object for `custom_inputs_equals`, `build_rules_equals` and `locales_equals`), `seek` and `set` for `sku_builder` and `slug_builder`, `reference_name` for `price`.',
    tag: TAG,
    parameters: [VARIATION_ID, OPTION_ID],
    requestBody: NEW_MODIFIER_SCHEMA,
    responses: { 201: ['The new modifier.', document(MODIFIER_SCHEMA)], 422: WRONG_SHAPE },
  },
  [`GET ${M}`]: {
    operationId: 'getAllModifiers',
    summary: "List an option's modifiers",
    description: 'Oldest first.',
    tag: TAG,
    parameters: [VARIATION_ID, OPTION_ID, ...PAGE],
    responses: { 200: ['A page of modifiers.', list(MODIFIER_SCHEMA)] },
  },
  [`GET ${M}/{modifier_id}`]: {
    operationId: 'getModifier',
    summary: 'Get a modifier',
    description: 'Its type and value fields.',
    tag: TAG,
    parameters: [VARIATION_ID, OPTION_ID, MODIFIER_ID],
    responses: { 200: ['The modifier.', document(MODIFIER_SCHEMA)] },
  },
  [`PUT ${M}/{modifier_id}`]: {
    operationId: 'updateModifier',
    summary: 'Update a modifier',
    description: 'Its whole new definition: type and the value fields that type takes.',
    tag: TAG,
    parameters: [VARIATION_ID, OPTION_ID, MODIFIER_ID],
    requestBody: MODIFIER_UPDATE_SCHEMA,
    responses: {
      200: ['The modifier.', document(MODIFIER_SCHEMA)],
      409: MISMATCH,
      422: WRONG_SHAPE,
    },
  },
  [`DELETE ${M}/{modifier_id}`]: {
    operationId: 'deleteModifier',
    summary: 'Delete a modifier',
    description: 'Only the modifier.',
    tag: TAG,
    parameters: [VARIATION_ID, OPTION_ID, MODIFIER_ID],
    responses: { 204: ['Deleted.'] },
  },
};
