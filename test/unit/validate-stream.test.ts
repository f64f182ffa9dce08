import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { generateRelease } from '../../lib/catalog/generator';
import type { ValidationIssue } from '../../lib/catalog/validate-release';
import { validateReleaseStream } from '../../lib/catalog/validate-stream';
import { validateReleaseDocument } from '../support/whole-release-validation';

const sample = JSON.parse(readFileSync(join(__dirname, '../../catalog/sample-release.json'), 'utf8'));
type Doc = Record<string, any>;

async function* chunksOf(document: unknown, size = 997): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(JSON.stringify(document));
  for (let start = 0; start < bytes.length; start += size) yield bytes.subarray(start, start + size);
}

const byPlace = (a: ValidationIssue, b: ValidationIssue) =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : a.message < b.message ? -1 : a.message > b.message ? 1 : 0;

/** The whole-document validation's answer and the streamed one, issues in the same (path) order. */
async function both(document: unknown) {
  const whole = validateReleaseDocument(document);
  const streamed = await validateReleaseStream(chunksOf(document));
  return {
    whole: whole.ok
      ? { ok: true }
      : { ok: false, total: whole.total, issues: [...whole.issues].sort(byPlace) },
    streamed: streamed.ok
      ? { ok: true }
      : { ok: false, total: streamed.total, issues: [...streamed.issues].sort(byPlace) },
  };
}

/** The same members in another order: products first. */
function productsFirst(document: Doc): Doc {
  const { products, ...rest } = document;
  return { products, ...rest };
}

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('validateReleaseStream', () => {
  it('accepts what the whole-document validation accepts, whatever the members order', async () => {
    const generated = generateRelease({ children: 40, drafts: 4, parents: 2, images: true, seed: 2 });
    for (const document of [sample, generated, productsFirst(sample), productsFirst(generated)]) {
      expect(validateReleaseDocument(document).ok).toBe(true);
      expect(await validateReleaseStream(chunksOf(document))).toEqual({
        ok: true,
        products: document.products.length,
      });
    }
  });

  it.each([
    [
      'repeated ids, skus, slugs and external refs',
      (d: Doc) => {
        d.products[1].id = d.products[0].id;
        d.products[2].attributes.sku = d.products[0].attributes.sku;
        d.products[3].attributes.slug = 'same';
        d.products[4].attributes.slug = 'same';
        d.products[3].attributes.external_ref = 'ext';
        d.products[5].attributes.external_ref = 'ext';
      },
    ],
    [
      'references to unknown nodes, files, modifiers and products',
      (d: Doc) => {
        d.products[0].node_ids = [id(901), ...(d.products[0].node_ids ?? [])];
        d.products[1].main_image = id(902);
        d.products[2].files = [{ id: id(903), created_at: '2024-01-01T00:00:00Z' }];
        d.products[3].attributes.price_modifiers = ['nope'];
        d.products[4].attributes.base_product_id = id(904);
      },
    ],
    [
      'a child of a child, a parent that is no parent, a repeated combination',
      (d: Doc) => {
        const children = d.products.filter((p: Doc) => p.attributes.base_product_id !== undefined);
        const parent = d.products.find((p: Doc) => p.id === children[0].attributes.base_product_id);
        children[1].attributes.base_product_id = children[0].id;
        parent.attributes.product_types = ['standard'];
        children[3].variation_options = { ...children[2].variation_options };
        children[4].variation_options = { [id(905)]: id(906) };
      },
    ],
    [
      'a product broken in its shape, referred to by others',
      (d: Doc) => {
        const child = d.products.find((p: Doc) => p.attributes.base_product_id !== undefined);
        const parent = d.products.find((p: Doc) => p.id === child.attributes.base_product_id);
        parent.attributes.status = 'nonsense';
      },
    ],
    [
      'a bundle of itself and of an unknown product',
      (d: Doc) => {
        d.products[0].attributes.components = {
          a: {
            name: 'A',
            options: [
              { id: d.products[0].id, quantity: 1 },
              { id: id(907), quantity: 1 },
            ],
          },
        };
      },
    ],
  ])('reports what the whole-document validation reports: %s', async (_name, breakIt) => {
    const generated = generateRelease({ children: 12, parents: 2, images: true, seed: 6 });
    for (const base of [generated, productsFirst(generated)]) {
      const document = structuredClone(base);
      breakIt(document);
      const { whole, streamed } = await both(document);
      expect(whole.ok).toBe(false);
      expect(streamed).toEqual(whole);
    }
  });

  it('reports what the whole-document validation reports when any field of a product is replaced', async () => {
    const fields = ['id', 'attributes', 'node_ids', 'files', 'main_image', 'variations', 'variation_options'];
    const attributeFields = ['sku', 'slug', 'base_product_id', 'price_modifiers', 'status', 'components'];
    const others = sample.products.map((product: Doc) => product.id);
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.nat({ max: sample.products.length - 1 }),
            fc.constantFrom(...fields, ...attributeFields.map((field) => `attributes.${field}`)),
            fc.oneof(fc.constantFrom(...others, [], 'x', ['nope'], {}), fc.jsonValue()),
          ),
          { minLength: 1, maxLength: 4 },
        ),
        fc.boolean(),
        async (changes, first) => {
          const document = structuredClone(first ? productsFirst(sample) : sample);
          for (const [index, field, shared] of changes) {
            const value = structuredClone(shared);
            const target = document.products[index];
            if (!field.startsWith('attributes.')) target[field] = value;
            else if (typeof target.attributes === 'object' && target.attributes !== null)
              target.attributes[field.slice(11)] = value;
          }
          const { whole, streamed } = await both(document);
          expect(streamed).toEqual(whole);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('treats a member named __proto__ as the unknown member it is', async () => {
    const text = JSON.stringify(sample).replace('{', '{"__proto__":{"polluted":true},');
    const whole = validateReleaseDocument(JSON.parse(text));
    const bytes = Buffer.from(text);
    const streamed = await validateReleaseStream(
      (async function* () {
        yield bytes;
      })(),
    );
    expect(whole.ok).toBe(false);
    expect(streamed).toEqual(whole);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('counts every issue and keeps the first 100 in document order', async () => {
    const document = generateRelease({ children: 300, seed: 1 });
    for (const product of document.products as Doc[]) product.attributes.sku = 'SAME';
    const whole = validateReleaseDocument(document);
    const streamed = await validateReleaseStream(chunksOf(document));
    if (whole.ok || streamed.ok) throw new Error('expected issues');
    expect(streamed.total).toBe(whole.total);
    expect(streamed.issues).toEqual(whole.issues);
  });

  it('validates a document far larger than its heap', () => {
    // 60,000 products of 1 KB (about 62 MB) in a process allowed a 64 MB heap: the whole-document
    // validation of 10,000 products alone takes 176 MB.
    const script = `
      import { generateReleaseText } from './lib/catalog/generator.ts';
      import { validateReleaseStream } from './lib/catalog/validate-stream.ts';
      async function* source() {
        for (const piece of generateReleaseText({ children: 60000, productBytes: 1024 })) yield Buffer.from(piece);
      }
      console.log(JSON.stringify(await validateReleaseStream(source())));
    `;
    const run = spawnSync(
      process.execPath,
      ['--max-old-space-size=64', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8', timeout: 120_000 },
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ ok: true, products: 60_002 });
  });
});
