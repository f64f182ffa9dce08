import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { MAX_VALIDATION_ISSUES, type ValidationIssue } from '../../lib/catalog/validate-release';
import { validateRelease } from '../../lib/catalog/validate-stream';
import { PRODUCT_FIELDS } from '../support/catalog-fixtures';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const sample = JSON.parse(readFileSync(join(__dirname, '../../catalog/sample-release.json'), 'utf8'));

type Doc = Record<string, any>;

function product(n: number, attributes: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    id: id(n),
    attributes: {
      name: `Product ${n}`,
      sku: `SKU-${n}`,
      status: 'live',
      commodity_type: 'physical',
      ...attributes,
    },
    ...extra,
  };
}

function doc(overrides: Doc = {}): Doc {
  return { catalog: { name: 'Test' }, products: [product(1)], ...overrides };
}

function issuesOf(input: unknown): ValidationIssue[] {
  const result = validateRelease(input);
  if (result.ok) return [];
  return result.issues;
}

/** The one issue of a document with exactly one problem. */
function onlyIssue(input: unknown): ValidationIssue {
  const issues = issuesOf(input);
  expect(issues).toHaveLength(1);
  return issues[0] as ValidationIssue;
}

describe('validateRelease: valid documents', () => {
  it('accepts the sample release', () => {
    const result = validateRelease(sample);
    expect(result.ok).toBe(true);
  });

  it('normalises: lower-case tags and ids, UTC timestamps, default lists', () => {
    const result = validateRelease(
      doc({
        products: [
          product(
            1,
            { tags: ['Summer', 'SALE'], created_at: '2024-01-01T10:00:00+02:00' },
            { id: id(1).toUpperCase() },
          ),
        ],
      }),
    );
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const [first] = result.document.products;
    expect(first?.id).toBe(id(1));
    expect(first?.attributes.tags).toEqual(['summer', 'sale']);
    expect(first?.attributes.created_at).toBe('2024-01-01T08:00:00.000Z');
    expect(result.document.rules).toEqual([]);
    expect(result.document.nodes).toEqual([]);
    expect(first?.node_ids).toEqual([]);
  });

  it('accepts a custom input max_length of exactly 255 and a node 10 levels deep', () => {
    const nodes = Array.from({ length: 10 }, (_, i) => ({
      id: id(100 + i),
      name: `n${i}`,
      parent_id: i ? id(99 + i) : null,
    }));
    const input = doc({
      nodes,
      products: [
        product(
          1,
          {
            custom_inputs: {
              note: { name: 'Note', validation_rules: [{ type: 'string', options: { max_length: 255 } }] },
            },
          },
          { node_ids: [id(109)] },
        ),
      ],
    });
    expect(issuesOf(input)).toEqual([]);
  });
});

describe('validateRelease: every issue names its JSON path and rule', () => {
  it('rejects a document that is not an object', () => {
    expect(onlyIssue([])).toEqual({ path: '$', rule: 'type', message: 'must be an object, got an array' });
    expect(onlyIssue(null)).toEqual({ path: '$', rule: 'type', message: 'must be an object, got null' });
  });

  it('requires catalog and products, and refuses unknown top-level fields', () => {
    expect(issuesOf({ extra: 1 })).toEqual([
      {
        path: 'extra',
        rule: 'unknown_field',
        message:
          'is not a field here; allowed: $schema, catalog, currencies, rules, nodes, price_modifiers, files, products',
      },
      { path: 'catalog', rule: 'required', message: 'is required: {"name": "..."}' },
      { path: 'products', rule: 'required', message: 'is required: an array of products' },
    ]);
  });

  it.each(['bad slug', 'a^b', 'a[b]', 'a*b', 'price$', 'ü'])('rejects the slug %p', (slug) => {
    expect(onlyIssue(doc({ products: [product(1, { slug })] }))).toEqual({
      path: 'products[0].attributes.slug',
      rule: 'slug',
      message: 'may only contain A-Z, a-z, 0-9, hyphen, underscore and period',
    });
  });

  it('rejects custom input max_length over 255', () => {
    const input = doc({
      products: [
        product(1, {
          custom_inputs: { note: { name: 'Note', validation_rules: [{ options: { max_length: 256 } }] } },
        }),
      ],
    });
    expect(onlyIssue(input)).toEqual({
      path: 'products[0].attributes.custom_inputs.note.validation_rules[0].options.max_length',
      rule: 'max_length',
      message: 'must be at most 255, got 256',
    });
  });

  it('requires tier minimum_quantity of 1 or more and rejects conflicting tiers', () => {
    const tiers = (t: Record<string, unknown>) =>
      doc({ products: [product(1, { price: { USD: { amount: 100, includes_tax: false }, tiers: t } })] });
    const usd = { USD: { amount: 90, includes_tax: false } };
    expect(onlyIssue(tiers({ a: { price: usd } }))).toEqual({
      path: 'products[0].attributes.price.tiers.a.minimum_quantity',
      rule: 'required',
      message: 'is required (an integer, 1 or more)',
    });
    expect(onlyIssue(tiers({ a: { minimum_quantity: 0, price: usd } }))).toMatchObject({
      path: 'products[0].attributes.price.tiers.a.minimum_quantity',
      rule: 'range',
    });
    expect(
      onlyIssue(tiers({ a: { minimum_quantity: 5, price: usd }, b: { minimum_quantity: 5, price: usd } })),
    ).toEqual({
      path: 'products[0].attributes.price.tiers.b.minimum_quantity',
      rule: 'tier_conflict',
      message: 'conflicts with tier "a": both start at 5',
    });
  });

  it('requires ISO 4217 currency keys and integer amounts of 0 or more', () => {
    expect(onlyIssue(doc({ products: [product(1, { price: { usd: { amount: 1 } } })] }))).toEqual({
      path: 'products[0].attributes.price.usd',
      rule: 'currency',
      message: '"usd" is not an ISO 4217 currency code',
    });
    expect(onlyIssue(doc({ products: [product(1, { price: { XYZ: { amount: 1 } } })] })).rule).toBe(
      'currency',
    );
    expect(onlyIssue(doc({ products: [product(1, { price: { USD: { amount: -1 } } })] }))).toMatchObject({
      path: 'products[0].attributes.price.USD.amount',
      rule: 'range',
    });
    expect(onlyIssue(doc({ products: [product(1, { price: { USD: { amount: 1.5 } } })] }))).toMatchObject({
      path: 'products[0].attributes.price.USD.amount',
      rule: 'integer',
    });
  });

  it('checks status, commodity_type and product_types values', () => {
    expect(onlyIssue(doc({ products: [product(1, { status: 'archived' })] }))).toEqual({
      path: 'products[0].attributes.status',
      rule: 'enum',
      message: 'must be one of live, draft, got "archived"',
    });
    expect(onlyIssue(doc({ products: [product(1, { commodity_type: 'service' })] })).path).toBe(
      'products[0].attributes.commodity_type',
    );
    expect(
      onlyIssue(doc({ products: [product(1, { product_types: ['standard', 'variant'] })] })),
    ).toMatchObject({
      path: 'products[0].attributes.product_types[1]',
      rule: 'enum',
    });
  });

  it('rejects tags with commas', () => {
    expect(onlyIssue(doc({ products: [product(1, { tags: ['ok', 'a,b'] })] }))).toEqual({
      path: 'products[0].attributes.tags[1]',
      rule: 'tags',
      message: 'tags must not contain commas',
    });
  });

  it('requires unique product ids and skus', () => {
    expect(issuesOf(doc({ products: [product(1), product(1, { sku: 'OTHER' })] }))).toEqual([
      { path: 'products[1].id', rule: 'unique', message: `product id ${id(1)} is also used by products[0]` },
    ]);
    expect(issuesOf(doc({ products: [product(1), product(2, { sku: 'SKU-1' })] }))).toEqual([
      {
        path: 'products[1].attributes.sku',
        rule: 'unique',
        message: 'sku "SKU-1" is also used by products[0]',
      },
    ]);
  });

  it('checks parent references: unknown, self, and children of children', () => {
    const child = (n: number, parent: string) =>
      product(n, { base_product_id: parent, commodity_type: undefined });
    expect(onlyIssue(doc({ products: [child(1, id(9))] }))).toEqual({
      path: 'products[0].attributes.base_product_id',
      rule: 'reference',
      message: `${id(9)} is not a product of this release`,
    });
    expect(onlyIssue(doc({ products: [child(1, id(1))] })).message).toBe(
      'a product cannot be its own parent',
    );
    expect(onlyIssue(doc({ products: [product(1), child(2, id(1)), child(3, id(2))] }))).toEqual({
      path: 'products[2].attributes.base_product_id',
      rule: 'reference',
      message: 'products[1] is itself a child; children cannot have children',
    });
  });

  it('checks references to price modifiers, nodes and bundle components', () => {
    expect(onlyIssue(doc({ products: [product(1, { price_modifiers: ['nope'] })] }))).toEqual({
      path: 'products[0].attributes.price_modifiers[0]',
      rule: 'reference',
      message: `"nope" is not one of the release's price_modifiers`,
    });
    expect(onlyIssue(doc({ products: [product(1, {}, { node_ids: [id(50)] })] }))).toEqual({
      path: 'products[0].node_ids[0]',
      rule: 'reference',
      message: `${id(50)} is not a node of this release`,
    });
    const components = { c: { name: 'C', options: [{ id: id(7), quantity: 1 }] } };
    expect(onlyIssue(doc({ products: [product(1, { components })] }))).toEqual({
      path: 'products[0].attributes.components.c.options[0].id',
      rule: 'reference',
      message: `${id(7)} is not a product of this release`,
    });
  });

  it('rejects nodes deeper than 10 levels, cycles and unknown parents', () => {
    const chain = Array.from({ length: 11 }, (_, i) => ({
      id: id(100 + i),
      name: `n${i}`,
      parent_id: i ? id(99 + i) : null,
    }));
    expect(onlyIssue(doc({ nodes: chain }))).toEqual({
      path: 'nodes[10]',
      rule: 'depth',
      message: 'the node is 11 levels deep; at most 10 are allowed',
    });
    const cycle = [
      { id: id(100), name: 'a', parent_id: id(101) },
      { id: id(101), name: 'b', parent_id: id(100) },
    ];
    expect(issuesOf(doc({ nodes: cycle })).map((issue) => [issue.path, issue.rule])).toEqual([
      ['nodes[0]', 'cycle'],
      ['nodes[1]', 'cycle'],
    ]);
    expect(onlyIssue(doc({ nodes: [{ id: id(100), name: 'a', parent_id: id(5) }] }))).toEqual({
      path: 'nodes[0].parent_id',
      rule: 'reference',
      message: 'must be the id of a node of this release',
    });
  });

  it('requires exactly one default currency', () => {
    const currency = { format: '${price}', decimal_point: '.', thousand_separator: ',', decimal_places: 2 };
    expect(onlyIssue(doc({ currencies: { USD: currency } }))).toEqual({
      path: 'currencies',
      rule: 'default_currency',
      message: 'exactly one currency must have "default": true, found 0',
    });
    expect(issuesOf(doc({ currencies: { USD: { ...currency, default: true } } }))).toEqual([]);
  });

  it('checks date-times and schedule order', () => {
    expect(onlyIssue(doc({ products: [product(1, { updated_at: '2024-13-01' })] }))).toEqual({
      path: 'products[0].attributes.updated_at',
      rule: 'date-time',
      message: 'must be an ISO 8601 date-time with a time zone, e.g. 2024-05-01T12:00:00Z',
    });
    const rules = [
      { name: 'r', schedules: [{ valid_from: '2024-02-01T00:00:00Z', valid_to: '2024-01-01T00:00:00Z' }] },
    ];
    expect(onlyIssue(doc({ rules }))).toEqual({
      path: 'rules[0].schedules[0].valid_to',
      rule: 'range',
      message: 'must be later than valid_from',
    });
  });

  it('names odd keys in brackets', () => {
    expect(
      onlyIssue(
        doc({
          price_modifiers: { 'big one': { modifier_type: 'nope', currencies: { USD: { amount: 1 } } } },
        }),
      ),
    ).toEqual({
      path: 'price_modifiers["big one"].modifier_type',
      rule: 'enum',
      message: 'must be one of price_increment, price_decrement, price_equals, got "nope"',
    });
  });

  it('reports every issue at once, capped, with the total', () => {
    const products = Array.from({ length: 150 }, (_, i) =>
      product(i + 1, { slug: 'no spaces', status: 'gone' }),
    );
    const result = validateRelease(doc({ products }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.total).toBe(300);
    expect(result.issues).toHaveLength(MAX_VALIDATION_ISSUES);
    expect(result.issues.slice(0, 2).map((issue) => issue.path)).toEqual([
      'products[0].attributes.status',
      'products[0].attributes.slug',
    ]);
  });
});

describe('validateRelease: property', () => {
  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        validateRelease(value);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws when any product field of the sample is replaced by arbitrary JSON', () => {
    const fields = PRODUCT_FIELDS;
    const attributeFields = Object.keys(sample.products[0].attributes).concat([
      'base_product_id',
      'components',
    ]);
    fc.assert(
      fc.property(
        fc.nat({ max: sample.products.length - 1 }),
        fc.constantFrom(...fields, ...attributeFields.map((field) => `attributes.${field}`)),
        fc.jsonValue(),
        (index, field, value) => {
          const copy = structuredClone(sample);
          const target = copy.products[index];
          if (field.startsWith('attributes.')) target.attributes[field.slice(11)] = value;
          else target[field] = value;
          const result = validateRelease(copy);
          if (!result.ok) {
            for (const issue of result.issues)
              expect(issue.path).toMatch(/^(products|\$|catalog|nodes|rules)/);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
