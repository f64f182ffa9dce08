import { BadRequestError } from '../http/errors';

/**
 * The JSON Schema (2020-12, as OpenAPI 3.1 uses it) subset that request validation supports. The same
 * objects are published in the OpenAPI document, so the contract and the checks cannot drift apart;
 * `compileSchema` rejects any keyword outside this subset rather than silently ignoring it.
 */
export interface Schema {
  type?: SchemaType | SchemaType[];
  properties?: Record<string, Schema>;
  required?: readonly string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  const?: string | number | boolean | null;
  enum?: readonly (string | number | boolean | null)[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: Schema[];
  oneOf?: Schema[];
  /** OpenAPI's discriminator: picks the `oneOf` branch whose `const` matches this property. */
  discriminator?: { propertyName: string };
  $ref?: string;
  // Annotations: published, never checked.
  title?: string;
  description?: string;
  format?: string;
  default?: unknown;
  examples?: unknown[];
  readOnly?: boolean;
  writeOnly?: boolean;
  /** The whole rule in words (type included), the error detail when the value breaks it: `${path} ${x-message}`. */
  'x-message'?: string;
  /**
   * Most UTF-8 bytes a string may take (checked): for values that become part of a DynamoDB key, whose
   * limits are in bytes (2,048 for a partition key, 1,024 for a sort key), where `maxLength` counts
   * characters of up to 4 bytes each.
   */
  'x-max-bytes'?: number;
}

export type SchemaType = 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'null';

/**
 * A `pattern` fragment for any number of whole characters: no lone UTF-16 surrogate (patterns run with
 * the `u` flag, so a well-formed pair is one character and passes).
 */
export const WELL_FORMED_TEXT = '[^\\uD800-\\uDFFF]*';

/** A string of at most `max` whole characters, described as `what`. */
export const boundedText = (max: number, what: string): Schema => ({
  type: 'string',
  maxLength: max,
  pattern: `^${WELL_FORMED_TEXT}$`,
  'x-message': `must be a string of at most ${max} characters`,
  description: what,
});

/** A string of 1 to `max` whole characters, not only white space, described as `what`. */
/** A request body of only `data`. */
export const dataEnvelope = (data: Schema): Schema => ({
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  'x-message': 'must be an object with only `data`',
  properties: { data },
});

export const nonBlankText = (max: number, what: string): Schema => ({
  type: 'string',
  minLength: 1,
  maxLength: max,
  pattern: `^(?=[\\s\\S]*\\S)${WELL_FORMED_TEXT}$`,
  'x-message': `must be a string of 1 to ${max} characters, not only spaces`,
  description: what,
});

/** The first rule a value breaks: where (a dotted path) and why (a complete sentence). */
export interface SchemaIssue {
  path: string;
  message: string;
}

type Check = (value: unknown, path: string) => SchemaIssue | undefined;

const ANNOTATIONS = new Set([
  'title',
  'description',
  'format',
  'default',
  'examples',
  'readOnly',
  'writeOnly',
  'x-message',
]);
const KEYWORDS = new Set([
  ...ANNOTATIONS,
  'x-max-bytes',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'const',
  'enum',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'anyOf',
  'oneOf',
  'discriminator',
]);

const ARTICLE: Record<SchemaType, string> = {
  object: 'an object',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  array: 'an array',
  null: 'null',
};

function typeOf(value: unknown): SchemaType | 'other' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'object':
      return typeof value as SchemaType;
    case 'number':
      return Number.isFinite(value) ? 'number' : 'other';
    default:
      return 'other';
  }
}

function hasType(value: unknown, type: SchemaType): boolean {
  const actual = typeOf(value);
  if (type === 'integer') return actual === 'number' && Number.isInteger(value);
  return actual === type;
}

/** "a", "a or b", "a, b or c" */
function oneOfWords(values: readonly unknown[]): string {
  const words = values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value)));
  return words.length <= 1
    ? (words[0] ?? '')
    : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

const child = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

/** Length in code points, as JSON Schema counts it: 255 emoji are as long as 255 letters. */
function codePoints(value: string): number {
  let length = 0;
  for (const _ of value) length += 1;
  return length;
}

interface CompileContext {
  resolve: (ref: string) => Schema;
  /** What the value itself is called in messages: `body`, or a parameter's name. */
  root: string;
}

function compileNode(schema: Schema, context: CompileContext): Check {
  const named = (path: string) => (path === '' ? context.root : path);
  for (const keyword of Object.keys(schema)) {
    if (!KEYWORDS.has(keyword) && keyword !== '$ref') {
      throw new Error(`schema keyword ${keyword} is not supported by compileSchema`);
    }
  }
  if (schema.$ref !== undefined) return compileNode(context.resolve(schema.$ref), context);
  const checks: Check[] = [];
  const rule = schema['x-message'];
  const fail = (path: string, fallback: string): SchemaIssue => ({
    path: named(path),
    message: `${named(path)} ${rule ?? fallback}`,
  });

  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    checks.push((value, path) =>
      types.some((type) => hasType(value, type))
        ? undefined
        : fail(path, `must be ${oneOfWords(types.map((t) => ARTICLE[t]))}`),
    );
  }
  if (schema.const !== undefined) {
    const expected = schema.const;
    checks.push((value, path) =>
      value === expected
        ? undefined
        : { path: named(path), message: `${named(path)} must be ${oneOfWords([expected])}` },
    );
  }
  if (schema.enum !== undefined) {
    const allowed = schema.enum;
    checks.push((value, path) =>
      allowed.includes(value as never)
        ? undefined
        : { path: named(path), message: `${named(path)} must be ${oneOfWords(allowed)}` },
    );
  }
  const maxBytes = schema['x-max-bytes'];
  if (maxBytes !== undefined) {
    checks.push((value, path) =>
      typeof value === 'string' && Buffer.byteLength(value, 'utf8') > maxBytes
        ? fail(path, `must be at most ${maxBytes} bytes in UTF-8`)
        : undefined,
    );
  }
  const { minLength, maxLength, pattern } = schema;
  if (minLength !== undefined || maxLength !== undefined || pattern !== undefined) {
    const regex = pattern === undefined ? undefined : new RegExp(pattern, 'u');
    checks.push((value, path) => {
      if (typeof value !== 'string') return undefined;
      const length = minLength !== undefined || maxLength !== undefined ? codePoints(value) : 0;
      if (minLength !== undefined && length < minLength)
        return fail(path, `must be at least ${minLength} characters`);
      if (maxLength !== undefined && length > maxLength)
        return fail(path, `must be at most ${maxLength} characters`);
      if (regex && !regex.test(value)) return fail(path, `must match ${pattern}`);
      return undefined;
    });
  }
  const { minimum, maximum } = schema;
  if (minimum !== undefined || maximum !== undefined) {
    checks.push((value, path) => {
      if (typeof value !== 'number') return undefined;
      if (minimum !== undefined && value < minimum)
        return fail(path, `must be greater than or equal to ${minimum}`);
      if (maximum !== undefined && value > maximum)
        return fail(path, `must be less than or equal to ${maximum}`);
      return undefined;
    });
  }
  if (schema.required !== undefined || schema.properties !== undefined) {
    const required = schema.required ?? [];
    const properties = Object.entries(schema.properties ?? {}).map(
      ([key, property]) => [key, compileNode(property, context)] as const,
    );
    checks.push((value, path) => {
      if (typeOf(value) !== 'object') return undefined;
      const record = value as Record<string, unknown>;
      // Own properties only: `constructor` or `__proto__` must never be read from the prototype.
      for (const key of required) {
        if (!Object.hasOwn(record, key) || record[key] === undefined) {
          return { path: child(path, key), message: `${child(path, key)} is required` };
        }
      }
      for (const [key, check] of properties) {
        if (!Object.hasOwn(record, key)) continue;
        const issue = check(record[key], child(path, key));
        if (issue) return issue;
      }
      return undefined;
    });
  }
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== true) {
    const known = new Set(Object.keys(schema.properties ?? {}));
    const extra =
      schema.additionalProperties === false ? undefined : compileNode(schema.additionalProperties, context);
    checks.push((value, path) => {
      if (typeOf(value) !== 'object') return undefined;
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        if (known.has(key)) continue;
        if (!extra) return { path: child(path, key), message: `${child(path, key)} is not allowed` };
        const issue = extra(item, child(path, key));
        if (issue) return issue;
      }
      return undefined;
    });
  }
  if (schema.items !== undefined || schema.minItems !== undefined || schema.maxItems !== undefined) {
    const item = schema.items === undefined ? undefined : compileNode(schema.items, context);
    const { minItems, maxItems } = schema;
    checks.push((value, path) => {
      if (!Array.isArray(value)) return undefined;
      if (minItems !== undefined && value.length < minItems)
        return fail(path, `must have at least ${minItems} items`);
      if (maxItems !== undefined && value.length > maxItems)
        return fail(path, `must have at most ${maxItems} items`);
      if (item) {
        for (let index = 0; index < value.length; index += 1) {
          const issue = item(value[index], `${named(path)}[${index}]`);
          if (issue) return issue;
        }
      }
      return undefined;
    });
  }
  if (schema.anyOf !== undefined) {
    if (rule === undefined) throw new Error('anyOf needs an x-message to explain itself');
    const branches = schema.anyOf.map((branch) => compileNode(branch, context));
    checks.push((value, path) =>
      branches.some((branch) => branch(value, path) === undefined) ? undefined : fail(path, ''),
    );
  }
  if (schema.oneOf !== undefined) {
    const property = schema.discriminator?.propertyName;
    if (property === undefined) throw new Error('oneOf needs a discriminator to pick its branch');
    const branches = new Map<unknown, Check>();
    for (const branch of schema.oneOf) {
      const resolved = branch.$ref === undefined ? branch : context.resolve(branch.$ref);
      const tag = resolved.properties?.[property]?.const;
      if (tag === undefined) throw new Error(`each oneOf branch needs a const ${property}`);
      branches.set(tag, compileNode(resolved, context));
    }
    const tags = [...branches.keys()];
    checks.push((value, path) => {
      if (typeOf(value) !== 'object') return undefined;
      const record = value as Record<string, unknown>;
      const tag = Object.hasOwn(record, property) ? record[property] : undefined;
      if (tag === undefined)
        return { path: child(path, property), message: `${child(path, property)} is required` };
      const branch = branches.get(tag);
      if (!branch)
        return {
          path: child(path, property),
          message: `${child(path, property)} must be ${oneOfWords(tags)}`,
        };
      return branch(value, path);
    });
  }
  return (value, path) => {
    for (const check of checks) {
      const issue = check(value, path);
      if (issue) return issue;
    }
    return undefined;
  };
}

/** A compiled validator: the first issue of a value, or `undefined` when the value is valid. */
export type Validator = (value: unknown) => SchemaIssue | undefined;

export interface CompileOptions {
  /** Schemas that `$ref: '#/components/schemas/<name>'` points at (the document's own registry). */
  components?: Record<string, Schema>;
  /** What the value is called in messages and `source`: `body` (the default) or a parameter's name. */
  root?: string;
}

/**
 * A schema's validator, compiled on its first use (a bad schema throws then): modules declare theirs at
 * module scope, and a function's import compiles none of them. Compiling every validator a module declared
 * took 1.2-1.6 ms of `get-currency`'s import and 2.1 ms of the product functions' (docs/performance.md),
 * for validators a read never uses.
 */
export function compileSchema(schema: Schema, options: CompileOptions = {}): Validator {
  let check: Validator | undefined;
  const validator: Validator = (value) => {
    check ??= compileNow(schema, options);
    return check(value);
  };
  declared.push({ schema, options });
  return validator;
}

/** Every schema given to `compileSchema` in this process (a few dozen: one entry each). */
const declared: { schema: Schema; options: CompileOptions }[] = [];

/**
 * Compiles every schema declared so far, at once, so a bad one throws here (tests: once every module that
 * declares validators is imported) rather than at its first use.
 */
export function compileDeclaredSchemas(): number {
  for (const { schema, options } of declared) compileNow(schema, options);
  return declared.length;
}

function compileNow(schema: Schema, options: CompileOptions): Validator {
  const components = options.components ?? {};
  const resolve = (ref: string): Schema => {
    const name = /^#\/components\/schemas\/([\w.-]+)$/.exec(ref)?.[1];
    const target = name === undefined ? undefined : components[name];
    if (!target) throw new Error(`unresolved schema reference ${ref}`);
    return target;
  };
  const check = compileNode(schema, { resolve, root: options.root ?? 'body' });
  return (value) => check(value, '');
}

/** Validates a value, throwing a 400 whose `source` is the offending path. */
export function assertValid<T>(validator: Validator, value: unknown): T {
  const issue = validator(value);
  if (issue) throw new BadRequestError(issue.message, issue.path);
  return value as T;
}
