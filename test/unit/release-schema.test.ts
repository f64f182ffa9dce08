import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { build } from 'esbuild';
import fc from 'fast-check';
import { deployBuildOptions } from '../../infra/bundling';
import { generateRelease } from '../../lib/catalog/generator';
import {
  checkShape,
  locatorOf,
  RELEASE_SCHEMA,
  RELEASE_SCHEMA_OPTIONS,
  shapeIssues,
  WORDING,
} from '../../lib/catalog/release-schema';
import { compileReleaseValidator } from '../../lib/catalog/release-validator.generated';
import type { ProductPricing, ReleaseDocument } from '../../lib/catalog/types';
import type { ValidationIssue } from '../../lib/catalog/validate-release';
import { validateRelease } from '../../lib/catalog/validate-stream';
import { mutate, mutation, pathsOf, schemaValidRelease } from '../support/release-arbitrary';

const sample = JSON.parse(readFileSync(join(__dirname, '../../catalog/sample-release.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, validateFormats: false });
const schemaAccepts = ajv.compile(RELEASE_SCHEMA);

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function pointer(location: string): Record<string, unknown> | undefined {
  return location
    .slice(2)
    .split('/')
    .filter((key) => key !== '')
    .reduce<any>((node, key) => node?.[key], RELEASE_SCHEMA);
}

function issuesOf(input: unknown): ValidationIssue[] {
  const result = validateRelease(input);
  return result.ok ? [] : result.issues;
}

/** A document (schema-valid, the sample or a generated one), a path into it and a change to make there. */
function mutatedDocuments() {
  const documents = fc.oneof(
    schemaValidRelease(),
    fc.constant(sample),
    fc.constant(generateRelease({ children: 3, drafts: 1 })),
  );
  return documents.chain((document) => {
    const paths = pathsOf(document);
    return fc.tuple(fc.constant(document), fc.constantFrom([], ...paths), mutation);
  });
}

/** A validated document as an input document again (prices flat, with `tiers`), for the schema. */
function asInput(document: ReleaseDocument): unknown {
  const flat = (price: ProductPricing) => ({
    ...price.currencies,
    ...(Object.keys(price.tiers).length > 0 ? { tiers: price.tiers } : {}),
  });
  return {
    ...document,
    products: document.products.map((product) => ({
      ...product,
      attributes: {
        ...product.attributes,
        ...(product.attributes.price ? { price: flat(product.attributes.price) } : {}),
      },
    })),
  };
}

describe('catalog/release.schema.json', () => {
  it('is a strict draft 2020-12 schema that Ajv compiles', () => {
    expect(RELEASE_SCHEMA.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(ajv.validateSchema(RELEASE_SCHEMA)).toBe(true);
  });

  it('describes every property it defines', () => {
    const undescribed: string[] = [];
    const walk = (node: any, at: string) => {
      for (const [name, property] of Object.entries<any>(node.properties ?? {})) {
        if (typeof property.description !== 'string') undescribed.push(`${at}/properties/${name}`);
        walk(property, `${at}/properties/${name}`);
      }
    };
    walk(RELEASE_SCHEMA, '#');
    for (const [name, definition] of Object.entries(RELEASE_SCHEMA.$defs))
      walk(definition, `#/$defs/${name}`);
    // Properties that are plain references take the referenced definition's description.
    expect(undescribed.filter((at) => !pointer(at)?.$ref)).toEqual([]);
    for (const definition of Object.values<any>(RELEASE_SCHEMA.$defs)) {
      expect(typeof definition.description).toBe('string');
    }
  });

  it('every wording of the validator names a keyword the schema has at that place', () => {
    for (const key of Object.keys(WORDING)) {
      const [location, keyword] = key.split(' ') as [string, string];
      expect([key, pointer(location)?.[keyword] !== undefined]).toEqual([key, true]);
    }
  });

  it('the sample and generated documents name the schema first and pass it', () => {
    const generated = generateRelease({ children: 20, drafts: 2 });
    for (const document of [sample, generated]) {
      expect(Object.entries(document)[0]).toEqual(['$schema', './release.schema.json']);
      expect(schemaAccepts(document)).toBe(true);
      expect(validateRelease(document).ok).toBe(true);
    }
  });

  it('the generated TypeScript types are current (run `npm run catalog-types` after editing the schema)', () => {
    const generated = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(__dirname, '../../local/release-types.ts'), '--print'],
      { encoding: 'utf8' },
    );
    expect(readFileSync(join(__dirname, '../../lib/catalog/release-input.generated.ts'), 'utf8')).toBe(
      generated,
    );
  });

  it('the compiled validator is current (run `npm run catalog-types` after editing the schema)', () => {
    const generated = execFileSync(
      process.execPath,
      ['--import', 'tsx', join(__dirname, '../../local/release-types.ts'), '--print-validator'],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
    );
    expect(readFileSync(join(__dirname, '../../lib/catalog/release-validator.generated.ts'), 'utf8')).toBe(
      generated,
    );
  });
});

describe('the validator compiled ahead of time', () => {
  // The schema compiled now, each reference its own function (not inlined), errors with their subschemas.
  const compiledNow = new Ajv2020({ ...RELEASE_SCHEMA_OPTIONS, inlineRefs: false }).compile(RELEASE_SCHEMA);
  const locateNow = locatorOf([[RELEASE_SCHEMA, '#']]);
  const made = compileReleaseValidator();
  const compiledAhead = made.validate as unknown as ValidateFunction;
  const locateAhead = locatorOf(made.locations as [unknown, string][]);

  it('is in the bundle of a step that validates documents, and in none that only normalises products', async () => {
    const root = join(__dirname, '../..');
    const bundled = async (step: string) => {
      const result = await build({
        ...deployBuildOptions(root),
        entryPoints: [join(root, 'functions', step, 'handler.ts')],
        write: false,
        outfile: join(root, '.bundle-check', `${step}.mjs`),
        logLevel: 'silent',
      });
      return result.outputFiles[0]?.text ?? '';
    };
    // The validator's own constants: the schema's root (its `$schema`) and Ajv's runtime helper names.
    const carries = (text: string) =>
      text.includes('json-schema.org/draft/2020-12/schema') && /evaluated/.test(text);
    expect(carries(await bundled('release-validate'))).toBe(true);
    expect(carries(await bundled('release-derive'))).toBe(false);
  }, 60_000);

  it('finds what the schema compiled at run time finds, each error located at the subschema it comes from (property)', () => {
    const mutated = mutatedDocuments();
    let broken = 0;
    fc.assert(
      fc.property(mutated, ([document, path, change]) => {
        const changed = mutate(document, path, change);
        const valid = compiledNow(changed);
        const errors = compiledNow.errors ?? [];
        if (!valid) broken += 1;
        expect(compiledAhead(changed)).toBe(valid);
        // The same errors in the same order, each from the same place of the schema.
        const described = (locate: (error: ErrorObject) => string) => (error: ErrorObject) => [
          error.instancePath,
          error.keyword,
          locate(error),
          error.params,
        ];
        expect((compiledAhead.errors ?? []).map(described(locateAhead))).toEqual(
          errors.map(described(locateNow)),
        );
        expect(checkShape(changed)).toEqual(shapeIssues(changed, errors, locateNow));
      }),
      { numRuns: 600 },
    );
    expect(broken).toBeGreaterThan(100);
  });
});

describe('files[] and the files products reference', () => {
  const file = (n: number, extra: Record<string, unknown> = {}) => ({
    id: id(n),
    file_name: `f${n}.png`,
    mime_type: 'image/png',
    file_size: 100,
    link: { href: `https://files.example/f${n}.png` },
    ...extra,
  });
  const doc = (files: unknown[], product: Record<string, unknown> = {}) => ({
    catalog: { name: 'Files' },
    files,
    products: [
      {
        id: id(1),
        attributes: { name: 'P', sku: 'P', status: 'live', commodity_type: 'physical' },
        ...product,
      },
    ],
  });

  it('accepts https links, http only on localhost, and keeps files in the validated document', () => {
    const files = [
      file(10, {
        meta: {
          dimensions: { width: 10, height: 20 },
          timestamps: { created_at: '2024-01-01T01:00:00+01:00' },
        },
      }),
      file(11, { link: { href: 'http://localhost:3000/f.png' } }),
      file(12, { link: { href: 'http://127.0.0.1/f.png' } }),
    ];
    const result = validateRelease(
      doc(files, { main_image: id(10), files: [{ id: id(11), created_at: '2024-01-01T00:00:00Z' }] }),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(result.document.files[0]).toEqual({
      ...file(10),
      meta: { dimensions: { width: 10, height: 20 }, timestamps: { created_at: '2024-01-01T00:00:00.000Z' } },
    });
    expect(result.document.files.map((f) => f.link.href)).toEqual([
      'https://files.example/f10.png',
      'http://localhost:3000/f.png',
      'http://127.0.0.1/f.png',
    ]);
  });

  it.each([
    'http://files.example/f.png',
    'ftp://files.example/f.png',
    'https://',
    'https://files.example/a b.png',
    '/relative.png',
    'http://localhost.evil.example/f.png',
  ])('refuses the href %p', (href) => {
    expect(issuesOf(doc([file(10, { link: { href } })]))).toEqual([
      {
        path: 'files[0].link.href',
        rule: 'href',
        message: 'must be an https URL (http only for localhost, 127.0.0.1 or [::1])',
      },
    ]);
  });

  it('refuses a link that only looks like one', () => {
    expect(issuesOf(doc([file(10, { link: { href: 'https://exa[mple/' } })]))).toEqual([
      { path: 'files[0].link.href', rule: 'href', message: 'is not a URL' },
    ]);
  });

  it('takes a file_size of 0: the size of a file nobody fetched is not known', () => {
    expect(issuesOf(doc([file(10, { file_size: 0 })]))).toEqual([]);
  });

  it.each([
    [-1, 'range'],
    [-5, 'range'],
    [1.5, 'integer'],
    ['100', 'integer'],
  ])('refuses the file_size %p', (size, rule) => {
    expect(issuesOf(doc([file(10, { file_size: size })])).map((i) => [i.path, i.rule])).toEqual([
      ['files[0].file_size', rule],
    ]);
  });

  it('refuses repeated file ids, missing fields, bad media types, dimensions and unknown fields', () => {
    expect(issuesOf(doc([file(10), file(10)]))).toEqual([
      { path: 'files[1].id', rule: 'unique', message: `file id ${id(10)} is also used by files[0]` },
    ]);
    const { link: _link, ...noLink } = file(10);
    expect(
      issuesOf(
        doc([
          noLink,
          file(11, { mime_type: 'png' }),
          file(12, { meta: { dimensions: { width: 0, height: 1 } } }),
          file(13, { url: 'x' }),
        ]),
      ).map((i) => [i.path, i.rule]),
    ).toEqual([
      ['files[0].link', 'required'],
      ['files[1].mime_type', 'mime_type'],
      ['files[2].meta.dimensions.width', 'range'],
      ['files[3].url', 'unknown_field'],
    ]);
  });

  it('requires every file a product names to be in files[]', () => {
    expect(
      issuesOf(
        doc([file(10)], {
          main_image: id(20),
          files: [
            { id: id(10), created_at: '2024-01-01T00:00:00Z' },
            { id: id(21), created_at: '2024-01-01T00:00:00Z' },
          ],
        }),
      ),
    ).toEqual([
      {
        path: 'products[0].main_image',
        rule: 'reference',
        message: `${id(20)} is not one of the release's files`,
      },
      {
        path: 'products[0].files[1].id',
        rule: 'reference',
        message: `${id(21)} is not one of the release's files`,
      },
    ]);
    expect(issuesOf(doc([], { main_image: id(10) })).map((i) => i.path)).toEqual(['products[0].main_image']);
  });
});

describe('checks only code can make', () => {
  const product = (n: number, attributes: Record<string, unknown> = {}) => ({
    id: id(n),
    attributes: { name: `P${n}`, sku: `S${n}`, status: 'live', commodity_type: 'physical', ...attributes },
  });

  it('slugs are unique in the release', () => {
    expect(
      issuesOf({
        catalog: { name: 'c' },
        products: [product(1, { slug: 'tee' }), product(2, { slug: 'tee' })],
      }),
    ).toEqual([
      {
        path: 'products[1].attributes.slug',
        rule: 'unique',
        message: 'slug "tee" is also used by products[0]',
      },
    ]);
  });

  it('tags and node ids repeat in any case', () => {
    expect(issuesOf({ catalog: { name: 'c' }, products: [product(1, { tags: ['Red', 'red'] })] })).toEqual([
      { path: 'products[0].attributes.tags[1]', rule: 'unique', message: '"red" is listed twice' },
    ]);
  });

  it('a date must be a day of the calendar', () => {
    expect(
      issuesOf({ catalog: { name: 'c' }, products: [product(1, { created_at: '2024-02-30T00:00:00Z' })] }),
    ).toEqual([
      {
        path: 'products[0].attributes.created_at',
        rule: 'date-time',
        message: '"2024-02-30T00:00:00Z" is not a day of the calendar',
      },
    ]);
    expect(
      issuesOf({ catalog: { name: 'c' }, products: [product(1, { created_at: '2024-02-29T00:00:00Z' })] }),
    ).toEqual([]);
  });

  it('an invalid product does not cascade into its references', () => {
    const child = {
      id: id(2),
      attributes: { name: 'C', sku: 'C', status: 'live', base_product_id: id(1) },
    };
    expect(
      issuesOf({ catalog: { name: 'c' }, products: [product(1, { status: 'gone' }), child] }).map(
        (i) => i.path,
      ),
    ).toEqual(['products[0].attributes.status']);
  });
});

describe('the schema, the code checks and the publisher agree (property)', () => {
  it('documents generated from the schema: the validator accepts exactly those that also pass the code checks', () => {
    let accepted = 0;
    let rejected = 0;
    fc.assert(
      fc.property(schemaValidRelease(), (document) => {
        expect(schemaAccepts(document)).toBe(true);
        const result = validateRelease(document);
        if (result.ok) {
          accepted += 1;
          // What the publisher stores is itself a document the schema accepts.
          expect(schemaAccepts(asInput(result.document))).toBe(true);
        } else {
          rejected += 1;
          // The schema passed, so every issue is one of the checks the schema cannot express.
          for (const issue of result.issues) {
            expect([
              'unique',
              'reference',
              'cycle',
              'depth',
              'range',
              'tier_conflict',
              'date-time',
              'required',
              'product_types',
              'base_product',
              'variations',
              'default_currency',
            ]).toContain(issue.rule);
          }
        }
      }),
      { numRuns: 400 },
    );
    // Both outcomes occur, so the property says something about each.
    expect(accepted).toBeGreaterThan(20);
    expect(rejected).toBeGreaterThan(20);
  });

  it('refuses a products member that is null, as the schema does (not read as no products)', () => {
    const document = { ...sample, products: null };
    expect(schemaAccepts(document)).toBe(false);
    const result = validateRelease(document);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.issues).toContainEqual(
        expect.objectContaining({ path: 'products', rule: 'type', message: 'must be an array, got null' }),
      );
  });

  it('mutated documents: whatever the schema rejects the validator rejects, and the issues point into the document', () => {
    const mutated = mutatedDocuments();
    fc.assert(
      fc.property(mutated, ([document, path, change]) => {
        const changed = mutate(document, path, change);
        const result = validateRelease(changed);
        if (!schemaAccepts(changed)) expect(result.ok).toBe(false);
        if (result.ok) expect(schemaAccepts(asInput(result.document))).toBe(true);
        else {
          expect(result.issues.length).toBeGreaterThan(0);
          expect(result.total).toBeGreaterThanOrEqual(result.issues.length);
          for (const issue of result.issues) expect(issue.path).toMatch(/^(\$|[A-Za-z_$]|\[")/);
        }
      }),
      { numRuns: 400 },
    );
  });
});
