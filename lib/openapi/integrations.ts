import type { Schema } from '../schema/index';
import { MAX_INTEGRATIONS_PER_STORE } from '../store/integration-repository';
import {
  INTEGRATION_UPDATE_SCHEMA,
  NEW_INTEGRATION_SCHEMA,
  OBSERVABLE_EVENTS,
} from '../validation/integration';
import { listDocumentSchema, type OperationSpec, pageParameters, pathIdParameter } from './operation';
import { dataDocument, ERROR_BODY_SCHEMA, SELF_LINKS_SCHEMA, timestampsSchema } from './schemas';

/** The platform's webhook integrations (`/v2/integrations`, legacy flat format; docs/webhooks.md). */

const TAG = 'Integrations' as const;
const REF = (type: string): Schema => ({
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  properties: {
    data: {
      type: 'object',
      required: ['id', 'type'],
      additionalProperties: false,
      properties: { id: { type: 'string', format: 'uuid' }, type: { const: type } },
    },
  },
});

export const INTEGRATION_SCHEMA: Schema = {
  type: 'object',
  required: [
    'id',
    'type',
    'name',
    'description',
    'enabled',
    'integration_type',
    'observes',
    'configuration',
    'links',
    'meta',
  ],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'integration' },
    name: { type: 'string' },
    description: { type: 'string' },
    enabled: { type: 'boolean' },
    integration_type: { const: 'webhook' },
    observes: { type: 'array', items: { type: 'string', enum: OBSERVABLE_EVENTS } },
    configuration: {
      type: 'object',
      required: ['url'],
      additionalProperties: false,
      properties: {
        url: { type: 'string' },
        secret_key: { type: 'string', description: "Echoed to the store's admins, as the platform does." },
      },
    },
    links: SELF_LINKS_SCHEMA,
    meta: {
      type: 'object',
      required: ['timestamps'],
      additionalProperties: false,
      properties: { timestamps: timestampsSchema('created_at', 'updated_at') },
    },
  },
};

const TIMESTAMPS: Schema = {
  type: 'object',
  required: ['trigger', 'timestamps'],
  additionalProperties: false,
  properties: {
    trigger: { type: 'string', enum: OBSERVABLE_EVENTS },
    timestamps: timestampsSchema('created_at'),
  },
};

export const INTEGRATION_LOG_SCHEMA: Schema = {
  type: 'object',
  required: [
    'id',
    'type',
    'succeeded',
    'attempt',
    'body',
    'status_code',
    'error_detail',
    'processing_time',
    'relationships',
    'meta',
  ],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    type: { const: 'integration-log' },
    succeeded: { type: 'boolean' },
    attempt: { type: 'integer', description: 'From 1.' },
    body: { type: 'string', description: "The endpoint's reply, its first 1,024 characters." },
    status_code: {
      type: ['integer', 'null'],
      description: 'null when no answer came (refused, failed, timed out).',
    },
    error_detail: { type: 'string', description: 'Empty when it succeeded.' },
    processing_time: { type: 'integer', description: 'Milliseconds.' },
    relationships: {
      type: 'object',
      required: ['integration', 'job'],
      additionalProperties: false,
      properties: { integration: REF('integration'), job: REF('integration-job') },
    },
    meta: TIMESTAMPS,
  },
};

export const INTEGRATION_JOB_SCHEMA: Schema = {
  type: 'object',
  required: ['id', 'type', 'meta'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid', description: "The event's id, as the deliveries' body `id`." },
    type: { const: 'integration-job' },
    meta: TIMESTAMPS,
  },
};

const document = dataDocument(INTEGRATION_SCHEMA);
const ID = pathIdParameter('integration_id', 'integration');
const PAGE = pageParameters(25);
const CONFLICT: [string, Schema] = [
  'Concurrent writes kept conflicting (`write conflict, please retry`): nothing was written.',
  ERROR_BODY_SCHEMA,
];
const REFUSED = `A field breaks its rule (\`source\` names it): an event other than ${OBSERVABLE_EVENTS.join(', ')}; an \`integration_type\` other than \`webhook\`; a URL that is not http(s), holds a user or password, or whose host does not resolve only to public addresses.`;

export const INTEGRATION_OPERATIONS: Record<string, OperationSpec> = {
  'POST /v2/integrations': {
    operationId: 'createAnIntegration',
    summary: 'Create an integration',
    description: `A webhook, its fields directly under \`data\` (no \`attributes\`). A store has at most ${MAX_INTEGRATIONS_PER_STORE} integrations. Answers 200, as the platform does.`,
    tag: TAG,
    requestBody: NEW_INTEGRATION_SCHEMA,
    responses: {
      200: ['The new integration.', document],
      409: CONFLICT,
      422: [
        `${REFUSED} Or the store has ${MAX_INTEGRATIONS_PER_STORE} integrations already.`,
        ERROR_BODY_SCHEMA,
      ],
    },
  },
  'GET /v2/integrations': {
    operationId: 'listIntegrations',
    summary: "List the store's integrations",
    description: 'Oldest first.',
    tag: TAG,
    parameters: PAGE,
    responses: { 200: ['A page of integrations.', listDocumentSchema(INTEGRATION_SCHEMA)] },
  },
  'GET /v2/integrations/logs': {
    operationId: 'listAllLogs',
    summary: "List the store's delivery logs",
    description:
      'Every attempt of every integration of the store, newest first (the newest 1,000, of 30 days).',
    tag: TAG,
    parameters: PAGE,
    responses: { 200: ['A page of logs.', listDocumentSchema(INTEGRATION_LOG_SCHEMA)] },
  },
  'GET /v2/integrations/{integration_id}': {
    operationId: 'getAnIntegration',
    summary: 'Get an integration',
    description: 'One integration of the store.',
    tag: TAG,
    parameters: [ID],
    responses: { 200: ['The integration.', document] },
  },
  'PUT /v2/integrations/{integration_id}': {
    operationId: 'updateAnIntegration',
    summary: 'Update an integration',
    description:
      'Only the fields sent change; `type` is required. A `configuration` sent replaces the old one whole (its URL checked again).',
    tag: TAG,
    parameters: [ID],
    requestBody: INTEGRATION_UPDATE_SCHEMA,
    responses: {
      200: ['The integration.', document],
      409: ['`data.id` is not the id of the path, or concurrent writes kept conflicting.', ERROR_BODY_SCHEMA],
      422: [REFUSED, ERROR_BODY_SCHEMA],
    },
  },
  'DELETE /v2/integrations/{integration_id}': {
    operationId: 'deleteAnIntegration',
    summary: 'Delete an integration',
    description: 'Answers 200, as the platform does. Deliveries waiting for it are dropped.',
    tag: TAG,
    parameters: [ID],
    responses: { 200: ['Deleted.', REF('integration')], 409: CONFLICT },
  },
  'GET /v2/integrations/{integration_id}/logs': {
    operationId: 'listIntegrationLogs',
    summary: "List an integration's delivery logs",
    description: 'Every attempt, newest first (the newest 1,000, of 30 days).',
    tag: TAG,
    parameters: [ID, ...PAGE],
    responses: { 200: ['A page of logs.', listDocumentSchema(INTEGRATION_LOG_SCHEMA)] },
  },
  'GET /v2/integrations/{integration_id}/jobs': {
    operationId: 'listIntegrationJobs',
    summary: "List an integration's delivery jobs",
    description: 'One job per event sent to it (its attempts are its logs), newest first.',
    tag: TAG,
    parameters: [ID, ...PAGE],
    responses: { 200: ['A page of jobs.', listDocumentSchema(INTEGRATION_JOB_SCHEMA)] },
  },
  'GET /v2/integrations/{integration_id}/jobs/{job_id}/logs': {
    operationId: 'listIntegrationJobLogs',
    summary: "List a delivery job's logs",
    description: 'The attempts of one event, newest first.',
    tag: TAG,
    parameters: [ID, pathIdParameter('job_id', 'delivery job'), ...PAGE],
    responses: { 200: ['A page of logs.', listDocumentSchema(INTEGRATION_LOG_SCHEMA)] },
  },
};
