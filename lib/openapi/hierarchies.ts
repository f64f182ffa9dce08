import { pageParameterSchemas } from '../pagination/index';
import type { Schema } from '../schema/index';
import { HIERARCHY_UPDATE_SCHEMA, NEW_HIERARCHY_SCHEMA } from '../validation/hierarchy';
import type { OperationSpec, Parameter } from './operation';
import { dataDocument, ERROR_BODY_SCHEMA, pageOf } from './schemas';

/** The platform's hierarchies (docs/hierarchies.md). */

const DATE: Schema = { type: 'string', format: 'date-time' };
const TAG = 'Hierarchies' as const;

export const HIERARCHY_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'attributes', 'relationships', 'meta'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'hierarchy' },
    attributes: {
      type: 'object',
      required: ['name', 'description'],
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        slug: { type: 'string', description: 'Absent when not set.' },
        locales: { type: 'object', description: 'Absent when not set.' },
      },
    },
    relationships: {
      type: 'object',
      required: ['children'],
      properties: { children: { type: 'object' } },
    },
    meta: {
      type: 'object',
      required: ['created_at', 'updated_at', 'owner'],
      properties: { created_at: DATE, updated_at: DATE, owner: { const: 'store' } },
    },
  },
};

const HIERARCHY_ID: Parameter = {
  name: 'hierarchy_id',
  in: 'path',
  required: true,
  description: "The hierarchy. An unknown id or another store's answers 404.",
  schema: { type: 'string' },
};
const schemas = pageParameterSchemas({ defaultLimit: 25 });
const SLUG_TAKEN: [string, Schema] = ['Another hierarchy of the store has the slug.', ERROR_BODY_SCHEMA];
const TOO_BIG: [string, Schema] = [
  'A locale key that is not a locale, more than 100 locales, or a hierarchy over 32 KB of JSON.',
  ERROR_BODY_SCHEMA,
];

const H = '/pcm/hierarchies';

export const HIERARCHY_OPERATIONS: Record<string, OperationSpec> = {
  [`POST ${H}`]: {
    operationId: 'createHierarchy',
    summary: 'Create a hierarchy',
    description: 'A hierarchy without nodes; its slug, when given, unique in the store (any case).',
    tag: TAG,
    requestBody: NEW_HIERARCHY_SCHEMA,
    responses: { 201: ['The new hierarchy.', dataDocument(HIERARCHY_SCHEMA)], 409: SLUG_TAKEN, 422: TOO_BIG },
  },
  [`GET ${H}`]: {
    operationId: 'getAllHierarchies',
    summary: "List the store's hierarchies",
    description: 'Oldest first.',
    tag: TAG,
    parameters: [
      { name: 'page[limit]', in: 'query', schema: schemas.limit },
      { name: 'page[offset]', in: 'query', schema: schemas.offset },
    ],
    responses: {
      200: ['A page of hierarchies.', pageOf(HIERARCHY_SCHEMA)],
    },
  },
  [`GET ${H}/{hierarchy_id}`]: {
    operationId: 'getHierarchy',
    summary: 'Get a hierarchy',
    description: 'One hierarchy of the store.',
    tag: TAG,
    parameters: [HIERARCHY_ID],
    responses: { 200: ['The hierarchy.', dataDocument(HIERARCHY_SCHEMA)] },
  },
  [`PUT ${H}/{hierarchy_id}`]: {
    operationId: 'updateHierarchy',
    summary: 'Update a hierarchy',
    description: 'The attributes sent change, the others stay; `data.id` must be the id of the path.',
    tag: TAG,
    parameters: [HIERARCHY_ID],
    requestBody: HIERARCHY_UPDATE_SCHEMA,
    responses: {
      200: ['The hierarchy.', dataDocument(HIERARCHY_SCHEMA)],
      409: ['`data.id` is not the id of the path, or another hierarchy has the slug.', ERROR_BODY_SCHEMA],
      422: TOO_BIG,
    },
  },
  [`DELETE ${H}/{hierarchy_id}`]: {
    operationId: 'deleteHierarchy',
    summary: 'Delete a hierarchy',
    description: 'Its slug is free at once.',
    tag: TAG,
    parameters: [HIERARCHY_ID],
    responses: { 204: ['Deleted.'] },
  },
};
