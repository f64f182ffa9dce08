import { assertValid, compileSchema, type Schema } from '../schema/index';

export const MERCHANT_REALM_MAPPING_TYPE = 'merchant-realm-mappings';

/** 2-63 characters of A-Z a-z 0-9 and `-`, starting and ending with a letter or digit. */
const PREFIX_PATTERN = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])$';
const PREFIX_REGEX = new RegExp(PREFIX_PATTERN, 'u');

/** What a valid update body asks for; read-only fields (`id`, `realm_id`, `store_id`) are dropped. */
export interface MappingUpdateRequest {
  prefix: string;
}

/** `PUT /v2/merchant-realm-mappings/{mapping_id}`: the new prefix; other fields are read-only and ignored. */
export const MAPPING_UPDATE_SCHEMA: Schema = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      required: ['type', 'prefix'],
      properties: {
        type: { const: MERCHANT_REALM_MAPPING_TYPE, description: 'Always `merchant-realm-mappings`.' },
        prefix: {
          type: 'string',
          pattern: PREFIX_PATTERN,
          'x-message':
            'must be a string of 2-63 characters of A-Z a-z 0-9 and -, not starting or ending with -',
          description: 'Unique across all stores (compared without case).',
          examples: ['my-shop'],
        },
      },
    },
  },
};

const validateUpdate = compileSchema(MAPPING_UPDATE_SCHEMA);

/** True when `value` is a prefix the API accepts (before the uniqueness check). */
export function isValidPrefix(value: string): boolean {
  return PREFIX_REGEX.test(value);
}

/**
 * Validates a `PUT /v2/merchant-realm-mappings/{id}` body; throws a 400 naming the first offending
 * field (`body`, `data`, `data.type`, `data.prefix`).
 */
export function parseMappingUpdate(body: unknown): MappingUpdateRequest {
  return { prefix: assertValid<{ data: MappingUpdateRequest }>(validateUpdate, body).data.prefix };
}
