import { BadRequestError } from '../http/errors';

export const MERCHANT_REALM_MAPPING_TYPE = 'merchant-realm-mappings';

/** 2-63 characters of A-Z a-z 0-9 and `-`, starting and ending with a letter or digit. */
const PREFIX_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])$/;
const PREFIX_RULE = 'data.prefix must be 2-63 characters of A-Z a-z 0-9 and -, not starting or ending with -';

/** What a valid update body asks for; read-only fields (`id`, `realm_id`, `store_id`) are dropped. */
export interface MappingUpdateRequest {
  prefix: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True when `value` is a prefix the API accepts (before the uniqueness check). */
export function isValidPrefix(value: string): boolean {
  return PREFIX_PATTERN.test(value);
}

/**
 * Validates a `PUT /v2/merchant-realm-mappings/{id}` body; throws a 400 naming the first offending
 * field (`data`, `data.type`, `data.prefix`).
 */
export function parseMappingUpdate(body: unknown): MappingUpdateRequest {
  if (!isPlainObject(body) || !isPlainObject(body.data)) {
    throw new BadRequestError('data must be an object', 'data');
  }
  const { type, prefix } = body.data;
  if (type === undefined) throw new BadRequestError('data.type is required', 'data.type');
  if (type !== MERCHANT_REALM_MAPPING_TYPE) {
    throw new BadRequestError(`data.type must be ${MERCHANT_REALM_MAPPING_TYPE}`, 'data.type');
  }
  if (prefix === undefined) throw new BadRequestError('data.prefix is required', 'data.prefix');
  if (typeof prefix !== 'string') throw new BadRequestError('data.prefix must be a string', 'data.prefix');
  if (!isValidPrefix(prefix)) throw new BadRequestError(PREFIX_RULE, 'data.prefix');
  return { prefix };
}
