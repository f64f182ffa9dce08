import {
  bucketOf,
  buildPostings,
  decodePostings,
  encodePostings,
  FILTER_ATTRIBUTES,
  matchingPositions,
  postingBuckets,
  postingsNeeded,
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

  const cases: [string, FilterExpression[]][] = [
    ['eq on a unique attribute', [{ op: 'eq', attribute: 'sku', values: ['SKU-1001'] }]],
    ['eq on a repeated attribute', [{ op: 'eq', attribute: 'name', values: ['Name 3'] }]],
    [
      'in over several values',
      [{ op: 'in', attribute: 'slug', values: ['slug-1', 'slug-299', 'slug-none'] }],
    ],
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

  it.each(cases)('finds exactly what scanning every child finds: %s', (_name, filter) => {
    const expected = scanned(filter);
    expect(matchingPositions(filter, ENTRIES.length, read)).toEqual(expected);
    // Reading only the buckets the filter names is enough.
    const needed = new Set(postingsNeeded(filter, ENTRIES.length).map((n) => `${n.attribute}#${n.bucket}`));
    const onlyNeeded = (attribute: string, bucket: number) =>
      needed.has(`${attribute}#${bucket}`) ? read(attribute, bucket) : undefined;
    expect(matchingPositions(filter, ENTRIES.length, onlyNeeded)).toEqual(expected);
  });

  it('names at most one bucket per value asked for', () => {
    expect(
      postingsNeeded([{ op: 'in', attribute: 'sku', values: ['SKU-1', 'SKU-2', 'SKU-1'] }], 50_000).length,
    ).toBeLessThanOrEqual(2);
    expect(postingsNeeded([{ op: 'eq', attribute: 'tags', values: ['Red'] }], 1234)).toEqual([
      { attribute: 'tags', bucket: bucketOf('red', 3) },
    ]);
  });
});
