import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { generateRelease } from '../../lib/catalog/generator';
import { utc, type ValidationIssue, validateProduct } from '../../lib/catalog/validate-release';
import { PRODUCT_FIELDS } from '../support/catalog-fixtures';
import { validateReleaseDocument } from '../support/whole-release-validation';

const sample = JSON.parse(readFileSync(join(__dirname, '../../catalog/sample-release.json'), 'utf8'));

/**
 * What only the whole document can tell (uniqueness across products, references to other products, nodes,
 * files and modifiers, a family's agreement): the issues `validateProduct` leaves to its caller.
 */
const NEEDS_THE_DOCUMENT = [
  /is also used by products\[/,
  /is not a (product|node) of this release/,
  /is not one of the release's/,
  /a bundle cannot contain itself/,
  /a product cannot be its own parent/,
  /is itself a child; children cannot have children/,
  /names this product as its base_product_id/,
  /a product with children must be a parent/,
  /not a variation of the parent/,
  /is not an option of variation/,
  /already has this combination of variation options/,
];

function documentIssuesOf(document: unknown, index: number): ValidationIssue[] {
  const result = validateReleaseDocument(document);
  if (result.ok) return [];
  const own = new RegExp(`^products\\[${index}\\]([.[]|$)`);
  return result.issues.filter(
    (issue) => own.test(issue.path) && !NEEDS_THE_DOCUMENT.some((pattern) => pattern.test(issue.message)),
  );
}

function productIssuesOf(raw: unknown, index: number): ValidationIssue[] {
  const result = validateProduct(raw, index);
  return result.ok ? [] : result.issues;
}

describe('validateProduct', () => {
  it('normalises each product of a valid document as the whole-document validation does', () => {
    for (const document of [sample, generateRelease({ children: 20, drafts: 3, images: true, seed: 5 })]) {
      const whole = validateReleaseDocument(document);
      if (!whole.ok) throw new Error(JSON.stringify(whole.issues));
      document.products.forEach((raw: unknown, index: number) => {
        expect(validateProduct(raw, index)).toEqual({ ok: true, product: whole.document.products[index] });
      });
    }
  });

  it('reports the issues the whole document reports for that product, at the same paths', () => {
    const fields = PRODUCT_FIELDS;
    const attributeFields = Object.keys(sample.products[0].attributes).concat([
      'base_product_id',
      'base_product',
      'product_types',
      'components',
    ]);
    // Arbitrary JSON breaks the schema; these values pass it and break the rules the code checks.
    const telling = fc.constantFrom<unknown>(
      '2024-02-30T00:00:00Z',
      ['child'],
      ['parent', 'bundle'],
      ['standard'],
      true,
      false,
      sample.products[0].id,
      [
        sample.products[0].node_ids?.[0] ?? '00000000-0000-4000-8000-000000000001',
        sample.products[0].node_ids?.[0] ?? '00000000-0000-4000-8000-000000000001',
      ],
      {},
      { '00000000-0000-4000-8000-000000000009': '00000000-0000-4000-8000-00000000000a' },
      [],
      null,
    );
    fc.assert(
      fc.property(
        fc.nat({ max: sample.products.length - 1 }),
        fc.array(
          fc.tuple(
            fc.constantFrom(...fields, ...attributeFields.map((field) => `attributes.${field}`)),
            fc.oneof(telling, fc.jsonValue()),
          ),
          { minLength: 1, maxLength: 3 },
        ),
        (index, changes) => {
          const copy = structuredClone(sample);
          const target = copy.products[index];
          for (const [field, shared] of changes) {
            const value = structuredClone(shared); // the same constant twice must not make a cycle
            if (!field.startsWith('attributes.')) target[field] = value;
            else if (typeof target.attributes === 'object' && target.attributes !== null)
              target.attributes[field.slice(11)] = value;
          }
          expect(productIssuesOf(target, index)).toEqual(documentIssuesOf(copy, index));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('names paths by the product index in the document', () => {
    const raw = {
      ...sample.products[0],
      id: 'not-a-uuid',
      attributes: { ...sample.products[0].attributes, commodity_type: undefined },
    };
    const result = validateProduct(raw, 41_999);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((issue) => issue.path)).toEqual(['products[41999].id']);
    const child = {
      ...sample.products[0],
      attributes: { ...sample.products[0].attributes, product_types: ['child'] },
    };
    expect(productIssuesOf(child, 7)).toEqual([
      {
        path: 'products[7].attributes.product_types',
        rule: 'product_types',
        message: 'a child must name its parent in base_product_id',
      },
    ]);
  });
});

describe('utc', () => {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  /** What `Date` makes of the text: its UTC form with milliseconds, or undefined for a day the month lacks. */
  const byDate = (text: string, day: number) => {
    const parsed = new Date(Date.parse(text));
    return parsed.getUTCDate() === day ? parsed.toISOString() : undefined;
  };

  it("gives what Date gives for any date-time in the schema's form, in UTC or with an offset (property)", () => {
    const dateTimes = fc.record({
      year: fc.integer({ min: 0, max: 9999 }),
      month: fc.integer({ min: 1, max: 12 }),
      day: fc.integer({ min: 1, max: 31 }),
      hour: fc.integer({ min: 0, max: 23 }),
      minute: fc.integer({ min: 0, max: 59 }),
      second: fc.integer({ min: 0, max: 59 }),
      fraction: fc.constantFrom('', '.0', '.5', '.123', '.999', '.123456789'),
      zone: fc.constantFrom('Z', 'Z', 'Z', '+00:00', '-05:30', '+14:00'),
    });
    fc.assert(
      fc.property(dateTimes, (t) => {
        const text = `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}T${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}${t.fraction}${t.zone}`;
        // The calendar day is judged as written (before any offset moves it).
        const onCalendar = byDate(`${text.slice(0, 10)}T00:00:00Z`, t.day) !== undefined;
        expect([text, utc(text)]).toEqual([
          text,
          onCalendar ? new Date(Date.parse(text)).toISOString() : undefined,
        ]);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a UTC time to the millisecond as written, adds .000 to a whole second, and refuses a day the month lacks', () => {
    expect(utc('2024-05-01T12:34:56.789Z')).toBe('2024-05-01T12:34:56.789Z');
    expect(utc('2024-05-01T12:34:56Z')).toBe('2024-05-01T12:34:56.000Z');
    expect(utc('2024-02-29T00:00:00Z')).toBe('2024-02-29T00:00:00.000Z');
    expect(utc('2023-02-29T00:00:00.000Z')).toBeUndefined();
    expect(utc('2024-04-31T00:00:00Z')).toBeUndefined();
    expect(utc('2024-05-01T12:00:00+02:00')).toBe('2024-05-01T10:00:00.000Z');
  });
});
