import { NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import { assertValid, compileSchema, type Schema, WELL_FORMED_TEXT } from '../schema/index';

/** The resource type every application key body names. */
export const APPLICATION_KEY_TYPE = 'application_key';
export const NAME_MAX_LENGTH = 255;

/** A validated `POST /v2/application-keys` body. */
export interface NewApplicationKeyInput {
  name: string;
  reserved_rate_limit: number;
}

/** A validated `PUT /v2/application-keys/{id}` body: at least one field is present. */
export interface ApplicationKeyUpdateInput {
  name?: string;
  reserved_rate_limit?: number;
}

const NAME: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: NAME_MAX_LENGTH,
  // Not only spaces (`\S` is what `String.prototype.trim` would leave) and well-formed Unicode: a lone
  // UTF-16 surrogate is not text, and DynamoDB stores only valid UTF-8.
  pattern: `^(?=[\\s\\S]*\\S)${WELL_FORMED_TEXT}$`,
  'x-message': `must be a string of 1 to ${NAME_MAX_LENGTH} characters, not only spaces`,
  description: 'A name for the key, counted in characters (code points).',
  examples: ['Storefront'],
};

const RESERVED_RATE_LIMIT: Schema = {
  type: 'integer',
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  'x-message': 'must be an integer greater than or equal to 0',
  description:
    "Requests per second reserved for this key; the store's keys together may reserve at most the store's limit.",
  examples: [10],
};

const TYPE: Schema = { const: APPLICATION_KEY_TYPE, description: 'Always `application_key`.' };

/**
 * `POST /v2/application-keys`. Read-only fields (`id`, `client_id`, `client_secret`, `meta`) and unknown
 * fields are ignored, as the API this one is compatible with does.
 */
export const NEW_APPLICATION_KEY_SCHEMA: Schema = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      required: ['type', 'name'],
      properties: {
        type: TYPE,
        name: NAME,
        reserved_rate_limit: { ...RESERVED_RATE_LIMIT, default: 0 },
      },
    },
  },
};

/** `PUT /v2/application-keys/{id}`: `name` and/or `reserved_rate_limit`. */
export const APPLICATION_KEY_UPDATE_SCHEMA: Schema = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      required: ['type'],
      properties: { type: TYPE, name: NAME, reserved_rate_limit: RESERVED_RATE_LIMIT },
      anyOf: [{ required: ['name'] }, { required: ['reserved_rate_limit'] }],
      'x-message': 'needs name or reserved_rate_limit',
    },
  },
};

const validateNew = compileSchema(NEW_APPLICATION_KEY_SCHEMA);
const validateUpdate = compileSchema(APPLICATION_KEY_UPDATE_SCHEMA);

interface KeyBody {
  data: { name?: string; reserved_rate_limit?: number };
}

/** Validates a create body; `reserved_rate_limit` defaults to 0. */
export function parseNewApplicationKey(body: unknown): NewApplicationKeyInput {
  const { data } = assertValid<KeyBody>(validateNew, body);
  return { name: data.name as string, reserved_rate_limit: data.reserved_rate_limit ?? 0 };
}

/** Validates an update body: `type` exactly `application_key` and `name` and/or `reserved_rate_limit`. */
export function parseApplicationKeyUpdate(body: unknown): ApplicationKeyUpdateInput {
  const { data } = assertValid<KeyBody>(validateUpdate, body);
  const update: ApplicationKeyUpdateInput = {};
  if (data.name !== undefined) update.name = data.name;
  if (data.reserved_rate_limit !== undefined) update.reserved_rate_limit = data.reserved_rate_limit;
  return update;
}

/**
 * The key id of a path: a UUID, lower-cased as ids are stored. Anything else is a 404, like an unknown id
 * or another store's, so the answer never tells a caller more than "not here".
 */
export function parseApplicationKeyId(raw: string): string {
  if (!isUuid(raw)) throw new NotFoundError();
  return raw.toLowerCase();
}
