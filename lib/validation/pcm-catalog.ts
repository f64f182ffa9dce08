import { BadRequestError, ConflictError, NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import { assertValid, boundedText, compileSchema, type Schema, WELL_FORMED_TEXT } from '../schema/index';

/** The platform's catalog API bodies (`/pcm/catalogs`, docs/catalog-api.md). */
export const CATALOG_TYPE = 'catalog';
export const CATALOG_NAME_MAX = 255;
export const CATALOG_DESCRIPTION_MAX = 1024;
/**
 * Catalogs a store may hold (409 past it). Every published catalog has an entry in the store's one catalog
 * registry item, so this and the bounds on a catalog's rules keep that item far below DynamoDB's 400 KB
 * (docs/catalog-api.md, the arithmetic).
 */
export const MAX_CATALOGS_PER_STORE = 50;
/** Hierarchy ids a catalog may name (recorded; the hierarchies a release serves come from its document). */
export const MAX_HIERARCHY_IDS = 100;

const TEXT = boundedText;

const ATTRIBUTES: Record<string, Schema> = {
  name: {
    ...TEXT(CATALOG_NAME_MAX, 'The catalog name.'),
    minLength: 1,
    pattern: `^(?=[\\s\\S]*\\S)${WELL_FORMED_TEXT}$`,
    'x-message': `must be a string of 1 to ${CATALOG_NAME_MAX} characters, not only spaces`,
    examples: ['Main catalog'],
  },
  description: TEXT(CATALOG_DESCRIPTION_MAX, 'A description of the catalog.'),
  hierarchy_ids: {
    type: 'array',
    maxItems: MAX_HIERARCHY_IDS,
    items: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._~-]+$' },
    'x-message': `must be a list of at most ${MAX_HIERARCHY_IDS} ids`,
    description: 'The hierarchies of the catalog, as the platform records them.',
  },
  pricebook_id: {
    type: ['string', 'null'],
    maxLength: 64,
    pattern: '^[A-Za-z0-9._~-]*$',
    'x-message': 'must be an id or null',
    description: 'The price book of the catalog, as the platform records it.',
  },
};

const TYPE: Schema = { const: CATALOG_TYPE, description: 'Always `catalog`.' };

/** A catalog body: `{data: {type: "catalog", attributes, ...}}` with `data`'s other properties. */
const catalogBody = (data: Record<string, Schema>): Schema => ({
  type: 'object',
  required: ['data'],
  properties: {
    data: { type: 'object', required: ['type', 'attributes'], properties: { type: TYPE, ...data } },
  },
});

/** `POST /pcm/catalogs`. */
export const NEW_CATALOG_SCHEMA: Schema = catalogBody({
  attributes: { type: 'object', required: ['name'], properties: ATTRIBUTES },
});

/** `PUT /pcm/catalogs/{catalog_id}`: any of the attributes. */
export const CATALOG_UPDATE_SCHEMA: Schema = catalogBody({
  id: { type: 'string', description: 'When given, the id of the path.' },
  attributes: {
    type: 'object',
    properties: ATTRIBUTES,
    anyOf: [
      { required: ['name'] },
      { required: ['description'] },
      { required: ['hierarchy_ids'] },
      { required: ['pricebook_id'] },
    ],
    'x-message': 'needs name, description, hierarchy_ids or pricebook_id',
  },
});

const FULL_DELTA: Schema = {
  type: 'boolean',
  description:
    "Recorded as the release's `meta.is_full_delta` (default false); every release is a full publish.",
};
const ORGANIZATION_RESOURCES: Schema = {
  type: ['boolean', 'null'],
  description: 'Accepted; a store has no organization resources.',
};

/**
 * `POST /pcm/catalogs/{catalog_id}/releases`: the body is optional; the platform's fields are accepted in
 * `data` (the SDK and the spec) or bare (the composable CLI sends `{"export_full_delta": true}`); anything
 * else is refused, not ignored.
 */
export const NEW_RELEASE_SCHEMA: Schema = {
  type: 'object',
  additionalProperties: false,
  'x-message': 'must be an object of only data, export_full_delta and include_organization_resources',
  properties: {
    data: {
      type: 'object',
      additionalProperties: false,
      'x-message': 'must be an object of only type, export_full_delta and include_organization_resources',
      properties: {
        type: { const: 'catalog-release', description: 'When given, `catalog-release`.' },
        export_full_delta: FULL_DELTA,
        include_organization_resources: ORGANIZATION_RESOURCES,
      },
    },
    export_full_delta: FULL_DELTA,
    include_organization_resources: ORGANIZATION_RESOURCES,
  },
};

export interface CatalogAttributes {
  name?: string;
  description?: string;
  hierarchy_ids?: string[];
  pricebook_id?: string | null;
}

const validateNew = compileSchema(NEW_CATALOG_SCHEMA);
const validateUpdate = compileSchema(CATALOG_UPDATE_SCHEMA);
const validateRelease = compileSchema(NEW_RELEASE_SCHEMA);

export function parseNewCatalog(body: unknown): CatalogAttributes & { name: string } {
  const { data } = assertValid<{ data: { attributes: CatalogAttributes & { name: string } } }>(
    validateNew,
    body,
  );
  return data.attributes;
}

export function parseCatalogUpdate(body: unknown, catalogId: string): CatalogAttributes {
  const { data } = assertValid<{ data: { id?: string; attributes: CatalogAttributes } }>(
    validateUpdate,
    body,
  );
  if (data.id !== undefined && data.id.toLowerCase() !== catalogId) {
    throw new ConflictError('data.id must be the id of the path', 'data.id');
  }
  return data.attributes;
}

/**
 * The optional release body, checked: whether it asks for a full delta (`export_full_delta`, in `data` or
 * bare; false when absent). Both, with different values, is a 400.
 */
export function parseNewRelease(body: unknown): { fullDelta: boolean } {
  if (body === undefined) return { fullDelta: false };
  const checked = assertValid<{ data?: { export_full_delta?: boolean }; export_full_delta?: boolean }>(
    validateRelease,
    body,
  );
  const inData = checked.data?.export_full_delta;
  const bare = checked.export_full_delta;
  if (inData !== undefined && bare !== undefined && inData !== bare) {
    throw new BadRequestError(
      'export_full_delta is given twice, with different values (in data and bare): send it once',
      'export_full_delta',
    );
  }
  return { fullDelta: inData ?? bare ?? false };
}

/** A catalog or release id of a path: a UUID (anything else is 404, like an unknown id). */
export function parsePcmId(raw: string): string {
  if (!isUuid(raw)) throw new NotFoundError();
  return raw.toLowerCase();
}
