import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { RELEASE_SCHEMA } from '../lib/catalog/release-schema';

/** Where the generated types live (a test fails when they differ from what the schema generates). */
export const RELEASE_TYPES_FILE = fileURLToPath(
  new URL('../lib/catalog/release-input.generated.ts', import.meta.url),
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

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // --print: to stdout (the staleness test compares it with the file; prettier cannot run inside jest).
  releaseTypesText().then((text) => {
    if (process.argv.includes('--print')) process.stdout.write(text);
    else {
      writeFileSync(RELEASE_TYPES_FILE, text);
      process.stdout.write(`wrote ${RELEASE_TYPES_FILE}\n`);
    }
  });
}
