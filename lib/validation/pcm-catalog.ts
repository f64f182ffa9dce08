import { ApiError, BadRequestError, ConflictError, NotFoundError } from '../http/errors';
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
/** Hierarchies a catalog may name: each a hierarchy of the store, its live attached products published. */
export const MAX_HIERARCHY_IDS = 100;
/** Price books a catalog may take by priority (the platform's limit). */
export const MAX_PRICEBOOK_IDS = 5;

const TEXT = boundedText;
const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

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
    items: { type: 'string', format: 'uuid', pattern: UUID_PATTERN },
    'x-message': `must be a list of at most ${MAX_HIERARCHY_IDS} distinct hierarchy ids`,
    description:
      'The hierarchies whose live attached products a release publishes, in display order (the catalog is then authored: it takes no document).',
  },
  pricebook_id: {
    type: ['string', 'null'],
    format: 'uuid',
    pattern: UUID_PATTERN,
    'x-message': 'must be a price book id (a UUID) or null',
    description: 'The price book that prices the catalog (not with `pricebook_ids`).',
  },
  pricebook_ids: {
    type: 'array',
    maxItems: MAX_PRICEBOOK_IDS,
    items: {
      type: 'object',
      required: ['id', 'priority'],
      additionalProperties: false,
      properties: {
        id: {
          type: 'string',
          format: 'uuid',
          pattern: UUID_PATTERN,
          description: 'A price book of the store.',
        },
        priority: {
          type: 'integer',
          minimum: -2147483648,
          maximum: 2147483647,
          description: 'Of the books with a price for a sku, the one with the highest priority prices it.',
        },
      },
    },
    'x-message': `must be a list of at most ${MAX_PRICEBOOK_IDS} {id, priority}`,
    description: 'Up to five price books by priority (not with `pricebook_id`).',
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
      { required: ['pricebook_ids'] },
    ],
    'x-message': 'needs name, description, hierarchy_ids, pricebook_id or pricebook_ids',
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
  pricebook_ids?: { id: string; priority: number }[];
}

/**
 * The attributes with ids in lower case; 422 when both `pricebook_id` and `pricebook_ids` are sent, or
 * `pricebook_ids` names a book twice.
 */
function normalised<T extends CatalogAttributes>(attributes: T): T {
  const at = 'data.attributes';
  if (attributes.pricebook_id != null && (attributes.pricebook_ids ?? []).length > 0) {
    throw new ApiError(422, 'send pricebook_id or pricebook_ids, not both', {
      source: `${at}.pricebook_ids`,
    });
  }
  const hierarchies = (attributes.hierarchy_ids ?? []).map((id) => id.toLowerCase());
  const again = hierarchies.findIndex((id, i) => hierarchies.indexOf(id) !== i);
  if (again >= 0) {
    throw new ApiError(422, 'names a hierarchy already listed', { source: `${at}.hierarchy_ids[${again}]` });
  }
  const books = (attributes.pricebook_ids ?? []).map((book) => ({ ...book, id: book.id.toLowerCase() }));
  const twice = books.findIndex((book, i) => books.findIndex((other) => other.id === book.id) !== i);
  if (twice >= 0) {
    throw new ApiError(422, 'names a price book already listed', {
      source: `${at}.pricebook_ids[${twice}].id`,
    });
  }
  return {
    ...attributes,
    ...(attributes.hierarchy_ids ? { hierarchy_ids: hierarchies } : {}),
    ...(attributes.pricebook_id ? { pricebook_id: attributes.pricebook_id.toLowerCase() } : {}),
    ...(attributes.pricebook_ids ? { pricebook_ids: books } : {}),
  };
}

const validateNew = compileSchema(NEW_CATALOG_SCHEMA);
const validateUpdate = compileSchema(CATALOG_UPDATE_SCHEMA);
const validateRelease = compileSchema(NEW_RELEASE_SCHEMA);

export function parseNewCatalog(body: unknown): CatalogAttributes & { name: string } {
  const { data } = assertValid<{ data: { attributes: CatalogAttributes & { name: string } } }>(
    validateNew,
    body,
  );
  return normalised(data.attributes);
}

export function parseCatalogUpdate(body: unknown, catalogId: string): CatalogAttributes {
  const { data } = assertValid<{ data: { id?: string; attributes: CatalogAttributes } }>(
    validateUpdate,
    body,
  );
  if (data.id !== undefined && data.id.toLowerCase() !== catalogId) {
    throw new ConflictError('data.id must be the id of the path', 'data.id');
  }
  return normalised(data.attributes);
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
