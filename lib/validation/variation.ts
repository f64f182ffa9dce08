import { ApiError, ConflictError, NotFoundError } from '../http/errors';
import { isUuid } from '../ids';
import {
  assertValid,
  boundedText,
  compileSchema,
  dataEnvelope,
  nonBlankText,
  type Schema,
  WELL_FORMED_TEXT,
} from '../schema/index';

/**
 * The platform's variation bodies (`/pcm/variations`, its options and their modifiers; docs/variations.md).
 * Every string and the one object-valued modifier value are bounded, so no accepted body comes near
 * DynamoDB's 400 KB item limit (each variation, option and modifier is an item of its own).
 */
export const VARIATION_TYPE = 'product-variation';
export const OPTION_TYPE = 'product-variation-option';
export const MODIFIER_TYPE = 'product-variation-modifier';
export const VARIATION_NAME_MAX = 255;
export const OPTION_DESCRIPTION_MAX = 1024;
export const MODIFIER_VALUE_MAX = 1024;
/** Bytes of an object modifier value (`custom_inputs_equals`, `build_rules_equals`, `locales_equals`). */
export const MODIFIER_OBJECT_MAX_BYTES = 64 * 1024;

/** Option names: A–Z, a–z, 0–9, `-`, `_`, `.`, no spaces (the platform's spec). */
const OPTION_NAME_PATTERN = '^[A-Za-z0-9._-]+$';
const SLUG_PATTERN = '^[A-Za-z0-9._-]+$';

const TEXT = boundedText;

const NAME: Schema = { ...nonBlankText(VARIATION_NAME_MAX, 'The variation name.'), examples: ['Size'] };

const SORT_ORDER: Schema = {
  type: 'integer',
  minimum: -2147483648,
  maximum: 2147483647,
  'x-message': 'must be a 32-bit integer',
  description: 'Any integer; the highest is shown first.',
};
const SORT_ORDER_OR_NULL: Schema = {
  ...SORT_ORDER,
  type: ['integer', 'null'],
  'x-message': 'must be a 32-bit integer or null (null removes it)',
};

const OPTION_NAME: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: VARIATION_NAME_MAX,
  pattern: OPTION_NAME_PATTERN,
  'x-message': `must be 1 to ${VARIATION_NAME_MAX} of A-Z, a-z, 0-9, "-", "_" and "." (no spaces)`,
  description: 'The option name.',
  examples: ['Large'],
};

const body = (type: string, data: Record<string, Schema>, required: string[]): Schema =>
  dataEnvelope({
    type: 'object',
    required: ['type', 'attributes', ...required],
    additionalProperties: false,
    'x-message': 'must be an object with type, attributes and (on updates) id',
    properties: { type: { const: type, description: `Always \`${type}\`.` }, ...data },
  });
const ID: Schema = { type: 'string', maxLength: 64, description: 'The id of the path.' };
const attributes = (properties: Record<string, Schema>, required: string[]): Schema => ({
  type: 'object',
  required,
  properties,
  additionalProperties: false,
  'x-message': `must be an object of only ${Object.keys(properties).join(', ')}`,
});

/** `POST /pcm/variations`. */
export const NEW_VARIATION_SCHEMA = body(
  VARIATION_TYPE,
  { attributes: attributes({ name: NAME, sort_order: SORT_ORDER }, ['name']) },
  [],
);
/** `PUT /pcm/variations/{variation_id}`: `sort_order: null` removes it. */
export const VARIATION_UPDATE_SCHEMA = body(
  VARIATION_TYPE,
  { id: ID, attributes: attributes({ name: NAME, sort_order: SORT_ORDER_OR_NULL }, []) },
  [],
);
/** `POST /pcm/variations/{variation_id}/options`. */
export const NEW_OPTION_SCHEMA = body(
  OPTION_TYPE,
  {
    attributes: attributes(
      {
        name: OPTION_NAME,
        description: TEXT(OPTION_DESCRIPTION_MAX, 'A description of the option.'),
        sort_order: SORT_ORDER,
      },
      ['name'],
    ),
  },
  [],
);
/** `PUT /pcm/variations/{variation_id}/options/{option_id}`: the body names the option. */
export const OPTION_UPDATE_SCHEMA = body(
  OPTION_TYPE,
  {
    id: ID,
    attributes: attributes(
      {
        name: OPTION_NAME,
        description: TEXT(OPTION_DESCRIPTION_MAX, 'A description of the option.'),
        sort_order: SORT_ORDER_OR_NULL,
      },
      [],
    ),
  },
  ['id'],
);

/** The modifier types of the platform's enum. */
export const STRING_MODIFIER_TYPES = [
  'name_append',
  'name_prepend',
  'name_equals',
  'sku_append',
  'sku_prepend',
  'sku_equals',
  'slug_append',
  'slug_prepend',
  'slug_equals',
  'description_append',
  'description_prepend',
  'description_equals',
  'upc_ean_equals',
  'mpn_equals',
  'external_ref_equals',
] as const;
export const OBJECT_MODIFIER_TYPES = [
  'custom_inputs_equals',
  'build_rules_equals',
  'locales_equals',
] as const;
export const BUILDER_MODIFIER_TYPES = ['sku_builder', 'slug_builder'] as const;
export const MODIFIER_TYPES = [
  'commodity_type',
  'status',
  'price',
  ...STRING_MODIFIER_TYPES,
  ...BUILDER_MODIFIER_TYPES,
  ...OBJECT_MODIFIER_TYPES,
] as const;
export type ModifierType = (typeof MODIFIER_TYPES)[number];

const MODIFIER_ATTRIBUTES: Record<string, Schema> = {
  type: { enum: MODIFIER_TYPES, 'x-message': `must be one of ${MODIFIER_TYPES.join(', ')}` },
  value: {
    anyOf: [{ type: 'string' }, { type: 'object' }],
    'x-message': 'must be a string or an object',
    description:
      'Required except for `*_builder` and `price`: a string, `physical`/`digital` for `commodity_type`, `draft`/`live` for `status`, an object for `custom_inputs_equals`, `build_rules_equals`, `locales_equals`.',
  },
  seek: { ...TEXT(MODIFIER_VALUE_MAX, '`*_builder`: the placeholder the builder replaces, e.g. `{color}`.') },
  set: { ...TEXT(MODIFIER_VALUE_MAX, '`*_builder`: the text the placeholder becomes.') },
  reference_name: {
    ...TEXT(VARIATION_NAME_MAX, '`price`: the name of a price book price modifier.'),
    minLength: 1,
  },
};
/** `POST …/options/{option_id}/modifiers`. */
export const NEW_MODIFIER_SCHEMA = body(
  MODIFIER_TYPE,
  { attributes: attributes(MODIFIER_ATTRIBUTES, ['type']) },
  [],
);
/** `PUT …/modifiers/{modifier_id}`: the modifier's whole new definition (the SDK sends it with `id`). */
export const MODIFIER_UPDATE_SCHEMA = body(
  MODIFIER_TYPE,
  { id: ID, attributes: attributes(MODIFIER_ATTRIBUTES, ['type']) },
  [],
);

export interface VariationAttributes {
  name?: string;
  sort_order?: number | null;
}
export interface OptionAttributes {
  name?: string;
  description?: string;
  sort_order?: number | null;
}
export interface ModifierAttributes {
  type: ModifierType;
  value?: string | Record<string, unknown>;
  seek?: string;
  set?: string;
  reference_name?: string;
}

const validateNewVariation = compileSchema(NEW_VARIATION_SCHEMA);
const validateVariationUpdate = compileSchema(VARIATION_UPDATE_SCHEMA);
const validateNewOption = compileSchema(NEW_OPTION_SCHEMA);
const validateOptionUpdate = compileSchema(OPTION_UPDATE_SCHEMA);
const validateNewModifier = compileSchema(NEW_MODIFIER_SCHEMA);
const validateModifierUpdate = compileSchema(MODIFIER_UPDATE_SCHEMA);

type Body<A> = { data: { id?: string; attributes: A } };

function matchingId(id: string | undefined, pathId: string): void {
  if (id !== undefined && id.toLowerCase() !== pathId) {
    throw new ConflictError('data.id must be the id of the path', 'data.id');
  }
}

export function parseNewVariation(input: unknown): VariationAttributes & { name: string } {
  return assertValid<Body<VariationAttributes & { name: string }>>(validateNewVariation, input).data
    .attributes;
}
export function parseVariationUpdate(input: unknown, variationId: string): VariationAttributes {
  const { data } = assertValid<Body<VariationAttributes>>(validateVariationUpdate, input);
  matchingId(data.id, variationId);
  return data.attributes;
}
export function parseNewOption(input: unknown): OptionAttributes & { name: string } {
  return assertValid<Body<OptionAttributes & { name: string }>>(validateNewOption, input).data.attributes;
}
export function parseOptionUpdate(input: unknown, optionId: string): OptionAttributes {
  const { data } = assertValid<Body<OptionAttributes>>(validateOptionUpdate, input);
  matchingId(data.id, optionId);
  return data.attributes;
}

/** 422 "Failed Validation" with its detail, for a value that does not fit its modifier type. */
function invalid(detail: string, source: string): never {
  throw new ApiError(422, detail, { source });
}

/**
 * The per-type rules the schema cannot state: which of value / seek+set / reference_name a type takes,
 * and the shape of its value. Anything else sent with the type is refused (never silently dropped).
 */
function checkModifier(attributes: ModifierAttributes): ModifierAttributes {
  const at = 'data.attributes';
  const { type, value, seek, set, reference_name } = attributes;
  const refuse = (field: string, why: string) =>
    invalid(`${field} ${why} for a ${type} modifier`, `${at}.${field}`);
  const builder = (BUILDER_MODIFIER_TYPES as readonly string[]).includes(type);
  if (builder) {
    if (seek === undefined) refuse('seek', 'is required');
    if (set === undefined) refuse('set', 'is required');
    if (value !== undefined) refuse('value', 'is not allowed');
    if (reference_name !== undefined) refuse('reference_name', 'is not allowed');
    if (!/^\{[^{}]+\}$/u.test(seek as string))
      refuse('seek', 'must be a placeholder in braces, like {color},');
    if (type === 'slug_builder' && !/^[A-Za-z0-9._-]*$/.test(set as string)) {
      refuse('set', 'must be A-Z, a-z, 0-9, "-", "_" and "."');
    }
    return { type, seek, set };
  }
  if (seek !== undefined) refuse('seek', 'is only for sku_builder and slug_builder, not allowed');
  if (set !== undefined) refuse('set', 'is only for sku_builder and slug_builder, not allowed');
  if (type === 'price') {
    if (reference_name === undefined) refuse('reference_name', 'is required');
    if (value !== undefined) refuse('value', 'is not allowed');
    return { type, reference_name };
  }
  if (reference_name !== undefined) refuse('reference_name', 'is only for price modifiers, not allowed');
  if (value === undefined) refuse('value', 'is required');
  if ((OBJECT_MODIFIER_TYPES as readonly string[]).includes(type)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      refuse('value', 'must be an object');
    if (Buffer.byteLength(JSON.stringify(value)) > MODIFIER_OBJECT_MAX_BYTES) {
      refuse('value', `must be at most ${MODIFIER_OBJECT_MAX_BYTES} bytes of JSON`);
    }
    return { type, value };
  }
  if (typeof value !== 'string') refuse('value', 'must be a string');
  const text = value as string;
  if (text.length > MODIFIER_VALUE_MAX || !new RegExp(`^${WELL_FORMED_TEXT}$`, 'u').test(text)) {
    refuse('value', `must be a string of at most ${MODIFIER_VALUE_MAX} characters`);
  }
  if (type === 'commodity_type' && text !== 'physical' && text !== 'digital') {
    refuse('value', 'must be physical or digital');
  }
  if (type === 'status' && text !== 'draft' && text !== 'live') refuse('value', 'must be draft or live');
  if (type.startsWith('slug_') && !new RegExp(SLUG_PATTERN).test(text)) {
    refuse('value', 'must be A-Z, a-z, 0-9, "-", "_" and "."');
  }
  if (type.endsWith('_equals') && text.length === 0) refuse('value', 'can not be empty');
  return { type, value: text };
}

export function parseNewModifier(input: unknown): ModifierAttributes {
  return checkModifier(assertValid<Body<ModifierAttributes>>(validateNewModifier, input).data.attributes);
}
export function parseModifierUpdate(input: unknown, modifierId: string): ModifierAttributes {
  const { data } = assertValid<Body<ModifierAttributes>>(validateModifierUpdate, input);
  matchingId(data.id, modifierId);
  return checkModifier(data.attributes);
}

/** A variation, option or modifier id of a path: a UUID (anything else is 404, like an unknown id). */
export function parseVariationId(raw: string): string {
  if (!isUuid(raw)) throw new NotFoundError();
  return raw.toLowerCase();
}

/** Variations a product may link (the platform states no limit). */
export const MAX_LINKED_VARIATIONS = 20;

/** `POST`, `PUT`, `DELETE /pcm/products/{product_id}/relationships/variations`. */
export const VARIATION_LINKS_SCHEMA: Schema = dataEnvelope({
  type: 'array',
  maxItems: MAX_LINKED_VARIATIONS,
  'x-message': `must be an array of at most ${MAX_LINKED_VARIATIONS} variations`,
  description: 'Variations by id; the order of a `PUT` (or of additions) is the link order.',
  items: {
    type: 'object',
    required: ['type', 'id'],
    additionalProperties: false,
    'x-message': 'must be an object with only type and id',
    properties: {
      type: { const: VARIATION_TYPE, description: `Always \`${VARIATION_TYPE}\`.` },
      id: {
        type: 'string',
        maxLength: 64,
        'x-message': 'must be a variation id',
        description: 'A variation id.',
      },
    },
  },
});
const validateVariationLinks = compileSchema(VARIATION_LINKS_SCHEMA);

/**
 * The variation ids of a relationships body, lower-cased, in the order sent: 422 naming one that is not a
 * UUID (no variation has that id) or that is listed twice.
 */
export function parseVariationLinks(input: unknown): string[] {
  const { data } = assertValid<{ data: { id: string }[] }>(validateVariationLinks, input);
  return linkedIds(data, 'data');
}

/** The ids of a list of variations already of the right shape, at `path` (422 as parseVariationLinks). */
export function linkedIds(data: { id: string }[], path: string): string[] {
  const ids: string[] = [];
  data.forEach(({ id }, index) => {
    const source = `${path}[${index}].id`;
    if (!isUuid(id)) invalid(`${source}: variation ${id} not found`, source);
    if (ids.includes(id.toLowerCase())) invalid(`${source}: variation ${id} is listed twice`, source);
    ids.push(id.toLowerCase());
  });
  return ids;
}
