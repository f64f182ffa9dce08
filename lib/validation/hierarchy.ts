import { ApiError, ConflictError, NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import { assertValid, boundedText, compileSchema, nonBlankText, type Schema } from '../schema/index';
import { LOCALE } from './product';

/**
 * The platform's hierarchy bodies (`/pcm/hierarchies`, docs/hierarchies.md). Every string is bounded and a
 * hierarchy as stored is at most HIERARCHY_MAX_BYTES of JSON, so a page of 100 stays far below Lambda's
 * 6 MB response and each item below DynamoDB's 400 KB.
 */
export const HIERARCHY_TYPE = 'hierarchy';
export const HIERARCHY_NAME_MAX = 1000;
export const HIERARCHY_DESCRIPTION_MAX = 10_000;
export const HIERARCHY_SLUG_MAX = 255;
export const HIERARCHY_LOCALES_MAX = 100;
/** Bytes of a hierarchy's attributes as JSON, once an update is applied. */
export const HIERARCHY_MAX_BYTES = 32 * 1024;

const NAME: Schema = { ...nonBlankText(HIERARCHY_NAME_MAX, 'The hierarchy name.'), examples: ['Apparel'] };
/** A slug of a hierarchy or node: `description` says among what it is unique. */
export const slugSchema = (description: string, example: string): Schema => ({
  type: 'string',
  minLength: 1,
  maxLength: HIERARCHY_SLUG_MAX,
  pattern: '^[A-Za-z0-9._-]+$',
  'x-message': `must be 1 to ${HIERARCHY_SLUG_MAX} characters: A-Z, a-z, 0-9, hyphen, underscore and period`,
  description,
  examples: [example],
});
const SLUG = slugSchema("Unique among the store's hierarchies, compared without regard to case.", 'apparel');
/** Locales of a hierarchy or node. */
export const LOCALES: Schema = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    'x-message': 'must be an object of name and (optionally) description',
    properties: {
      name: { ...boundedText(HIERARCHY_NAME_MAX, 'The name in this locale.'), minLength: 1 },
      description: boundedText(HIERARCHY_DESCRIPTION_MAX, 'The description in this locale.'),
    },
  },
  'x-message': 'must be an object of locales to {name, description}',
  description: `Locale (such as \`fr-FR\`) to name and description; at most ${HIERARCHY_LOCALES_MAX}.`,
};
const ATTRIBUTES: Record<string, Schema> = {
  name: NAME,
  description: boundedText(HIERARCHY_DESCRIPTION_MAX, 'A description of the hierarchy.'),
  slug: SLUG,
  locales: LOCALES,
};

const body = (required: string[], attributesRequired: string[]): Schema => ({
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  'x-message': 'must be an object with only `data`',
  properties: {
    data: {
      type: 'object',
      required: ['type', 'attributes', ...required],
      additionalProperties: false,
      'x-message': `must be an object with type, ${required.map((name) => `${name}, `).join('')}attributes`,
      properties: {
        type: { const: HIERARCHY_TYPE, description: `Always \`${HIERARCHY_TYPE}\`.` },
        ...(required.includes('id')
          ? { id: { type: 'string', maxLength: 64, description: 'The id of the path.' } }
          : {}),
        attributes: {
          type: 'object',
          required: attributesRequired,
          properties: ATTRIBUTES,
          additionalProperties: false,
          'x-message': `must be an object of only ${Object.keys(ATTRIBUTES).join(', ')}`,
        },
      },
    },
  },
});

/** `POST /pcm/hierarchies`. */
export const NEW_HIERARCHY_SCHEMA = body([], ['name']);
/** `PUT /pcm/hierarchies/{hierarchy_id}`: the attributes sent change; `data.id` names the hierarchy. */
export const HIERARCHY_UPDATE_SCHEMA = body(['id'], []);

export interface HierarchyAttributes {
  name: string;
  description?: string;
  slug?: string;
  locales?: Record<string, { name: string; description?: string }>;
}

const validateNew = compileSchema(NEW_HIERARCHY_SCHEMA);
const validateUpdate = compileSchema(HIERARCHY_UPDATE_SCHEMA);

type Body<A> = { data: { id?: string; attributes: A } };

const invalid = (detail: string, source: string): never => {
  throw new ApiError(422, detail, { source });
};

/** The rules a schema cannot state: locale keys and their count. */
export function checkLocales(locales: HierarchyAttributes['locales']): void {
  if (locales === undefined) return;
  const at = 'data.attributes.locales';
  const keys = Object.keys(locales);
  if (keys.length > HIERARCHY_LOCALES_MAX)
    invalid(`${at} may have at most ${HIERARCHY_LOCALES_MAX} entries`, at);
  for (const key of keys) {
    if (!LOCALE.test(key)) invalid(`${at}.${key}: the key must be a locale such as en-US`, `${at}.${key}`);
  }
}

/** 422 when the attributes, as they would be stored, exceed HIERARCHY_MAX_BYTES. */
export function checkHierarchySize(attributes: HierarchyAttributes): void {
  if (Buffer.byteLength(JSON.stringify(attributes)) > HIERARCHY_MAX_BYTES) {
    invalid(
      `data.attributes: a hierarchy may take at most ${HIERARCHY_MAX_BYTES} bytes of JSON`,
      'data.attributes',
    );
  }
}

export function parseNewHierarchy(input: unknown): HierarchyAttributes {
  const { attributes } = assertValid<Body<HierarchyAttributes>>(validateNew, input).data;
  checkLocales(attributes.locales);
  checkHierarchySize(attributes);
  return attributes;
}

export function parseHierarchyUpdate(input: unknown, hierarchyId: string): Partial<HierarchyAttributes> {
  const { data } = assertValid<Body<Partial<HierarchyAttributes>>>(validateUpdate, input);
  if (data.id?.toLowerCase() !== hierarchyId) {
    throw new ConflictError('data.id must be the id of the path', 'data.id');
  }
  checkLocales(data.attributes.locales);
  return data.attributes;
}

/** A hierarchy id of a path: a UUID (anything else is 404, like an unknown id). */
export function parseHierarchyId(raw: string): string {
  if (!isUuid(raw)) throw new NotFoundError('hierarchy not found');
  return raw.toLowerCase();
}
