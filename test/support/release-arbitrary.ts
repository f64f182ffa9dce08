import fc from 'fast-check';
import { RELEASE_SCHEMA } from '../../lib/catalog/release-schema';

type Schema = Record<string, any>;

/** Small pools, so generated documents reference each other's ids and sometimes collide (SKUs, ids). */
const UUIDS = [
  '0190a0c0-0000-7000-8000-000000000001',
  '0190a0c0-0000-7000-8000-000000000002',
  '0190A0C0-0000-7000-8000-000000000003',
  '0190a0c0-0000-7000-8000-000000000004',
];
const TEXTS = ['Tee', 'Mug', 'Cap', 'x y', 'Ω'];
const DATE_TIMES = [
  '2024-01-01T00:00:00Z',
  '2024-06-01T12:30:00.5+02:00',
  '2025-01-01T00:00:00Z',
  // A day the calendar does not have: the form is valid, the publisher refuses it.
  '2024-02-30T00:00:00Z',
];

/** Arbitraries for the schema's shared definitions that would otherwise never produce matching references. */
const OVERRIDES: Record<string, fc.Arbitrary<unknown>> = {
  '#/$defs/uuid': fc.constantFrom(...UUIDS),
  '#/$defs/nullableUuid': fc.constantFrom(null, ...UUIDS),
  '#/$defs/text': fc.constantFrom(...TEXTS),
  '#/$defs/nullableText': fc.constantFrom(null, ...TEXTS),
  '#/$defs/modifierName': fc.constantFrom('xl', 'sale'),
  '#/$defs/dateTime': fc.constantFrom(...DATE_TIMES),
  '#/$defs/nullableDateTime': fc.constantFrom(null, ...DATE_TIMES),
  '#/$defs/currencyCode': fc.constantFrom('USD', 'EUR'),
  '#/$defs/tag': fc.constantFrom('red', 'Red', 'blue'),
  '#/$defs/slug': fc.constantFrom('tee', 'mug', 'cap.2'),
  '#/$defs/localeTag': fc.constantFrom('fr', 'de-DE'),
  '#/$defs/file/properties/link/properties/href': fc.constantFrom(
    'https://files.example/a.png',
    'http://localhost:3000/b.png',
  ),
};

function resolve(pointer: string): Schema {
  return pointer
    .slice(2)
    .split('/')
    .reduce((node: Schema, key) => node[key], RELEASE_SCHEMA as Schema);
}

/** Marks an optional field left out. */
const ABSENT = Symbol('absent');

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const max = Math.min(schema.maxLength ?? 12, 12);
  if (schema.pattern) {
    const pattern = new RegExp(schema.pattern, 'u');
    return fc
      .stringMatching(pattern, { size: 'xsmall' })
      .filter((value) => [...value].length <= (schema.maxLength ?? Number.POSITIVE_INFINITY));
  }
  return fc.string({ maxLength: max });
}

function ofType(type: string, schema: Schema, at: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? -1000, -1000),
        max: Math.min(schema.maximum ?? 1000, 1000),
      });
    case 'number':
      return fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
    case 'string':
      return stringOf(schema);
    case 'array': {
      const items = build(schema.items ?? {}, `${at}/items`);
      const constraints = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) };
      return schema.uniqueItems
        ? fc.uniqueArray(items, { ...constraints, selector: (value) => JSON.stringify(value) })
        : fc.array(items, constraints);
    }
    default:
      return objectOf(schema, at);
  }
}

function objectOf(schema: Schema, at: string): fc.Arbitrary<unknown> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  // Optional fields appear one time in four, so that a fair share of documents also pass the code checks.
  const fields = Object.entries(properties)
    .filter(([name]) => name !== '$schema')
    .map(([name, property]) => {
      const value = build(property, `${at}/properties/${name}`);
      const field = required.has(name)
        ? value
        : fc.oneof({ arbitrary: fc.constant(ABSENT), weight: 3 }, { arbitrary: value, weight: 1 });
      return field.map((entry): [string, unknown] => [name, entry]);
    });
  const fixed = fc
    .tuple(...fields)
    .map((entries) => Object.fromEntries(entries.filter(([, entry]) => entry !== ABSENT)));
  if (!schema.additionalProperties || schema.additionalProperties === true) return fixed;
  // A map: keys from propertyNames (a currency code when it allows more than one kind), values by schema.
  const names = schema.propertyNames;
  const keys = names?.anyOf
    ? build(names.anyOf[1], `${at}/propertyNames/anyOf/1`)
    : names
      ? build(names, `${at}/propertyNames`)
      : fc.constantFrom('a', 'b', 'big one');
  const values = build(schema.additionalProperties, `${at}/additionalProperties`);
  const map = fc.dictionary(keys as fc.Arbitrary<string>, values, {
    minKeys: schema.minProperties ?? 0,
    maxKeys: 2,
  });
  return fc.tuple(fixed, map).map(([record, entries]) => ({ ...entries, ...record }));
}

/** An arbitrary of values the schema accepts (at `at`, a JSON pointer into the release schema). */
function build(schema: Schema, at: string): fc.Arbitrary<unknown> {
  const override = OVERRIDES[at];
  if (override) return override;
  if (schema.$ref) {
    const { $ref, description: _description, default: _default, ...rest } = schema;
    const base = build(resolve($ref), $ref);
    // Keywords beside the reference narrow it (a modifier's currencies need at least one entry).
    return rest.minProperties ? objectOf({ ...resolve($ref), ...rest }, $ref) : base;
  }
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'object'];
  return fc.oneof(...types.map((type) => ofType(type, schema, at)));
}

/** Release documents the schema accepts, built from `catalog/release.schema.json` itself. */
export function schemaValidRelease(): fc.Arbitrary<Record<string, unknown>> {
  return build(RELEASE_SCHEMA as Schema, '#') as fc.Arbitrary<Record<string, unknown>>;
}

/** Every JSON path of a value, as segments (for mutations). */
export function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value))
    return value.flatMap((entry, index) => [[...prefix, index], ...pathsOf(entry, [...prefix, index])]);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, entry]) => [
      [...prefix, key],
      ...pathsOf(entry, [...prefix, key]),
    ]);
  }
  return [];
}

/** A change to one place of a document: replace the value, remove it, or add an unknown field beside it. */
export type Mutation =
  | { kind: 'replace'; value: unknown }
  | { kind: 'remove' }
  | { kind: 'add'; key: string; value: unknown };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ kind: fc.constant('remove' as const) }),
  fc.record({
    kind: fc.constant('add' as const),
    key: fc.constantFrom('extra', 'colour', '__proto__'),
    value: fc.jsonValue({ maxDepth: 1 }),
  }),
);

/** A copy of `document` with `change` applied at `path` (the root when `path` is empty). */
export function mutate(document: unknown, path: (string | number)[], change: Mutation): unknown {
  const copy = structuredClone(document);
  if (path.length === 0) return change.kind === 'replace' ? change.value : copy;
  const parent = path.slice(0, -1).reduce((node: any, key) => node[key], copy);
  const key = path.at(-1) as string | number;
  if (change.kind === 'replace') parent[key] = change.value;
  else if (change.kind === 'remove') {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else if (typeof parent[key] === 'object' && parent[key] !== null && !Array.isArray(parent[key])) {
    Object.defineProperty(parent[key], change.key, {
      value: change.value,
      enumerable: true,
      configurable: true,
      writable: true,
    });
  }
  return copy;
}
