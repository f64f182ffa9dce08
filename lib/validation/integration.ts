import { ApiError, ConflictError, NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import { boundedText, compileSchema, dataEnvelope, nonBlankText, type Schema } from '../schema/index';
import { validDataOf } from './data-body';

/**
 * The bodies of `/v2/integrations` (docs/webhooks.md), in the platform's legacy flat format: the fields sit
 * directly under `data`. Every string is bounded, so an integration is an item of a few kilobytes.
 */
export const INTEGRATION_TYPE = 'integration';

/** The events an integration may observe: the catalog's releases and rules. */
export const OBSERVABLE_EVENTS = [
  'catalog-release.created',
  'catalog-release.updated',
  'catalog-release.deleted',
  'catalog-rule.created',
  'catalog-rule.updated',
  'catalog-rule.deleted',
] as const;
export type IntegrationEvent = (typeof OBSERVABLE_EVENTS)[number];

/** Most events one integration observes (Commerce Manager's limit). */
export const MAX_OBSERVED_EVENTS = 5;
/** Longest `name` and `description`, in characters. */
export const INTEGRATION_NAME_MAX = 255;
export const INTEGRATION_DESCRIPTION_MAX = 1024;
/** Longest `secret_key`, in characters. */
export const SECRET_KEY_MAX = 255;
/** Longest `url`, in characters (the address rules are checked after the schema: lib/integrations/target.ts). */
export const URL_MAX = 2048;

const CONFIGURATION: Schema = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  'x-message': 'must be an object of url and, optionally, secret_key',
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      maxLength: URL_MAX,
      'x-message': `must be an http or https URL of at most ${URL_MAX} characters`,
      description:
        'Where events are POSTed: http or https, no user or password; its host must resolve only to public addresses.',
      examples: ['https://hooks.example.com/catalog'],
    },
    secret_key: boundedText(
      SECRET_KEY_MAX,
      'Sent as the `X-Moltin-Secret-Key` header of each delivery, when set.',
    ),
  },
};

const FIELDS: Record<string, Schema> = {
  type: { const: INTEGRATION_TYPE, description: 'Always `integration`.' },
  name: nonBlankText(INTEGRATION_NAME_MAX, "The integration's name."),
  description: boundedText(INTEGRATION_DESCRIPTION_MAX, 'What it is for.'),
  enabled: {
    type: 'boolean',
    'x-message': 'must be true or false',
    description: 'Whether events are delivered to it (default true).',
  },
  integration_type: {
    type: 'string',
    enum: ['webhook', 'aws_sqs', 'stomp'],
    'x-message': 'must be webhook (aws_sqs and stomp are not served here)',
    description: 'Only `webhook` is served (default `webhook`).',
  },
  observes: {
    type: 'array',
    minItems: 1,
    maxItems: MAX_OBSERVED_EVENTS,
    items: {
      type: 'string',
      enum: OBSERVABLE_EVENTS,
      'x-message': `must be one of the events served: ${OBSERVABLE_EVENTS.join(', ')}`,
    },
    'x-message': `must be a list of 1 to ${MAX_OBSERVED_EVENTS} event keys`,
    description: 'The events delivered to it.',
  },
  configuration: CONFIGURATION,
};

const REQUIRED = ['type', 'name', 'observes', 'configuration'];
const ALL = ['type', 'name', 'description', 'enabled', 'integration_type', 'observes', 'configuration'];

/** `POST /v2/integrations`. */
export const NEW_INTEGRATION_SCHEMA: Schema = dataEnvelope({
  type: 'object',
  required: REQUIRED,
  additionalProperties: false,
  'x-message': `must be an object of ${REQUIRED.join(', ')} and, optionally, description, enabled, integration_type`,
  properties: FIELDS,
});

/** `PUT /v2/integrations/{id}`: the fields to change; `id` may be sent. */
export const INTEGRATION_UPDATE_SCHEMA: Schema = dataEnvelope({
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  'x-message': `must be an object of type and any of id, ${ALL.slice(1).join(', ')}`,
  properties: {
    id: { type: 'string', maxLength: 64, description: 'When sent, the id of the path.' },
    ...FIELDS,
  },
});

export interface IntegrationFields {
  name: string;
  description: string;
  enabled: boolean;
  integration_type: 'webhook';
  observes: IntegrationEvent[];
  configuration: { url: string; secret_key?: string };
}

const validateNew = compileSchema(NEW_INTEGRATION_SCHEMA);
const validateUpdate = compileSchema(INTEGRATION_UPDATE_SCHEMA);

/** Only webhooks are delivered: another type is refused rather than stored and never served. */
function onlyWebhooks(type: unknown): void {
  if (type !== undefined && type !== 'webhook') {
    throw new ApiError(
      422,
      `data.integration_type ${String(type)} is not served here: only webhook integrations are`,
      { source: 'data.integration_type' },
    );
  }
}

/** An event named twice would be delivered once: refused, so what is stored is what was sent. */
function distinct(observes: unknown): void {
  if (!Array.isArray(observes)) return;
  const seen = new Set<unknown>();
  for (const [index, key] of observes.entries()) {
    if (seen.has(key)) {
      throw new ApiError(422, `data.observes[${index}] names ${String(key)} a second time`, {
        source: `data.observes[${index}]`,
      });
    }
    seen.add(key);
  }
}

export function parseNewIntegration(input: unknown): IntegrationFields {
  const { type: _type, ...fields } = validDataOf<Record<string, unknown>>(validateNew, input);
  onlyWebhooks(fields.integration_type);
  distinct(fields.observes);
  return {
    description: '',
    enabled: true,
    ...fields,
    integration_type: 'webhook',
  } as IntegrationFields;
}

export function parseIntegrationUpdate(input: unknown, integrationId: string): Partial<IntegrationFields> {
  const { type: _type, id, ...fields } = validDataOf<Record<string, unknown>>(validateUpdate, input);
  if (id !== undefined && (id as string).toLowerCase() !== integrationId) {
    throw new ConflictError('data.id must be the id of the path', 'data.id');
  }
  onlyWebhooks(fields.integration_type);
  distinct(fields.observes);
  return fields as Partial<IntegrationFields>;
}

/** An integration id of a path: a UUID (anything else is 404, like an unknown id). */
export function parseIntegrationId(raw: string): string {
  if (!isUuid(raw)) throw new NotFoundError('integration not found');
  return raw.toLowerCase();
}

/** A job id of a path: a UUID (anything else is 404). */
export function parseIntegrationJobId(raw: string): string {
  if (!isUuid(raw)) throw new NotFoundError('integration job not found');
  return raw.toLowerCase();
}
