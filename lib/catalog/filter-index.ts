import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { FilterAttribute, FilterExpression } from '../filter/types';
import { catalogRepository } from '../store/catalog-repository';
import type { ChildIndexEntry, ReleaseLayout } from './types';

/**
 * The filter index of a parent's live children, built at publish time beside the child index: for every
 * filterable attribute, the positions (in the child index's publish order) of the children holding each
 * value, hashed into buckets. A filtered first page then reads only the buckets of the values it names,
 * the index chunks of the page's positions and the page's products, however many children the parent
 * has; before, it read every chunk of the child index. A release records that it has the index
 * (`ReleaseLayout.filter_index`); releases published without it are read the old way.
 */

/** `ReleaseLayout.filter_index` of releases that carry this index. */
export const FILTER_INDEX_VERSION = 1;
/** About this many children's values share one bucket item (so unique attributes stay well under 400 KB). */
export const POSTING_BUCKET_CHILDREN = 500;
/** Every attribute a child-list filter can test. */
export const FILTER_ATTRIBUTES: readonly FilterAttribute[] = [
  'id',
  'name',
  'sku',
  'slug',
  'manufacturer_part_num',
  'upc_ean',
  'product_types',
  'tags',
];

/** Buckets per attribute for a parent with `liveChildren` live children. */
export function postingBuckets(liveChildren: number): number {
  return Math.max(1, Math.ceil(liveChildren / POSTING_BUCKET_CHILDREN));
}

/** The bucket of a value (FNV-1a of its UTF-16 code units). */
export function bucketOf(value: string, buckets: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i += 1) {
    hash ^= value.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % buckets;
}

/** The values a child holds for an attribute, as a filter compares them (tags in lower case). */
function heldValues(entry: ChildIndexEntry, attribute: FilterAttribute): string[] {
  if (attribute === 'tags') return entry.tags.map((tag) => tag.toLowerCase());
  if (attribute === 'product_types') return entry.product_types;
  return [entry[attribute]];
}

/** The values an expression asks for, compared as `heldValues` stores them. */
function wantedValues(expression: FilterExpression): string[] {
  return expression.attribute === 'tags'
    ? expression.values.map((value) => value.toLowerCase())
    : expression.values;
}

/** One bucket item: the positions of each value of one attribute that hashes to it. */
export interface PostingBucket {
  attribute: FilterAttribute;
  bucket: number;
  bytes: Uint8Array;
}

/** A bucket as stored: `[value, first position, gap, gap, ...]` rows, deflated. */
export function encodePostings(values: ReadonlyMap<string, readonly number[]>): Uint8Array {
  const rows = [...values].map(([value, positions]) => [
    value,
    ...positions.map((position, i) => (i === 0 ? position : position - (positions[i - 1] as number))),
  ]);
  return new Uint8Array(deflateRawSync(JSON.stringify(rows)));
}

/** The value -> ascending positions map of a stored bucket. */
export function decodePostings(bytes: Uint8Array): Map<string, number[]> {
  const rows = JSON.parse(inflateRawSync(bytes).toString('utf8')) as [string, ...number[]][];
  const values = new Map<string, number[]>();
  for (const [value, ...gaps] of rows) {
    const positions: number[] = [];
    let position = 0;
    gaps.forEach((gap, i) => {
      position = i === 0 ? gap : position + gap;
      positions.push(position);
    });
    values.set(value, positions);
  }
  return values;
}

/** The bucket items of a parent's filter index, from its live children in child-index order. */
export function buildPostings(entries: readonly ChildIndexEntry[]): PostingBucket[] {
  const buckets = postingBuckets(entries.length);
  const out: PostingBucket[] = [];
  for (const attribute of FILTER_ATTRIBUTES) {
    const byBucket = new Map<number, Map<string, number[]>>();
    entries.forEach((entry, position) => {
      for (const value of new Set(heldValues(entry, attribute))) {
        const bucket = bucketOf(value, buckets);
        let values = byBucket.get(bucket);
        if (!values) {
          values = new Map();
          byBucket.set(bucket, values);
        }
        const positions = values.get(value);
        if (positions) positions.push(position);
        else values.set(value, [position]);
      }
    });
    for (const [bucket, values] of byBucket) out.push({ attribute, bucket, bytes: encodePostings(values) });
  }
  return out;
}

/** The buckets a filter needs, each once. */
export function postingsNeeded(
  filter: readonly FilterExpression[],
  liveChildren: number,
): { attribute: FilterAttribute; bucket: number }[] {
  const buckets = postingBuckets(liveChildren);
  const needed = new Map<string, { attribute: FilterAttribute; bucket: number }>();
  for (const expression of filter) {
    for (const value of wantedValues(expression)) {
      const bucket = bucketOf(value, buckets);
      needed.set(`${expression.attribute}#${bucket}`, { attribute: expression.attribute, bucket });
    }
  }
  return [...needed.values()];
}

/** The common positions of two ascending lists. */
function intersect(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      out.push(x);
      i += 1;
      j += 1;
    } else if (x < y) i += 1;
    else j += 1;
  }
  return out;
}

/**
 * The ascending child-index positions of the children matching the filter (an AND of expressions, each
 * "one of its values"), from the buckets `read` returns (undefined: the bucket holds no value).
 */
export function matchingPositions(
  filter: readonly FilterExpression[],
  liveChildren: number,
  read: (attribute: FilterAttribute, bucket: number) => ReadonlyMap<string, readonly number[]> | undefined,
): number[] {
  const buckets = postingBuckets(liveChildren);
  let result: number[] | undefined;
  for (const expression of filter) {
    const positions = new Set<number>();
    for (const value of wantedValues(expression)) {
      for (const position of read(expression.attribute, bucketOf(value, buckets))?.get(value) ?? [])
        positions.add(position);
    }
    const sorted = [...positions].sort((a, b) => a - b);
    result = result === undefined ? sorted : intersect(result, sorted);
    if (result.length === 0) return result;
  }
  return result ?? [];
}

/** The items of a parent's filter index, for the publisher to write beside its child-index chunks. */
export function filterIndexItems(
  layout: ReleaseLayout,
  parentId: string,
  entries: readonly ChildIndexEntry[],
): ReturnType<typeof catalogRepository.postingsItem>[] {
  return buildPostings(entries).map(({ attribute, bucket, bytes }) =>
    catalogRepository.postingsItem(layout, parentId, attribute, bucket, bytes),
  );
}
