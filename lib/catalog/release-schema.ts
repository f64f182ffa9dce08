import type { ErrorObject, ValidateFunction } from 'ajv/dist/types';
import schema from '../../catalog/release.schema.json' with { type: 'json' };
import { compileReleaseValidator } from './release-validator.generated';

/**
 * The release document's shape, checked with `catalog/release.schema.json` (JSON Schema 2020-12), compiled
 * by Ajv ahead of time (`release-validator.generated.ts`, written by `npm run catalog-types`): the
 * publishing workflow's Validate and Plan steps, the publisher and the catalog CLI use it, and none of them
 * loads Ajv or compiles the schema (the API functions keep `lib/schema` for request bodies).
 */
export const RELEASE_SCHEMA = schema;

/** Ajv's options for the schema: every error, strict, each error with its subschema and data for wording. */
export const RELEASE_SCHEMA_OPTIONS = {
  allErrors: true,
  verbose: true,
  strict: true,
  allowUnionTypes: true,
  // `format` is an annotation here (for editors); patterns carry the checks.
  validateFormats: false,
} as const;

/** The validating function and its locator, made on the first validation (see `checkShape`). */
let compiled: { validate: ValidateFunction; locate: Locate } | undefined;

/** A JSON path as its segments: object keys and array indexes, from the document root. */
export type PathSegments = (string | number)[];

/** One problem found by the schema, before it is given its printable path. */
export interface ShapeIssue {
  segments: PathSegments;
  rule: string;
  message: string;
}

/** A rule name and message for an Ajv error that the generic mapping below would word less well. */
type Wording = (error: ErrorObject) => { rule: string; message: string };

const NOT_EMPTY: Wording = () => ({ rule: 'required', message: 'must not be empty' });
const UUID: Wording = (error) => ({
  rule: 'uuid',
  message: `must be a UUID, got ${typeof error.data === 'string' ? JSON.stringify(error.data.slice(0, 64)) : describe(error.data)}`,
});
const DATE_TIME: Wording = () => ({
  rule: 'date-time',
  message: 'must be an ISO 8601 date-time with a time zone, e.g. 2024-05-01T12:00:00Z',
});
const CURRENCY_KEY: Wording = (error) => ({
  rule: 'currency',
  message: `${JSON.stringify(error.params.propertyName)} is not an ISO 4217 currency code`,
});
const AT_LEAST_ONE_CURRENCY: Wording = () => ({
  rule: 'required',
  message: 'must hold at least one currency',
});
const AT_LEAST_ONE_OPTION: Wording = () => ({ rule: 'required', message: 'must list at least one option' });

/**
 * Wording by the schema location (JSON pointer of the subschema) and keyword, where the generic one is not
 * the rule users know: these keep the rule names and messages the publisher has always reported. A test
 * checks that every location exists in the schema.
 */
export const WORDING: Record<string, Wording> = {
  '#/$defs/text pattern': NOT_EMPTY,
  '#/$defs/contextValue pattern': () => ({
    rule: 'pattern',
    message: 'must be 1 to 64 printable ASCII characters (a request header carries it), not only spaces',
  }),
  '#/$defs/nullableText pattern': NOT_EMPTY,
  '#/$defs/modifierName pattern': NOT_EMPTY,
  '#/$defs/uuid type': UUID,
  '#/$defs/uuid pattern': UUID,
  '#/$defs/nullableUuid type': UUID,
  '#/$defs/nullableUuid pattern': UUID,
  '#/$defs/dateTime type': DATE_TIME,
  '#/$defs/dateTime pattern': DATE_TIME,
  '#/$defs/nullableDateTime type': DATE_TIME,
  '#/$defs/nullableDateTime pattern': DATE_TIME,
  '#/$defs/slug pattern': () => ({
    rule: 'slug',
    message: 'may only contain A-Z, a-z, 0-9, hyphen, underscore and period',
  }),
  '#/$defs/tag/allOf/0 pattern': () => ({ rule: 'tags', message: 'tags must not contain commas' }),
  '#/$defs/tag/allOf/1 pattern': () => ({
    rule: 'tags',
    message: 'tags must not contain <, > or control characters',
  }),
  '#/$defs/attributes/properties/tags maxItems': (error) => ({
    rule: 'max_items',
    message: `at most ${error.params.limit} tags, got ${(error.data as unknown[]).length}`,
  }),
  '#/properties/rules maxItems': (error) => ({
    rule: 'max_items',
    message: `at most ${error.params.limit} rules, got ${(error.data as unknown[]).length}`,
  }),
  '#/$defs/attributes/properties/product_types minItems': () => ({
    rule: 'required',
    message: 'must list at least one product type',
  }),
  '#/$defs/variation/properties/options minItems': AT_LEAST_ONE_OPTION,
  '#/$defs/component/properties/options minItems': AT_LEAST_ONE_OPTION,
  '#/properties/currencies minProperties': AT_LEAST_ONE_CURRENCY,
  '#/$defs/priceModifier/properties/currencies minProperties': AT_LEAST_ONE_CURRENCY,
  '#/properties/currencies propertyNames': CURRENCY_KEY,
  '#/$defs/priceMap propertyNames': CURRENCY_KEY,
  '#/$defs/productPrice propertyNames': CURRENCY_KEY,
  '#/properties/price_modifiers propertyNames': () => ({
    rule: 'name',
    message: 'modifier names must be 1 to 255 characters, not only white space',
  }),
  '#/$defs/attributes/properties/locales propertyNames': (error) => ({
    rule: 'locale',
    message: `${JSON.stringify(error.params.propertyName)} is not a language tag such as fr or fr-FR`,
  }),
  '#/$defs/product/properties/variation_options propertyNames': () => ({
    rule: 'uuid',
    message: 'keys must be variation ids (UUIDs)',
  }),
  '#/$defs/currencySettings/properties/format pattern': () => ({
    rule: 'format',
    message: 'must contain {price}, e.g. "${price}"',
  }),
  '#/$defs/customInputMaxLength maximum': (error) => ({
    rule: 'max_length',
    message: `must be at most ${error.params.limit}, got ${error.data}`,
  }),
  '#/$defs/file/properties/mime_type pattern': () => ({
    rule: 'mime_type',
    message: 'must be a media type such as image/jpeg',
  }),
  '#/$defs/file/properties/link/properties/href pattern': () => ({
    rule: 'href',
    message: 'must be an https URL (http only for localhost, 127.0.0.1 or [::1])',
  }),
};

/** Required fields whose message says more than "is required". */
const REQUIRED_MESSAGES: Record<string, string> = {
  '# catalog': 'is required: {"name": "..."}',
  '# products': 'is required: an array of products',
  '#/$defs/tier minimum_quantity': 'is required (an integer, 1 or more)',
};

/** `null`, `an array`, `a string`... for messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'nothing';
  return `a ${typeof value}`;
}

const ARTICLE: Record<string, string> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  null: 'null',
};

function typeWording(error: ErrorObject): { rule: string; message: string } {
  const types = String(error.params.type).split(',');
  const names = types.map((type) => ARTICLE[type] ?? type);
  const expected = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  const got = typeof error.data === 'number' ? String(error.data) : describe(error.data);
  return { rule: types.includes('integer') ? 'integer' : 'type', message: `must be ${expected}, got ${got}` };
}

function rangeWording(error: ErrorObject): { rule: string; message: string } {
  const parent = error.parentSchema as { minimum?: number; maximum?: number };
  const min = parent.minimum ?? Number.MIN_SAFE_INTEGER;
  const max = parent.maximum ?? Number.MAX_SAFE_INTEGER;
  return { rule: 'range', message: `must be from ${min} to ${max}, got ${error.data}` };
}

/** The generic wording of an Ajv error, by keyword. */
function genericWording(error: ErrorObject, allowed: () => string[]): { rule: string; message: string } {
  const params = error.params;
  switch (error.keyword) {
    case 'type':
      return typeWording(error);
    case 'required':
      return { rule: 'required', message: 'is required' };
    case 'additionalProperties':
      return { rule: 'unknown_field', message: `is not a field here; allowed: ${allowed().join(', ')}` };
    case 'enum':
    case 'const': {
      const values = (params.allowedValues ?? [params.allowedValue]) as unknown[];
      return {
        rule: 'enum',
        message: `must be one of ${values.join(', ')}, got ${JSON.stringify(error.data) ?? 'nothing'}`,
      };
    }
    case 'minimum':
    case 'maximum':
      return rangeWording(error);
    case 'maxLength':
      return {
        rule: 'max_length',
        message: `must be at most ${params.limit} characters, got ${[...String(error.data)].length}`,
      };
    case 'minItems':
      return {
        rule: 'required',
        message: `must list at least ${params.limit} item${params.limit === 1 ? '' : 's'}`,
      };
    case 'maxItems':
      return {
        rule: 'max_items',
        message: `at most ${params.limit} items, got ${(error.data as unknown[]).length}`,
      };
    case 'minProperties':
      return { rule: 'required', message: 'must not be empty' };
    case 'uniqueItems': {
      const item = (error.data as unknown[])[Math.max(params.i, params.j)];
      return { rule: 'unique', message: `${JSON.stringify(item)} is listed twice` };
    }
    default:
      return { rule: error.keyword, message: error.message ?? 'is not valid' };
  }
}

/** Where an Ajv error comes from: the JSON pointer of its subschema (`#/$defs/uuid`). */
export type Locate = (error: ErrorObject) => string;

/** Every object of each (subschema, pointer) pair, with its pointer: a Locate by `parentSchema`. */
export function locatorOf(parts: Iterable<readonly [unknown, string]>): Locate {
  const pointers = new Map<unknown, string>();
  const walk = (node: unknown, pointer: string): void => {
    if (typeof node !== 'object' || node === null) return;
    if (!Array.isArray(node)) pointers.set(node, pointer);
    for (const [key, child] of Object.entries(node)) walk(child, `${pointer}/${key}`);
  };
  for (const [node, pointer] of parts) walk(node, pointer);
  return (error) => pointers.get(error.parentSchema) ?? error.schemaPath;
}

/** Decodes an Ajv instance path into segments, numbers where the document holds an array. */
function segmentsOf(root: unknown, pointer: string): PathSegments {
  if (pointer === '') return [];
  const segments: PathSegments = [];
  let current: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(current)) {
      segments.push(Number(key));
      current = current[Number(key)];
    } else {
      segments.push(key);
      current = (current as Record<string, unknown> | undefined)?.[key];
    }
  }
  return segments;
}

/**
 * Checks a release document against the schema; every problem, each with its path, rule and message
 * (an error inside `propertyNames` is reported once, at the offending key).
 */
export function checkShape(document: unknown): ShapeIssue[] {
  if (compiled === undefined) {
    const made = compileReleaseValidator();
    // The locator walks every subschema once: only when a document has errors.
    let locate: Locate | undefined;
    compiled = {
      validate: made.validate as unknown as ValidateFunction,
      locate: (error) => {
        locate ??= locatorOf(made.locations as [unknown, string][]);
        return locate(error);
      },
    };
  }
  const { validate, locate } = compiled;
  if (validate(document)) return [];
  return shapeIssues(document, validate.errors ?? [], locate);
}

/** The issues of Ajv's `errors` for `document` (see `checkShape`), each error's subschema found by `locate`. */
export function shapeIssues(document: unknown, errors: ErrorObject[], locate: Locate): ShapeIssue[] {
  // A bad key is reported by its `propertyNames` error; the errors of the key's own checks (the value they
  // saw is the key, a string, at the object's path) would say it again.
  const keyed = new Set(
    errors.filter((error) => error.keyword === 'propertyNames').map((e) => e.instancePath),
  );
  const issues: ShapeIssue[] = [];
  for (const error of errors) {
    if (
      error.keyword !== 'propertyNames' &&
      (error.propertyName !== undefined || (keyed.has(error.instancePath) && typeof error.data === 'string'))
    ) {
      continue;
    }
    const location = locate(error);
    const segments = segmentsOf(document, error.instancePath);
    let wording = WORDING[`${location} ${error.keyword}`]?.(error);
    if (error.keyword === 'required') {
      const missing = String(error.params.missingProperty);
      segments.push(missing);
      const message = REQUIRED_MESSAGES[`${location} ${missing}`];
      if (message !== undefined) wording = { rule: 'required', message };
    } else if (error.keyword === 'additionalProperties') {
      segments.push(String(error.params.additionalProperty));
    } else if (error.keyword === 'propertyNames') {
      segments.push(String(error.params.propertyName));
    } else if (error.keyword === 'uniqueItems') {
      segments.push(Math.max(error.params.i, error.params.j));
    }
    wording ??= genericWording(error, () =>
      Object.keys((error.parentSchema as { properties?: object }).properties ?? {}),
    );
    issues.push({ segments, ...wording });
  }
  return issues;
}
