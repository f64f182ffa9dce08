import { BadRequestError, NotFoundError } from '../http/errors';
import { isUuid } from '../ids';

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

/** The `data` object of a JSON:API-style body whose `type` must be `application_key`. */
function dataOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new BadRequestError('request body must be a JSON object with a data object', 'data');
  }
  const data = (body as Record<string, unknown>).data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new BadRequestError('data must be an object', 'data');
  }
  const fields = data as Record<string, unknown>;
  if (fields.type === undefined || fields.type === null) {
    throw new BadRequestError('type is required', 'data.type');
  }
  if (fields.type !== APPLICATION_KEY_TYPE) {
    throw new BadRequestError(`type must be ${APPLICATION_KEY_TYPE}`, 'data.type');
  }
  return fields;
}

function nameOf(value: unknown): string {
  if (typeof value !== 'string') throw new BadRequestError('name must be a string', 'data.name');
  // Counted in code points, so a name of 255 emoji is as long as a name of 255 letters.
  const length = [...value].length;
  if (length === 0 || length > NAME_MAX_LENGTH || value.trim() === '') {
    throw new BadRequestError(
      `name must be 1 to ${NAME_MAX_LENGTH} characters and not only spaces`,
      'data.name',
    );
  }
  return value;
}

function reservedRateLimitOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new BadRequestError(
      'reserved_rate_limit must be an integer greater than or equal to 0',
      'data.reserved_rate_limit',
    );
  }
  return value;
}

/**
 * Validates a create body: `type` exactly `application_key`, `name` required, `reserved_rate_limit`
 * optional (default 0). Read-only fields (`id`, `client_id`, `client_secret`, `meta`) are ignored.
 */
export function parseNewApplicationKey(body: unknown): NewApplicationKeyInput {
  const data = dataOf(body);
  if (data.name === undefined) throw new BadRequestError('name is required', 'data.name');
  return {
    name: nameOf(data.name),
    reserved_rate_limit:
      data.reserved_rate_limit === undefined ? 0 : reservedRateLimitOf(data.reserved_rate_limit),
  };
}

/** Validates an update body: `type` exactly `application_key` and `name` and/or `reserved_rate_limit`. */
export function parseApplicationKeyUpdate(body: unknown): ApplicationKeyUpdateInput {
  const data = dataOf(body);
  const update: ApplicationKeyUpdateInput = {};
  if (data.name !== undefined) update.name = nameOf(data.name);
  if (data.reserved_rate_limit !== undefined) {
    update.reserved_rate_limit = reservedRateLimitOf(data.reserved_rate_limit);
  }
  if (update.name === undefined && update.reserved_rate_limit === undefined) {
    throw new BadRequestError('name or reserved_rate_limit is required', 'data');
  }
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
