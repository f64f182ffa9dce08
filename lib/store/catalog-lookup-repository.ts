import { createHash } from 'node:crypto';
import type { ReleaseLayout } from '../catalog/types';
import { catalogKeys, type Item, type Key, readReleaseKeys, shardOf } from './catalog-repository';

/**
 * The release-wide items the storefront's product reads use, written at publish time next to the
 * release's products (same `REL#<release>#<shard>` partitions, so deleting a release deletes them too):
 *
 * - `REL#<release>#0` / `M#release`: the release's summary (catalog name and description, counts, root
 *   nodes) as JSON in `d`: `GET /catalog` and the product list's count.
 * - `REL#<release>#<n mod shards>` / `I#<n>`: chunk n of the release's index of live products in publish
 *   order (the child index's format, `z`): the product list pages through it and filters over it.
 * - `REL#<release>#<shard of key>` / `L#<attribute>#<value>` (`H#<attribute>#<sha256>` for long values): the
 *   live products whose `slug` or
 *   `sku` or `id` is the value: their index entries with their positions in publish order (JSON in `d`), so
 *   `eq(slug,…)`, `eq(sku,…)` and `in(id,…)` read one small item per value, whatever the release's size.
 * - `REL#<release>#<shard of key>` / `Y#<segment>#<attribute>#<bucket>`: one bucket of the filter index of
 *   a segment of the release-wide index (lib/catalog/filter-index.ts): the positions, from the segment's
 *   start, of each value hashing to it, deflated (`z`); keyed to spread a filter's reads over partitions.
 */
export type LookupAttribute = 'id' | 'slug' | 'sku';

export const lookupKeys = {
  summary: (layout: Pick<ReleaseLayout, 'id'>): Key => ({
    pk: catalogKeys.shardPartition(layout.id, 0),
    sk: 'M#release',
  }),
  indexChunk: (layout: Pick<ReleaseLayout, 'id' | 'shards'>, chunk: number): Key => ({
    pk: catalogKeys.shardPartition(layout.id, chunk % layout.shards),
    sk: `I#${String(chunk).padStart(6, '0')}`,
  }),
  postings: (
    layout: Pick<ReleaseLayout, 'id' | 'shards'>,
    segment: number,
    attribute: string,
    bucket: number,
  ): Key => {
    const sk = `Y#${String(segment).padStart(6, '0')}#${attribute}#${String(bucket).padStart(6, '0')}`;
    return { pk: catalogKeys.shardPartition(layout.id, shardOf(sk, layout.shards)), sk };
  },
  /**
   * A value of more than LONG_VALUE_BYTES (a 255-character SKU of 4-byte characters, or any filter value)
   * is keyed by its SHA-256 under `H#`: a sort key holds at most 1,024 bytes. The item's entries carry the
   * real values, which the filter is tested on, so a shared hash could not change an answer.
   */
  lookup: (layout: Pick<ReleaseLayout, 'id' | 'shards'>, attribute: LookupAttribute, value: string): Key => {
    const sk =
      Buffer.byteLength(value, 'utf8') > LONG_VALUE_BYTES
        ? `H#${attribute}#${createHash('sha256').update(value, 'utf8').digest('hex')}`
        : `L#${attribute}#${value}`;
    return { pk: catalogKeys.shardPartition(layout.id, shardOf(sk, layout.shards)), sk };
  },
};

/** Longest value (UTF-8 bytes) kept as it is in a lookup's sort key. */
export const LONG_VALUE_BYTES = 512;

/**
 * The live products that carry one value of a lookup attribute (one, except for derived slugs that
 * collide), as JSON text: their index entries with their positions in publish order.
 */
export type LookupJson = string;

export interface CatalogReadRequest {
  summary?: boolean;
  chunks?: number[];
  lookups?: { attribute: LookupAttribute; value: string }[];
  /** The chunks may lie past the end of the index (fetched with the summary): a miss is not re-read. */
  speculativeChunks?: boolean;
  /** Buckets of the segments' filter indexes (a missing one is re-read strongly, then holds no value). */
  postings?: { segment: number; attribute: string; bucket: number }[];
}

export interface CatalogReadResult {
  /** The summary as JSON text, when asked for and found. */
  summary?: string;
  chunks: Map<number, Uint8Array>;
  /** By `attribute#value`; absent values have no entry. */
  lookups: Map<string, LookupJson>;
  /** Found filter-index buckets by `segment#attribute#bucket`. */
  postings: Map<string, Uint8Array>;
}

const keyOf = (key: Key) => `${key.pk}\u0000${key.sk}`;

export const catalogLookupRepository = {
  /** The release's summary item. */
  summaryItem(layout: ReleaseLayout, json: string): Item {
    return { ...lookupKeys.summary(layout), d: json };
  },

  /** Chunk n of the release's live-product index. */
  indexChunkItem(layout: ReleaseLayout, chunk: number, bytes: Uint8Array): Item {
    return { ...lookupKeys.indexChunk(layout, chunk), z: bytes };
  },

  /** The lookup item of one value of an attribute. */
  lookupItem(layout: ReleaseLayout, attribute: LookupAttribute, value: string, json: LookupJson): Item {
    return { ...lookupKeys.lookup(layout, attribute, value), d: json };
  },

  /** One bucket of the filter index of a segment of the release-wide index. */
  postingsItem(
    layout: ReleaseLayout,
    segment: number,
    attribute: string,
    bucket: number,
    bytes: Uint8Array,
  ): Item {
    return { ...lookupKeys.postings(layout, segment, attribute, bucket), z: bytes };
  },

  /**
   * Summary, index chunks, lookups and filter-index buckets of one release in one round trip (BatchGetItem,
   * 100 keys a call, in parallel), eventually consistent; what is missing is read again strongly (the release was complete
   * before the registry pointed at it, so a miss is either absent or a replica behind), except chunks
   * fetched speculatively.
   */
  async read(layout: ReleaseLayout, request: CatalogReadRequest): Promise<CatalogReadResult> {
    const summaryKey = request.summary ? [lookupKeys.summary(layout)] : [];
    const chunks = request.chunks ?? [];
    const chunkKeys = chunks.map((n) => lookupKeys.indexChunk(layout, n));
    const lookups = request.lookups ?? [];
    const lookupKeyList = lookups.map(({ attribute, value }) => lookupKeys.lookup(layout, attribute, value));
    const postings = request.postings ?? [];
    const postingKeys = postings.map(({ segment, attribute, bucket }) =>
      lookupKeys.postings(layout, segment, attribute, bucket),
    );
    const keys = [...summaryKey, ...chunkKeys, ...lookupKeyList, ...postingKeys];
    const found = await readReleaseKeys(
      layout,
      keys,
      (key) => !(request.speculativeChunks === true && key.sk.startsWith('I#')),
    );
    const result: CatalogReadResult = { chunks: new Map(), lookups: new Map(), postings: new Map() };
    const summary = summaryKey[0] && found.get(keyOf(summaryKey[0]));
    if (summary) result.summary = summary.d as string;
    chunks.forEach((n, index) => {
      const item = found.get(keyOf(chunkKeys[index] as Key));
      if (item) result.chunks.set(n, item.z as Uint8Array);
    });
    lookups.forEach(({ attribute, value }, index) => {
      const item = found.get(keyOf(lookupKeyList[index] as Key));
      if (item) result.lookups.set(`${attribute}#${value}`, item.d as string);
    });
    postings.forEach(({ segment, attribute, bucket }, index) => {
      const item = found.get(keyOf(postingKeys[index] as Key));
      if (item) result.postings.set(`${segment}#${attribute}#${bucket}`, item.z as Uint8Array);
    });
    return result;
  },
};
