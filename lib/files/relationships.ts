import { BadRequestError } from '../http/errors';
import { assertValid, compileSchema, type Schema } from '../schema/index';

/**
 * The bodies of a product's file relationships (`/pcm/products/{id}/relationships/main_image` and
 * `…/relationships/files`, docs/files.md), checked and reduced to file ids, for the product routes to
 * apply. Pure: nothing here reads a table, so whether a file exists is the route's to check.
 *
 * The platform's shapes are not consistent, and the SDK sends what the specification does not say:
 *
 * - `main_image`: POST `{data: {type: "file", id}}` (an object); the specification's PUT takes an array of
 *   one, `{data: [{type: "file", id}]}`, but the SDK's `MainImageRelationships.Update` sends the object, so
 *   PUT takes either; DELETE has no body in the specification, and the SDK's `Delete(productId, fileId)`
 *   sends the object, so DELETE takes none or the object (whose id the route may check against the
 *   product's main image).
 * - `files`: POST (add), PUT (replace) and DELETE (remove those listed) take `{data: [{type: "file", id,
 *   meta?: {tags}}]}`, what the SDK's `FileRelationships` sends; an empty list is allowed (the SDK sends
 *   `[]` for no ids): PUT with it removes every file, POST and DELETE with it change nothing. `meta.tags`
 *   is what a product records of a file; DELETE refuses it (it would be ignored). How many files a product
 *   may list is the product's rule (lib/products/files.ts), checked against what it lists already.
 */

/** Tags a file relationship may carry, and the length of each. */
export const MAX_FILE_TAGS = 20;
export const FILE_TAG_MAX = 64;

const FILE_ID: Schema = {
  type: 'string',
  pattern: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$',
  'x-message': 'must be a file id (a UUID, as POST /v2/files answers)',
  description: 'The id of a file of the store (`POST /v2/files`).',
};
const FILE_TYPE: Schema = { const: 'file', description: 'Always `file`.' };

/** `{type: "file", id}`: a main image. */
const FILE_IDENTIFIER: Schema = {
  type: 'object',
  required: ['type', 'id'],
  properties: { type: FILE_TYPE, id: FILE_ID },
  additionalProperties: false,
};

const TAGS: Schema = {
  type: 'array',
  maxItems: MAX_FILE_TAGS,
  items: {
    type: 'string',
    minLength: 1,
    maxLength: FILE_TAG_MAX,
    pattern: '^[^\\u0000-\\u001F\\uD800-\\uDFFF]+$',
    'x-message': `must be a tag of 1 to ${FILE_TAG_MAX} characters, without control characters`,
  },
  'x-message': `must be a list of at most ${MAX_FILE_TAGS} tags`,
  description: 'Tags of the file on this product.',
};

/** `{type: "file", id, meta?: {tags}}`: one of a product's files. */
const FILE_RELATIONSHIP: Schema = {
  type: 'object',
  required: ['type', 'id'],
  properties: {
    type: FILE_TYPE,
    id: FILE_ID,
    meta: {
      type: 'object',
      properties: { tags: TAGS },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

const body = (data: Schema): Schema => ({
  type: 'object',
  required: ['data'],
  properties: { data },
  additionalProperties: false,
});

/** POST and DELETE `…/relationships/main_image` (and the SDK's PUT): the object. */
export const MAIN_IMAGE_BODY_SCHEMA: Schema = body(FILE_IDENTIFIER);
/** PUT `…/relationships/main_image` as the specification writes it: an array of exactly one. */
export const MAIN_IMAGE_LIST_BODY_SCHEMA: Schema = body({
  type: 'array',
  minItems: 1,
  maxItems: 1,
  items: FILE_IDENTIFIER,
  'x-message': 'must be a list of exactly one file',
});
/** POST, PUT and DELETE `…/relationships/files`. */
export const FILE_RELATIONSHIPS_BODY_SCHEMA: Schema = body({
  type: 'array',
  items: FILE_RELATIONSHIP,
  'x-message': 'must be a list of files [{"type": "file", "id": …}]',
  description:
    "The files. How many a product may list is the route's rule (422), not the body's; the body is at most 64 KiB.",
});

const validateMainImage = compileSchema(MAIN_IMAGE_BODY_SCHEMA);
const validateMainImageList = compileSchema(MAIN_IMAGE_LIST_BODY_SCHEMA);
const validateFiles = compileSchema(FILE_RELATIONSHIPS_BODY_SCHEMA);

type Identifier = { type: 'file'; id: string };

/** The file a `main_image` POST or PUT names (lower case), or that a DELETE names (undefined: none). */
export function parseMainImageBody(method: 'POST' | 'PUT', body: unknown): string;
export function parseMainImageBody(method: 'DELETE', body: unknown): string | undefined;
export function parseMainImageBody(method: 'POST' | 'PUT' | 'DELETE', body: unknown): string | undefined {
  if (body === undefined) {
    if (method === 'DELETE') return undefined;
    throw new BadRequestError('a body {"data": {"type": "file", "id": …}} is required', 'body');
  }
  const list =
    method === 'PUT' &&
    typeof body === 'object' &&
    body !== null &&
    Array.isArray((body as { data?: unknown }).data);
  const identifier = list
    ? assertValid<{ data: [Identifier] }>(validateMainImageList, body).data[0]
    : assertValid<{ data: Identifier }>(validateMainImage, body).data;
  return identifier.id.toLowerCase();
}

/** The body field naming the main image: `data[0].id` in the specification's array, `data.id` otherwise. */
export function mainImageSource(body: unknown): string {
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
  return Array.isArray(data) ? 'data[0].id' : 'data.id';
}

/** One file of a product: its id (lower case) and, when sent, its tags. */
export interface FileRelationship {
  id: string;
  tags?: string[];
}

/**
 * The files a `files` POST (add), PUT (replace) or DELETE (remove) names, in order: 400 for a file named
 * twice, and for `meta` on a DELETE.
 */
export function parseFileRelationshipsBody(
  method: 'POST' | 'PUT' | 'DELETE',
  body: unknown,
): FileRelationship[] {
  if (body === undefined)
    throw new BadRequestError('a body {"data": [{"type": "file", "id": …}]} is required', 'body');
  const { data } = assertValid<{ data: (Identifier & { meta?: { tags?: string[] } })[] }>(
    validateFiles,
    body,
  );
  const seen = new Map<string, number>();
  return data.map((item, index) => {
    const id = item.id.toLowerCase();
    const first = seen.get(id);
    if (first !== undefined) {
      throw new BadRequestError(
        `data[${index}].id names the file data[${first}] names already`,
        `data[${index}].id`,
      );
    }
    seen.set(id, index);
    if (method === 'DELETE' && item.meta !== undefined) {
      throw new BadRequestError(
        `data[${index}].meta is not taken when removing files: send their type and id only`,
        `data[${index}].meta`,
      );
    }
    return item.meta?.tags === undefined ? { id } : { id, tags: item.meta.tags };
  });
}
