import fc from 'fast-check';
import {
  canonicalFilter,
  compileFilter,
  type FilterAttribute,
  type FilterableProduct,
  type FilterExpression,
  isIdLookup,
  MAX_FILTER_EXPRESSIONS,
  matchesFilter,
  NO_MATCH_FILTER,
  parseFilter,
} from '../../lib/filter/index';
import { BadRequestError } from '../../lib/http/errors';

const RUNS = { numRuns: 2000 };

/**
 * Parses and reports the outcome; any throw other than the typed 400 for `filter` fails the property.
 * Every detail must name a position inside the input (or the one just past its end), or be one of the
 * position-less whole-filter errors.
 */
function parseOrReject(input: string): FilterExpression[] | BadRequestError {
  try {
    return parseFilter(input);
  } catch (error) {
    if (!(error instanceof BadRequestError)) throw error;
    expect(error.status).toBe(400);
    expect(error.source).toBe('filter');
    const position = /character (\d+)/.exec(error.detail);
    if (position === null) {
      expect(error.detail).toMatch(/^filter is (empty|too long)/);
    } else {
      const at = Number(position[1]);
      expect(at).toBeGreaterThanOrEqual(1);
      expect(at).toBeLessThanOrEqual(Array.from(input).length + 1);
    }
    return error;
  }
}

const ATTRIBUTES: FilterAttribute[] = [
  'id',
  'name',
  'sku',
  'slug',
  'manufacturer_part_num',
  'upc_ean',
  'product_types',
  'tags',
];
const BARE = /^[\p{L}\p{M}\p{N} $\-_*.@+/{}|]+$/u;

/** Values that need every kind of quoting: reserved characters, quotes, backslashes, spaces at the ends. */
const valueArb = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 $\-_*.@+/{}|]{0,11}$/),
  fc.string({
    minLength: 1,
    maxLength: 12,
    unit: fc.constantFrom('a', 'Z', ' ', ',', ':', '(', ')', '"', "'", '\\', '#', 'é', '😀', '\t'),
  }),
  fc.string({ minLength: 1, maxLength: 8, unit: 'grapheme' }),
);

const expressionArb: fc.Arbitrary<FilterExpression> = fc
  .record({
    attribute: fc.constantFrom(...ATTRIBUTES),
    eq: fc.boolean(),
    values: fc.array(valueArb, { minLength: 1, maxLength: 4 }),
  })
  .map(({ attribute, eq, values }) => {
    const op = eq && attribute !== 'id' ? 'eq' : 'in';
    const kept = op === 'eq' ? values.slice(0, 1) : values;
    return { op, attribute, values: attribute === 'tags' ? kept.map((v) => v.toLowerCase()) : kept };
  });

const filterArb = fc.array(expressionArb, { minLength: 1, maxLength: MAX_FILTER_EXPRESSIONS });

const whitespaceArb = fc.constantFrom('', '', '', ' ', '  ', '\t', '\n', ' \r\n ');

/** Renders one value bare when the grammar allows it, else quoted with either quote and escapes. */
function renderValue(value: string, style: number): string {
  const bareOk = BARE.test(value) && value.trim() === value;
  if (bareOk && style % 3 !== 0) return value;
  const quote = style % 2 === 0 ? '"' : "'";
  // Escape the backslash and the active quote always; the other quote only sometimes (both are valid).
  const pattern = style % 5 === 0 ? /[\\"']/g : quote === '"' ? /[\\"]/g : /[\\']/g;
  return `${quote}${value.replace(pattern, '\\$&')}${quote}`;
}

/** A filter string for `filter`, with random quoting, random whitespace and the mpn alias sometimes. */
const renderedArb = filterArb.chain((filter) =>
  fc
    .tuple(
      fc.array(fc.nat(), { minLength: 64, maxLength: 64 }),
      fc.array(whitespaceArb, { minLength: 64, maxLength: 64 }),
    )
    .map(([styles, spaces]) => {
      let s = 0;
      let w = 0;
      const style = () => styles[s++ % styles.length] ?? 0;
      const ws = () => spaces[w++ % spaces.length] ?? '';
      const text = filter
        .map((expression) => {
          const attribute =
            expression.attribute === 'manufacturer_part_num' && style() % 2 === 0
              ? 'mpn'
              : expression.attribute;
          const values = expression.values.map((value) => `${ws()}${renderValue(value, style())}${ws()}`);
          return `${ws()}${expression.op}${ws()}(${ws()}${attribute}${ws()},${values.join(',')})${ws()}`;
        })
        .join(':');
      return { filter, text };
    }),
);

const productArb: fc.Arbitrary<FilterableProduct> = (() => {
  const pool = fc.constantFrom('a', 'b', 'c', 'A', 'x y', 'é');
  return fc.record({
    id: pool,
    name: pool,
    sku: pool,
    slug: pool,
    manufacturer_part_num: fc.oneof(pool, fc.constant('')),
    upc_ean: fc.oneof(pool, fc.constant('')),
    product_types: fc.uniqueArray(fc.constantFrom('standard', 'parent', 'child', 'bundle', 'a'), {
      maxLength: 3,
    }),
    tags: fc.uniqueArray(pool, { maxLength: 3 }),
  });
})();

/** Filters over the same small value pool as the products, so that matches and misses both happen. */
const poolFilterArb: fc.Arbitrary<FilterExpression[]> = fc.array(
  fc
    .record({
      attribute: fc.constantFrom(...ATTRIBUTES),
      values: fc.array(fc.constantFrom('a', 'b', 'c', 'A', 'x y', 'é', 'child', 'bundle'), {
        minLength: 1,
        maxLength: 3,
      }),
      eq: fc.boolean(),
    })
    .map(({ attribute, values, eq }): FilterExpression => {
      const op = eq && attribute !== 'id' ? 'eq' : 'in';
      const kept = op === 'eq' ? values.slice(0, 1) : values;
      return { op, attribute, values: attribute === 'tags' ? kept.map((v) => v.toLowerCase()) : kept };
    }),
  { maxLength: 5 },
);

describe('parseFilter never fails with anything but the typed 400', () => {
  it('on random strings of any characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: 'binary' }), (input) => {
        parseOrReject(input);
      }),
      RUNS,
    );
  });

  it('on random strings over the grammar alphabet (reaching deep into the parser)', () => {
    const unit = fc.constantFrom(
      ...'eqin()(),,,::"\'\\ \t#-_.'.split(''),
      'eq(',
      'in(',
      'sku',
      'tags',
      'id',
      'mpn',
      'product_types',
      '😀',
      'é',
      '\uD800',
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 60, unit }), (input) => {
        parseOrReject(input);
      }),
      RUNS,
    );
  });

  it('on random mutations (insert, delete, replace, cut, repeat) of valid filters', () => {
    const mutationArb = fc.record({
      kind: fc.constantFrom('insert', 'delete', 'replace', 'cut', 'repeat'),
      at: fc.nat(),
      char: fc.constantFrom('(', ')', ',', ':', '"', "'", '\\', ' ', 'x', '#', '\u0000', '😀'),
    });
    fc.assert(
      fc.property(
        renderedArb,
        fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
        ({ text }, mutations) => {
          let mutated = text;
          for (const { kind, at, char } of mutations) {
            const i = at % (mutated.length + 1);
            if (kind === 'insert') mutated = mutated.slice(0, i) + char + mutated.slice(i);
            if (kind === 'delete') mutated = mutated.slice(0, i) + mutated.slice(i + 1);
            if (kind === 'replace') mutated = mutated.slice(0, i) + char + mutated.slice(i + 1);
            if (kind === 'cut') mutated = mutated.slice(0, i);
            if (kind === 'repeat' && mutated.length < 9000) mutated = mutated.repeat(1 + (at % 20));
          }
          parseOrReject(mutated);
        },
      ),
      RUNS,
    );
  });

  it('rejects any input over 8 KiB with the length error', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 8193, maxLength: 9000, unit: fc.constantFrom('a', 'é', '(') }),
        (input) => {
          const outcome = parseOrReject(input);
          expect(outcome).toBeInstanceOf(BadRequestError);
          expect((outcome as BadRequestError).detail).toBe(
            `filter is too long: ${Buffer.byteLength(input)} bytes, at most 8192 are allowed`,
          );
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe('round trip', () => {
  it('rendering any valid filter with any quoting and whitespace parses back to the same expressions', () => {
    fc.assert(
      fc.property(renderedArb, ({ filter, text }) => {
        expect(parseFilter(text)).toEqual(filter);
      }),
      RUNS,
    );
  });

  it('a canonical form parses back to a filter that matches exactly the same products', () => {
    fc.assert(
      fc.property(
        poolFilterArb,
        fc.array(productArb, { minLength: 1, maxLength: 20 }),
        (filter, products) => {
          const canonical = canonicalFilter(filter);
          for (const product of products) {
            const expected = matchesFilter(product, filter);
            if (canonical === NO_MATCH_FILTER) expect(expected).toBe(false);
            else if (canonical === '') expect(expected).toBe(true);
            else expect(matchesFilter(product, parseFilter(canonical))).toBe(expected);
          }
          if (canonical !== NO_MATCH_FILTER && canonical !== '') {
            expect(canonicalFilter(parseFilter(canonical))).toBe(canonical);
            expect(isIdLookup(parseFilter(canonical))).toBe(isIdLookup(filter));
          }
        },
      ),
      RUNS,
    );
  });
});

describe('evaluation and canonical form', () => {
  it('compileFilter agrees with matchesFilter on every product', () => {
    fc.assert(
      fc.property(poolFilterArb, productArb, (filter, product) => {
        expect(compileFilter(filter)(product)).toBe(matchesFilter(product, filter));
      }),
      RUNS,
    );
  });

  it('is unchanged by reordering expressions and values, eq/in for one value, and tag case', () => {
    fc.assert(
      fc.property(poolFilterArb, fc.nat(), (filter, seed) => {
        const shuffle = <T>(items: T[]) =>
          items
            .map((item, i) => ({ item, key: (seed * 31 + i * 17) % 97 }))
            .sort((a, b) => a.key - b.key)
            .map(({ item }) => item);
        const variant = shuffle(filter).map(
          (e): FilterExpression => ({
            op: e.values.length === 1 && e.attribute !== 'id' ? (e.op === 'eq' ? 'in' : 'eq') : e.op,
            attribute: e.attribute,
            values: shuffle(e.attribute === 'tags' ? e.values.map((v) => v.toUpperCase()) : e.values),
          }),
        );
        expect(canonicalFilter(variant)).toBe(canonicalFilter(filter));
      }),
      RUNS,
    );
  });

  it('adding an expression implied by one already there changes neither the canonical form nor the matches', () => {
    fc.assert(
      fc.property(
        poolFilterArb.filter((filter) => filter.length > 0),
        fc.nat(),
        fc.array(fc.constantFrom('a', 'z', 'child', 'new'), { maxLength: 3 }),
        fc.array(productArb, { minLength: 1, maxLength: 20 }),
        (filter, pick, extra, products) => {
          const base = filter[pick % filter.length] as FilterExpression;
          const implied: FilterExpression = {
            op: 'in',
            attribute: base.attribute,
            values: [...extra, ...base.values],
          };
          const widened = [...filter, implied];
          expect(canonicalFilter(widened)).toBe(canonicalFilter(filter));
          for (const product of products) {
            expect(matchesFilter(product, widened)).toBe(matchesFilter(product, filter));
          }
        },
      ),
      RUNS,
    );
  });
});
