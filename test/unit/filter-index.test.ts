import fc from 'fast-check';
import {
  bucketOf,
  buildFittedPostings,
  buildPostings,
  decodePostings,
  encodePostings,
  FILTER_ATTRIBUTES,
  fixedBuckets,
  MAX_POSTINGS_BYTES,
  matchingPositions,
  neededId,
  postingBuckets,
  postingsNeeded,
  readMatchingPositions,
  storedBuckets,
} from '../../lib/catalog/filter-index';
import type { ChildIndexEntry } from '../../lib/catalog/types';
import { compileFilter } from '../../lib/filter/index';
import type { FilterExpression } from '../../lib/filter/types';

/** 1,234 children with repeating attribute values (3 buckets per attribute), deterministic. */
function children(count = 1234): ChildIndexEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    name: `Name ${i % 17}`,
    sku: `SKU-${i}`,
    slug: `slug-${i % 300}`,
    manufacturer_part_num: i % 5 === 0 ? '' : `MPN-${i % 40}`,
    upc_ean: `${100000 + (i % 900)}`,
    product_types: i % 7 === 0 ? [] : i % 2 === 0 ? ['standard', 'child'] : ['child'],
    tags: i % 3 === 0 ? ['Red', 'sale'] : i % 3 === 1 ? ['BLUE'] : [],
    updated_at: `2024-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
  }));
}

const ENTRIES = children();
const stored = new Map(
  buildPostings(ENTRIES).map((bucket) => [
    `${bucket.attribute}#${bucket.bucket}`,
    decodePostings(bucket.bytes),
  ]),
);
const read = (attribute: string, bucket: number) => stored.get(`${attribute}#${bucket}`);

/** What the old path computes: every child through the compiled filter. */
function scanned(filter: FilterExpression[]): number[] {
  const matches = compileFilter(filter);
  return ENTRIES.flatMap((entry, position) => (matches(entry) ? [position] : []));
}

const cases: [string, FilterExpression[]][] = [
  ['eq on a unique attribute', [{ op: 'eq', attribute: 'sku', values: ['SKU-1001'] }]],
  ['eq on a repeated attribute', [{ op: 'eq', attribute: 'name', values: ['Name 3'] }]],
  ['in over several values', [{ op: 'in', attribute: 'slug', values: ['slug-1', 'slug-299', 'slug-none'] }]],
  ['an empty optional attribute', [{ op: 'eq', attribute: 'manufacturer_part_num', values: [''] }]],
  ['tags in any case', [{ op: 'eq', attribute: 'tags', values: ['red'] }]],
  ['tags asked in upper case', [{ op: 'in', attribute: 'tags', values: ['SALE', 'blue'] }]],
  ['a product type', [{ op: 'eq', attribute: 'product_types', values: ['standard'] }]],
  [
    'an AND of three',
    [
      { op: 'eq', attribute: 'tags', values: ['red'] },
      { op: 'in', attribute: 'product_types', values: ['standard'] },
      { op: 'in', attribute: 'name', values: ['Name 0', 'Name 4'] },
    ],
  ],
  [
    'ids',
    [{ op: 'in', attribute: 'id', values: [ENTRIES[7]?.id ?? '', ENTRIES[1200]?.id ?? '', 'unknown'] }],
  ],
  ['a value nobody holds', [{ op: 'eq', attribute: 'upc_ean', values: ['999999999'] }]],
  [
    'an AND with no common child',
    [
      { op: 'eq', attribute: 'tags', values: ['blue'] },
      { op: 'eq', attribute: 'tags', values: ['red'] },
    ],
  ],
];

describe('the filter index', () => {
  it('spreads a parent over one bucket per 500 children, per attribute', () => {
    expect([postingBuckets(0), postingBuckets(500), postingBuckets(501), postingBuckets(50_000)]).toEqual([
      1, 1, 2, 100,
    ]);
    expect(bucketOf('red', 1)).toBe(0);
    expect(bucketOf('SKU-7', 3)).toBe(bucketOf('SKU-7', 3));
    const used = new Set(buildPostings(ENTRIES).map((bucket) => `${bucket.attribute}#${bucket.bucket}`));
    // Six attributes with many values fill all 3 buckets each; tags (3 values) and product types (2 values)
    // fill 4 between them; a bucket no value hashes to is not written.
    expect(used.size).toBe((FILTER_ATTRIBUTES.length - 2) * 3 + 4);
  });

  it('stores positions as gaps and reads them back exactly', () => {
    const values = new Map([
      ['a', [0, 5, 6, 1000]],
      ['b', [3]],
    ]);
    expect(decodePostings(encodePostings(values))).toEqual(values);
  });

  it.each(cases)('finds exactly what scanning every child finds: %s', (_name, filter) => {
    const expected = scanned(filter);
    expect(matchingPositions(filter, fixedBuckets(ENTRIES.length), read)).toEqual(expected);
    // Reading only the buckets the filter names is enough.
    const needed = new Set(
      postingsNeeded(filter, fixedBuckets(ENTRIES.length)).map((n) => `${n.attribute}#${n.bucket}`),
    );
    const onlyNeeded = (attribute: string, bucket: number) =>
      needed.has(`${attribute}#${bucket}`) ? read(attribute, bucket) : undefined;
    expect(matchingPositions(filter, fixedBuckets(ENTRIES.length), onlyNeeded)).toEqual(expected);
  });

  it('names at most one bucket per value asked for', () => {
    expect(
      postingsNeeded(
        [{ op: 'in', attribute: 'sku', values: ['SKU-1', 'SKU-2', 'SKU-1'] }],
        fixedBuckets(50_000),
      ).length,
    ).toBeLessThanOrEqual(2);
    expect(postingsNeeded([{ op: 'eq', attribute: 'tags', values: ['Red'] }], fixedBuckets(1234))).toEqual([
      { attribute: 'tags', bucket: bucketOf('red', 3) },
    ]);
  });
});

/** A list cut into segments of `size`, each with its fitted index, read through `readMatchingPositions`. */
async function segmented(entries: ChildIndexEntry[], size: number, filter: FilterExpression[]) {
  const stored = new Map<string, Uint8Array>();
  const segments = [];
  for (let start = 0; start < entries.length; start += size) {
    const n = segments.length;
    const { counts, buckets } = buildFittedPostings(entries.slice(start, start + size));
    for (const { attribute, bucket, bytes } of buckets)
      stored.set(neededId({ segment: n, attribute, bucket }), bytes);
    segments.push({ start, buckets: storedBuckets(counts) });
  }
  const asked: string[] = [];
  const positions = await readMatchingPositions(filter, segments, async (needed) => {
    asked.push(...needed.map(neededId));
    return new Map(
      needed.flatMap((each) => {
        const bytes = stored.get(neededId(each));
        return bytes === undefined ? [] : [[neededId(each), bytes] as const];
      }),
    );
  });
  return { positions, asked, segments: segments.length };
}

describe('the segmented filter index (the release-wide index)', () => {
  it.each(cases)(
    'finds exactly what scanning every entry finds, across segments: %s',
    async (_name, filter) => {
      const { positions, asked, segments } = await segmented(ENTRIES, 300, filter);
      expect(segments).toBe(5);
      expect(positions).toEqual(scanned(filter));
      // One read of at most one bucket per value and segment.
      const values = filter.reduce((sum, expression) => sum + expression.values.length, 0);
      expect(asked.length).toBeLessThanOrEqual(values * segments);
    },
  );

  it('agrees with a scan for random products and filters', async () => {
    const value = fc.constantFrom('a', 'b', 'c', 'D', 'long-value');
    const entry = fc.record({
      name: value,
      sku: value,
      slug: value,
      manufacturer_part_num: fc.constantFrom('', 'a', 'b'),
      upc_ean: value,
      product_types: fc.subarray(['standard', 'child', 'parent', 'bundle']),
      tags: fc.array(value, { maxLength: 3 }),
    });
    const expression = fc.record({
      op: fc.constantFrom('eq' as const, 'in' as const),
      attribute: fc.constantFrom(...FILTER_ATTRIBUTES.filter((attribute) => attribute !== 'id')),
      values: fc.array(value, { minLength: 1, maxLength: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { maxLength: 60 }),
        fc.array(expression, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 25 }),
        async (raw, filter, size) => {
          const entries = raw.map((each, i) => ({
            ...each,
            id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
            updated_at: '2024-01-01T00:00:00.000Z',
          }));
          const matches = compileFilter(filter);
          const expected = entries.flatMap((each, position) => (matches(each) ? [position] : []));
          expect((await segmented(entries, size, filter)).positions).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("doubles an attribute's buckets until each fits an item", () => {
    // 600 entries with 20 distinct 250-character tags of random letters each (3 MB, ~1.8 MB deflated): far
    // more than the two buckets of 600 entries hold.
    let seed = 7;
    const letter = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return String.fromCharCode(97 + ((seed >>> 16) % 26));
    };
    const heavy = Array.from({ length: 600 }, (_, i) => ({
      ...(ENTRIES[0] as ChildIndexEntry),
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      tags: Array.from({ length: 20 }, () => Array.from({ length: 250 }, letter).join('')),
    }));
    const { counts, buckets } = buildFittedPostings(heavy);
    const tagBuckets = counts[FILTER_ATTRIBUTES.indexOf('tags')] as number;
    expect(tagBuckets).toBeGreaterThan(postingBuckets(heavy.length));
    expect(Math.max(...buckets.map((bucket) => bucket.bytes.byteLength))).toBeLessThanOrEqual(
      MAX_POSTINGS_BYTES,
    );
    // The other attributes keep one bucket per 500 entries, at most one per distinct value.
    expect(counts[FILTER_ATTRIBUTES.indexOf('id')]).toBe(postingBuckets(heavy.length));
    expect(counts[FILTER_ATTRIBUTES.indexOf('sku')]).toBe(1);
  });
});
