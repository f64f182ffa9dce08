import { inflateRawSync } from 'node:zlib';
import type { FilterAttribute, FilterExpression } from '../filter/types';
import { catalogRepository } from '../store/catalog-repository';
import { deflateJson } from './deflated-json';
import type { ChildIndexEntry, ReleaseLayout } from './types';

/**
 * The filter index of a parent's live children, built at publish time beside the child index: for every
 * filterable attribute, the positions (in the child index's publish order) of the children holding each
 * value, hashed into buckets. A filtered first page then reads only the buckets of the values it names,
 * the index chunks of the page's positions and the page's products, however many children the parent
 * has; before, it read every chunk of the child index. A release records that it has the index
 * (`ReleaseLayout.filter_index`); releases published without it are read the old way.
 *
 * The release-wide index of live products (`GET /catalog/products`) has the same index per segment of
 * RELEASE_SEGMENT products, with bucket counts fitted to their sizes and recorded in the release's summary
 * (lib/catalog/product-lookups.ts); both lists are read through `readMatchingPositions`.
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

/** How many buckets each attribute of one indexed list has (the reader must hash values as the writer did). */
export type BucketCounts = (attribute: FilterAttribute) => number;

/** A parent's counts: one bucket per POSTING_BUCKET_CHILDREN live children, for every attribute. */
export function fixedBuckets(liveChildren: number): BucketCounts {
  const buckets = postingBuckets(liveChildren);
  return () => buckets;
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
  return deflateJson(rows);
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

/** Largest bucket of a fitted index (deflated bytes): well inside DynamoDB's 400 KB an item. */
export const MAX_POSTINGS_BYTES = 256 * 1024;

/** Doubling stops here whatever the sizes (a value too large alone is then an item-size issue). */
const MAX_FITTED_BUCKETS = 1 << 16;

/** One attribute's values by bucket: value -> ascending positions. */
function attributePostings(
  entries: readonly ChildIndexEntry[],
  attribute: FilterAttribute,
  buckets: number,
): Map<number, Map<string, number[]>> {
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
  return byBucket;
}

function encodeAttribute(
  entries: readonly ChildIndexEntry[],
  attribute: FilterAttribute,
  buckets: number,
): PostingBucket[] {
  return [...attributePostings(entries, attribute, buckets)].map(([bucket, values]) => ({
    attribute,
    bucket,
    bytes: encodePostings(values),
  }));
}

/** The bucket items of a parent's filter index, from its live children in child-index order. */
export function buildPostings(
  entries: readonly ChildIndexEntry[],
  buckets: BucketCounts = fixedBuckets(entries.length),
): PostingBucket[] {
  return FILTER_ATTRIBUTES.flatMap((attribute) => encodeAttribute(entries, attribute, buckets(attribute)));
}

/**
 * A filter index whose buckets each fit MAX_POSTINGS_BYTES, with its bucket counts (in FILTER_ATTRIBUTES
 * order), which the reader needs. Each attribute starts at one bucket per POSTING_BUCKET_CHILDREN entries
 * (at most one per distinct value) and doubles its count while a bucket is too large (entries with many
 * long tags), until every value has a bucket of its own. Every bucket is written, empty ones too, so a
 * reader never misses a key (a miss would cost a strongly consistent read again).
 */
export function buildFittedPostings(entries: readonly ChildIndexEntry[]): {
  counts: number[];
  buckets: PostingBucket[];
} {
  const counts: number[] = [];
  const buckets: PostingBucket[] = [];
  for (const attribute of FILTER_ATTRIBUTES) {
    const values = new Set(entries.flatMap((entry) => heldValues(entry, attribute))).size;
    let count = Math.min(postingBuckets(entries.length), Math.max(1, values));
    const encode = () => {
      const byBucket = attributePostings(entries, attribute, count);
      const encoded = Array.from({ length: count }, (_, bucket) => ({
        attribute,
        bucket,
        bytes: encodePostings(byBucket.get(bucket) ?? new Map()),
      }));
      return { encoded, used: byBucket.size };
    };
    let { encoded, used } = encode();
    while (
      encoded.some((bucket) => bucket.bytes.byteLength > MAX_POSTINGS_BYTES) &&
      used < values &&
      count < MAX_FITTED_BUCKETS
    ) {
      count *= 2;
      ({ encoded, used } = encode());
    }
    counts.push(count);
    for (const bucket of encoded) buckets.push(bucket);
  }
  return { counts, buckets };
}

/** The counts `buildFittedPostings` returned, as the reader takes them. */
export function storedBuckets(counts: readonly number[]): BucketCounts {
  return (attribute) => counts[FILTER_ATTRIBUTES.indexOf(attribute)] ?? 1;
}

/** The buckets a filter needs, each once. */
export function postingsNeeded(
  filter: readonly FilterExpression[],
  buckets: BucketCounts,
): { attribute: FilterAttribute; bucket: number }[] {
  const needed = new Map<string, { attribute: FilterAttribute; bucket: number }>();
  for (const expression of filter) {
    for (const value of wantedValues(expression)) {
      const bucket = bucketOf(value, buckets(expression.attribute));
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
  buckets: BucketCounts,
  read: (attribute: FilterAttribute, bucket: number) => ReadonlyMap<string, readonly number[]> | undefined,
): number[] {
  let result: number[] | undefined;
  for (const expression of filter) {
    const count = buckets(expression.attribute);
    const positions = new Set<number>();
    for (const value of wantedValues(expression)) {
      for (const position of read(expression.attribute, bucketOf(value, count))?.get(value) ?? [])
        positions.add(position);
    }
    const sorted = [...positions].sort((a, b) => a - b);
    result = result === undefined ? sorted : intersect(result, sorted);
    if (result.length === 0) return result;
  }
  return result ?? [];
}

/**
 * One segment of an indexed list: the entries from position `start` on, with a filter index of their own
 * (positions in it count from the segment's start). A parent's children are one segment; the release-wide
 * index is cut into segments of RELEASE_SEGMENT products (lib/catalog/product-lookups.ts).
 */
export interface IndexSegment {
  start: number;
  buckets: BucketCounts;
}

/** A bucket of one segment's filter index. */
export interface NeededBucket {
  segment: number;
  attribute: FilterAttribute;
  bucket: number;
}

/** The key `readMatchingPositions`'s reader answers a bucket by. */
export const neededId = (needed: NeededBucket) => `${needed.segment}#${needed.attribute}#${needed.bucket}`;

/**
 * The ascending positions of a list's entries matching the filter, from the filter index of each of its
 * segments: `read` gets the buckets the filter's values hash to in every segment (all in one round trip;
 * absent ones hold no value) by `neededId`; each segment's buckets are decoded, tested and dropped in turn.
 */
export async function readMatchingPositions(
  filter: readonly FilterExpression[],
  segments: readonly IndexSegment[],
  read: (needed: NeededBucket[]) => Promise<ReadonlyMap<string, Uint8Array>>,
): Promise<number[]> {
  const needed = segments.flatMap((segment, n) =>
    postingsNeeded(filter, segment.buckets).map((each) => ({ segment: n, ...each })),
  );
  const found = await read(needed);
  const out: number[] = [];
  segments.forEach((segment, n) => {
    const decoded = new Map<string, Map<string, number[]> | undefined>();
    const bucketOfSegment = (attribute: FilterAttribute, bucket: number) => {
      const id = neededId({ segment: n, attribute, bucket });
      if (!decoded.has(id)) {
        const bytes = found.get(id);
        decoded.set(id, bytes === undefined ? undefined : decodePostings(bytes));
      }
      return decoded.get(id);
    };
    for (const position of matchingPositions(filter, segment.buckets, bucketOfSegment))
      out.push(segment.start + position);
  });
  return out;
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
