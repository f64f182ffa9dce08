import { ApiError, BadRequestError, ConflictError, NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import { compileSchema, type Schema, WELL_FORMED_TEXT } from '../schema/index';
import type { ProductAttributes } from '../store/product-repository';
import { linkedIds, VARIATION_LINKS_SCHEMA } from './variation';

/** The platform's product bodies (`/pcm/products`, docs/products.md). */
export const PRODUCT_TYPE = 'product';
export const MAX_TAGS = 20;
/** Options of one bundle, all its components together (the platform's limit). */
export const MAX_BUNDLE_OPTIONS = 1500;
export const MAX_COMPONENTS = 100;
export const MAX_LOCALES = 100;
export const MAX_CUSTOM_INPUTS = 50;
export const MAX_EXTENSION_FLOWS = 20;
export const MAX_EXTENSION_FIELDS = 100;
export const MAX_EXTERNAL_REF = 2048;
export const MAX_DESCRIPTION = 30_000;
/**
 * Most bytes a product may take as JSON once an update is applied: each request body is at most 64 KB, but
 * updates of different attributes add up; this keeps the stored item well under DynamoDB's 400 KB.
 */
export const MAX_PRODUCT_BYTES = 300_000;

const TEXT = (max: number, what: string, min = 0): Schema => ({
  type: 'string',
  ...(min > 0 ? { minLength: min } : {}),
  maxLength: max,
  pattern: min > 0 ? `^(?=[\\s\\S]*\\S)${WELL_FORMED_TEXT}$` : `^${WELL_FORMED_TEXT}$`,
  'x-message':
    min > 0
      ? `must be a string of ${min} to ${max} characters, not only spaces`
      : `must be a string of at most ${max} characters`,
  description: what,
});

const INTEGER = (minimum: number, what: string): Schema => ({
  type: 'integer',
  minimum,
  maximum: 1_000_000,
  'x-message': `must be an integer from ${minimum} to 1000000`,
  description: what,
});

const SORT_ORDER: Schema = {
  type: 'integer',
  minimum: -1_000_000,
  maximum: 1_000_000,
  'x-message': 'must be an integer from -1000000 to 1000000',
  description: 'The display order.',
};

const COMBINATIONS: Schema = {
  type: 'array',
  maxItems: 1000,
  items: {
    type: 'array',
    minItems: 1,
    maxItems: 20,
    items: { type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9._~-]+$' },
  },
  'x-message': 'must be a list of at most 1000 combinations, each a list of 1 to 20 option ids',
  description: 'Combinations of option ids (from different variations).',
};

const OPTION: Schema = {
  type: 'object',
  required: ['id', 'type', 'quantity'],
  additionalProperties: false,
  properties: {
    id: {
      type: 'string',
      pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
      'x-message': 'must be the id of a product of the store',
      description: 'A product of the store.',
    },
    type: { const: PRODUCT_TYPE, description: 'Always `product`.' },
    quantity: INTEGER(1, 'How many of the product the option holds.'),
    sort_order: SORT_ORDER,
    default: { type: 'boolean', description: 'Selected unless the shopper chooses otherwise.' },
    min: INTEGER(1, 'Least quantity a shopper may choose (with `max`).'),
    max: INTEGER(1, 'Most quantity a shopper may choose (with `min`).'),
  },
};

/** Every attribute the API takes (`additionalProperties: false`: an unknown one is refused, never ignored). */
const ATTRIBUTES: Record<string, Schema> = {
  name: { ...TEXT(255, 'The product name.', 1), examples: ['Crew neck tee'] },
  sku: { ...TEXT(255, 'Unique among the store’s products, compared without regard to case.', 1) },
  slug: {
    type: 'string',
    minLength: 1,
    maxLength: 255,
    pattern: '^[A-Za-z0-9._-]+$',
    'x-message': 'must be 1 to 255 characters: A-Z, a-z, 0-9, hyphen, underscore and period',
    description:
      'The URL label. Default: the name without accents, in lower case, other runs of characters as one hyphen.',
  },
  description: TEXT(MAX_DESCRIPTION, 'The product description.'),
  status: { enum: ['draft', 'live'], 'x-message': 'must be draft or live', description: 'Default `draft`.' },
  commodity_type: {
    enum: ['physical', 'digital'],
    'x-message': 'must be physical or digital',
    description: 'Default `physical`.',
  },
  upc_ean: TEXT(255, 'The UPC or EAN.'),
  mpn: TEXT(255, 'The manufacturer part number (filters call it `manufacturer_part_num`).'),
  external_ref: {
    ...TEXT(MAX_EXTERNAL_REF, 'Unique among the store’s products (compared exactly).', 1),
  },
  tags: {
    type: 'array',
    maxItems: MAX_TAGS,
    items: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      pattern: '^[^,\\s<>\\p{Cc}\\uD800-\\uDFFF]+$',
      'x-message': 'must be 1 to 255 characters without commas, spaces, < or >',
    },
    'x-message': `must be a list of at most ${MAX_TAGS} tags`,
    description: 'Stored in lower case.',
  },
  locales: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: {
        name: TEXT(255, 'The name in this locale.', 1),
        description: TEXT(MAX_DESCRIPTION, 'The description in this locale.'),
      },
    },
    description: `Locale (such as \`fr-FR\`) to name and description; at most ${MAX_LOCALES}.`,
  },
  custom_inputs: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      additionalProperties: false,
      properties: {
        name: TEXT(255, 'What the shopper is asked.'),
        required: { type: 'boolean', description: 'Whether the shopper must answer.' },
        validation_rules: {
          type: 'array',
          maxItems: 1,
          items: {
            type: 'object',
            required: ['type'],
            additionalProperties: false,
            properties: {
              type: { const: 'string', description: 'Always `string`.' },
              options: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  max_length: {
                    type: 'integer',
                    minimum: 1,
                    maximum: 255,
                    'x-message': 'must be an integer from 1 to 255',
                  },
                },
              },
            },
          },
        },
      },
    },
    description: `What a shopper may type in (engraving text...); at most ${MAX_CUSTOM_INPUTS}.`,
  },
  build_rules: {
    type: 'object',
    required: ['default'],
    additionalProperties: false,
    properties: {
      default: { enum: ['include', 'exclude'], 'x-message': 'must be include or exclude' },
      include: COMBINATIONS,
      exclude: COMBINATIONS,
    },
    description: 'Which child products a build makes.',
  },
  components: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['name', 'options'],
      additionalProperties: false,
      properties: {
        name: TEXT(255, 'The component name.', 1),
        min: INTEGER(0, 'Least options a shopper chooses.'),
        max: INTEGER(0, 'Most options a shopper chooses.'),
        sort_order: SORT_ORDER,
        options: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_BUNDLE_OPTIONS,
          items: OPTION,
          'x-message': `must be a list of 1 to ${MAX_BUNDLE_OPTIONS} options`,
        },
      },
    },
    description: `A bundle's components, by a short name (A-Z, a-z, 0-9, - and _); at most ${MAX_BUNDLE_OPTIONS} options in all.`,
  },
  extensions: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      additionalProperties: {
        type: ['string', 'number', 'boolean', 'null'],
        maxLength: 4096,
        'x-message': 'must be a string of at most 4096 characters, a number, a boolean or null',
      },
    },
    description:
      'Custom data by template slug then field, taken on the product directly (the platform fills it through templates).',
  },
};

const TYPE: Schema = { const: PRODUCT_TYPE, description: 'Always `product`.' };

/** `POST /pcm/products`. */
export const NEW_PRODUCT_SCHEMA: Schema = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      required: ['type', 'attributes'],
      additionalProperties: false,
      properties: {
        type: TYPE,
        attributes: {
          type: 'object',
          required: ['name'],
          additionalProperties: false,
          properties: ATTRIBUTES,
        },
        relationships: {
          type: 'object',
          additionalProperties: false,
          description: 'Variations to link as the product is created (in link order).',
          properties: {
            variations: {
              type: 'object',
              required: ['data'],
              additionalProperties: false,
              properties: { data: VARIATION_LINKS_SCHEMA.properties?.data as Schema },
            },
          },
        },
      },
    },
  },
};

/** `PUT /pcm/products/{product_id}`: only the attributes sent change. */
export const PRODUCT_UPDATE_SCHEMA: Schema = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      required: ['type', 'id', 'attributes'],
      additionalProperties: false,
      properties: {
        type: TYPE,
        id: { type: 'string', maxLength: 64, description: 'The id of the path.' },
        attributes: { type: 'object', additionalProperties: false, properties: ATTRIBUTES },
      },
    },
  },
};

const validateNew = compileSchema(NEW_PRODUCT_SCHEMA);
const validateUpdate = compileSchema(PRODUCT_UPDATE_SCHEMA);

/** 422 with the path of the attribute at fault, as the platform answers a body it cannot take. */
export class ProductValidationError extends ApiError {
  override name = 'ProductValidationError';
  constructor(detail: string, source: string) {
    super(422, detail, { source });
  }
}

const KEY = /^[A-Za-z0-9_-]{1,64}$/;
/** A locale key (`en-US`, `fr`): language, then up to three subtags. */
export const LOCALE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,3}$/;

function checkKeys(
  map: Record<string, unknown> | undefined,
  path: string,
  pattern: RegExp,
  rule: string,
  max: number,
): void {
  if (map === undefined) return;
  const keys = Object.keys(map);
  if (keys.length > max) throw new ProductValidationError(`${path} may have at most ${max} entries`, path);
  for (const key of keys) {
    if (!pattern.test(key))
      throw new ProductValidationError(`${path}.${key}: the key ${rule}`, `${path}.${key}`);
  }
}

/** The checks a schema cannot say: map keys and sizes, the bundle's option count, min/max pairs. */
function checkAttributes(attributes: Partial<ProductAttributes>): void {
  const at = 'data.attributes';
  checkKeys(attributes.locales, `${at}.locales`, LOCALE, 'must be a locale such as en-US', MAX_LOCALES);
  checkKeys(
    attributes.custom_inputs,
    `${at}.custom_inputs`,
    KEY,
    'must be 1 to 64 characters: A-Z, a-z, 0-9, - and _',
    MAX_CUSTOM_INPUTS,
  );
  checkKeys(
    attributes.components,
    `${at}.components`,
    KEY,
    'must be 1 to 64 characters: A-Z, a-z, 0-9, - and _ (no special characters)',
    MAX_COMPONENTS,
  );
  checkKeys(
    attributes.extensions,
    `${at}.extensions`,
    KEY,
    'must be a template slug: 1 to 64 characters, A-Z, a-z, 0-9, - and _',
    MAX_EXTENSION_FLOWS,
  );
  for (const [flow, fields] of Object.entries(attributes.extensions ?? {})) {
    checkKeys(
      fields,
      `${at}.extensions.${flow}`,
      KEY,
      'must be a field name: 1 to 64 characters, A-Z, a-z, 0-9, - and _',
      MAX_EXTENSION_FIELDS,
    );
  }
  let options = 0;
  for (const [key, component] of Object.entries(attributes.components ?? {})) {
    options += component.options.length;
    const path = `${at}.components.${key}`;
    if (component.min !== undefined && component.max !== undefined && component.max < component.min) {
      throw new ProductValidationError(`${path}.max must be at least min`, `${path}.max`);
    }
    component.options.forEach((option, index) => {
      if ((option.min === undefined) !== (option.max === undefined)) {
        throw new ProductValidationError(
          `${path}.options.${index}: min and max go together`,
          `${path}.options.${index}`,
        );
      }
      if (option.min !== undefined && option.max !== undefined && option.max < option.min) {
        throw new ProductValidationError(
          `${path}.options.${index}.max must be at least min`,
          `${path}.options.${index}.max`,
        );
      }
    });
  }
  if (options > MAX_BUNDLE_OPTIONS) {
    throw new ProductValidationError(
      `${at}.components: a bundle may have at most ${MAX_BUNDLE_OPTIONS} options in all, got ${options}`,
      `${at}.components`,
    );
  }
}

/**
 * What is wrong with attributes a product could not be created with (a built child's, after its
 * modifiers), in the words of a 422 on them; undefined when nothing is.
 */
export function attributesProblem(attributes: ProductAttributes): string | undefined {
  const issue = validateNew({ data: { type: PRODUCT_TYPE, attributes } });
  if (issue) return issue.message;
  try {
    checkAttributes(attributes);
  } catch (error) {
    if (error instanceof ProductValidationError) return error.message;
    throw error;
  }
  return undefined;
}

function assertProduct<T>(validator: ReturnType<typeof compileSchema>, body: unknown): T {
  const issue = validator(body);
  if (issue) throw new ProductValidationError(issue.message, issue.path);
  return body as T;
}

/** Tags as stored: lower case (the catalog compares them so). */
function normalised<T extends Partial<ProductAttributes>>(attributes: T): T {
  if (attributes.tags === undefined) return attributes;
  return { ...attributes, tags: attributes.tags.map((tag) => tag.toLowerCase()) };
}

export function parseNewProduct(body: unknown): Partial<ProductAttributes> & { name: string } {
  const { data } = assertProduct<{ data: { attributes: Partial<ProductAttributes> & { name: string } } }>(
    validateNew,
    body,
  );
  checkAttributes(data.attributes);
  return normalised(data.attributes);
}

/** The variations a create body links (`data.relationships.variations.data`), lower-cased, in order. */
export function parseNewProductLinks(body: unknown): string[] {
  const { data } = body as { data: { relationships?: { variations?: { data: { id: string }[] } } } };
  const links = data.relationships?.variations;
  return links === undefined ? [] : linkedIds(links.data, 'data.relationships.variations.data');
}

/** The attributes to change; `data.id` must be the path's (409 otherwise, as for the platform's other PUTs). */
export function parseProductUpdate(body: unknown, productId: string): Partial<ProductAttributes> {
  const { data } = assertProduct<{ data: { id: string; attributes: Partial<ProductAttributes> } }>(
    validateUpdate,
    body,
  );
  if (data.id.toLowerCase() !== productId) {
    throw new ConflictError('data.id must be the id of the path', 'data.id');
  }
  checkAttributes(data.attributes);
  return normalised(data.attributes);
}

/** A product id of a path: a UUID (anything else is 404, like an unknown id). */
export function parseProductId(raw: string): string {
  if (!isUuid(raw)) throw new NotFoundError('product not found');
  return raw.toLowerCase();
}

export const PRODUCT_INCLUDES = ['component_products', 'main_image', 'files'] as const;
export type ProductInclude = (typeof PRODUCT_INCLUDES)[number];

/** `include`: a comma list of component_products, main_image and files (400 for anything else). */
export function parseProductInclude(raw: string | undefined): Set<ProductInclude> {
  const includes = new Set<ProductInclude>();
  if (raw === undefined) return includes;
  for (const part of raw.split(',')) {
    const name = part.trim().toLowerCase();
    if (!(PRODUCT_INCLUDES as readonly string[]).includes(name)) {
      throw new BadRequestError(
        `include may list ${PRODUCT_INCLUDES.join(', ')}; '${part.slice(0, 32)}' is not one of them`,
        'include',
      );
    }
    includes.add(name as ProductInclude);
  }
  return includes;
}

/** `POST /pcm/products/{product_id}/build` takes no body, or `{}` (as the platform): anything else is 400. */
export function parseBuildRequest(body: unknown): void {
  const empty =
    body === undefined ||
    (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
  if (!empty) throw new BadRequestError('a build takes no body: send none, or {}', 'body');
}
