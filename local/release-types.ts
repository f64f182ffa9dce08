import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020';
import standaloneCode from 'ajv/dist/standalone';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { RELEASE_SCHEMA, RELEASE_SCHEMA_OPTIONS } from '../lib/catalog/release-schema';

/** Where the generated types live (a test fails when they differ from what the schema generates). */
export const RELEASE_TYPES_FILE = fileURLToPath(
  new URL('../lib/catalog/release-input.generated.ts', import.meta.url),
);

/** Where the schema's compiled validator lives (a test fails when it differs from what the schema compiles to). */
export const RELEASE_VALIDATOR_FILE = fileURLToPath(
  new URL('../lib/catalog/release-validator.generated.ts', import.meta.url),
);

/**
 * The TypeScript types of a release document as the schema describes it (the input, before the publisher
 * fills defaults), generated from `catalog/release.schema.json` so the two cannot drift.
 */
export async function releaseTypesText(): Promise<string> {
  const input = { ...structuredClone(RELEASE_SCHEMA), title: 'ReleaseDocumentInput' } as JSONSchema;
  return compile(input, 'ReleaseDocumentInput', {
    bannerComment:
      '/* Generated from catalog/release.schema.json by `npm run catalog-types`: edit the schema, not this file. */',
    additionalProperties: false,
    unreachableDefinitions: true,
    // Plain arrays: the validated types use them (minItems/maxItems stay in the schema).
    ignoreMinAndMaxItems: true,
    style: { singleQuote: true, printWidth: 110, trailingComma: 'all', semi: true },
  });
}

/**
 * The schema compiled by Ajv ahead of time (its standalone code): the module's `compileReleaseValidator`
 * answers the validating function (made on its first call), so nothing compiles the schema when a process first validates a document (it cost
 * the Validate and Plan steps' Lambdas 50 to 85 ms of every cold start). Each definition stays a function
 * of its own (inlining them made the code 30 KB larger, and no faster at validating 20,000 products); the
 * code is optimised. Ajv's standalone ES module still `require`s its two runtime helpers; they become
 * imports here.
 */
export function releaseValidatorText(): string {
  const ajv = new Ajv2020({
    ...RELEASE_SCHEMA_OPTIONS,
    inlineRefs: false,
    code: { source: true, esm: true, optimize: true },
  });
  // Without its annotations (a description or title is text, where a property of that name is a schema):
  // an error carries its subschema, so the code holds every subschema it may hand, and the texts would
  // only make the functions' bundles larger.
  const annotated = new Set(['description', 'title']);
  const stripped = JSON.parse(JSON.stringify(RELEASE_SCHEMA), (key, value) =>
    annotated.has(key) && typeof value === 'string' ? undefined : value,
  );
  let code = standaloneCode(ajv, ajv.compile(stripped));
  // Where each schema constant of the code stands in the schema (the root or a definition), so an error's
  // `parentSchema` (a constant or an object inside one) can be located as when Ajv compiles at run time.
  const pointers = new Map<unknown, string>();
  const walk = (node: unknown, pointer: string): void => {
    if (typeof node !== 'object' || node === null) return;
    if (!Array.isArray(node)) pointers.set(node, pointer);
    for (const [key, child] of Object.entries(node)) walk(child, `${pointer}/${key}`);
  };
  walk(stripped, '#');
  // Ajv's scope of named values (not in its typings): each compiled subschema with its constant's name.
  const named = (ajv.scope as unknown as { _values: { schema?: Map<unknown, { str: string }> } })._values
    .schema;
  const locations = [...(named ?? [])]
    .filter(([, name]) => code.includes(`const ${name.str} = `))
    .map(([value, name]) => {
      const pointer = pointers.get(value);
      if (pointer === undefined) throw new Error(`schema constant ${name.str} is not a part of the schema`);
      return `[${name.str}, ${JSON.stringify(pointer)}]`;
    });
  const imports: string[] = [];
  code = code.replace(
    /const (func\d+) = require\("(ajv\/dist\/runtime\/[a-z0-9]+)"\)\.default;/g,
    (_, name: string, module: string) => {
      // A CommonJS module's `exports.default`: what a default import is depends on the loader (node gives
      // the exports object, a bundler may give `default`), so both are taken.
      imports.push(`import ${name}Module from '${module}';`);
      return `const ${name} = typeof ${name}Module === 'function' ? ${name}Module : ${name}Module.default;`;
    },
  );
  if (code.includes('require('))
    throw new Error('the standalone validator requires a module it did not import');
  // Everything inside one function, run on the first validation: its top-level statements (the schema
  // constants, each validating function's `evaluated`) would otherwise keep the code in every bundle that
  // imports the module without validating (the other steps reach it through the product normalisation).
  const exported = /^"use strict";export const validate = (validate\d+);export default \1;/.exec(code);
  if (!exported) throw new Error("Ajv's standalone code no longer starts as this generator expects");
  const body = code.slice(exported[0].length);
  return [
    '/* Generated from catalog/release.schema.json by `npm run catalog-types`: edit the schema, not this file. */',
    '// @ts-nocheck',
    ...imports,
    '',
    '/** The validating function, and each schema constant with its place in the schema (a JSON pointer). */',
    'export function compileReleaseValidator() {',
    body,
    `return { validate: ${exported[1]}, locations: [${locations.join(', ')}] };`,
    '}',
    '',
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // --print / --print-validator: to stdout (the staleness tests compare it with the file; prettier cannot
  // run inside jest).
  if (process.argv.includes('--print-validator')) process.stdout.write(releaseValidatorText());
  else
    releaseTypesText().then((text) => {
      if (process.argv.includes('--print')) process.stdout.write(text);
      else {
        writeFileSync(RELEASE_TYPES_FILE, text);
        writeFileSync(RELEASE_VALIDATOR_FILE, releaseValidatorText());
        process.stdout.write(`wrote ${RELEASE_TYPES_FILE}\nwrote ${RELEASE_VALIDATOR_FILE}\n`);
      }
    });
}
