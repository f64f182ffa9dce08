import { inflateRawSync } from 'node:zlib';
import { deflateJson } from './deflated-json';
import type { ChildIndexEntry } from './types';

/**
 * Live children per index item. A page of up to 100 starting at any offset touches at most two items, and a
 * full scan of 10,000 children (filters) reads 100 small compressed items.
 */
export const CHILD_CHUNK_SIZE = 100;

type Row = [string, string, string, string, string, string, string[], string[], string];

/** Splits a parent's ordered live children into index chunks. */
export function chunkEntries(
  entries: readonly ChildIndexEntry[],
  size = CHILD_CHUNK_SIZE,
): ChildIndexEntry[][] {
  const chunks: ChildIndexEntry[][] = [];
  for (let start = 0; start < entries.length; start += size) chunks.push(entries.slice(start, start + size));
  return chunks;
}

/** One chunk as stored: compact rows, deflated (the attributes repeat a lot, so this is ~3-5x smaller). */
export function encodeChunk(entries: readonly ChildIndexEntry[]): Uint8Array {
  const rows: Row[] = entries.map((entry) => [
    entry.id,
    entry.name,
    entry.sku,
    entry.slug,
    entry.manufacturer_part_num,
    entry.upc_ean,
    entry.product_types,
    entry.tags,
    entry.updated_at,
  ]);
  return deflateJson(rows);
}

/**
 * Heap per character of serialized JSON that decoded data takes, measured with `--expose-gc` on chunks
 * of 100 entries (heap growth after decoding / JSON length): 1.1 for ASCII text at the field limits,
 * 1.6 for short fields, 1.8 for 100 one-character tags, 2.1 for CJK text (V8 keeps it in two-byte
 * strings). 2.25 covers every shape with a margin, so a cache charged this way holds at most its budget.
 */
export const HEAP_PER_SERIALIZED_CHAR = 2.25;

/** The entries of a stored chunk. */
export function decodeChunk(bytes: Uint8Array): ChildIndexEntry[] {
  return decodeChunkMeasured(bytes).entries;
}

/** The entries of a stored chunk, with the heap they take (estimated from their serialized length). */
export function decodeChunkMeasured(bytes: Uint8Array): { entries: ChildIndexEntry[]; heapBytes: number } {
  const text = inflateRawSync(bytes).toString('utf8');
  const rows = JSON.parse(text) as Row[];
  const entries = rows.map(([id, name, sku, slug, mpn, upcEan, productTypes, tags, updatedAt]) => ({
    id,
    name,
    sku,
    slug,
    manufacturer_part_num: mpn,
    upc_ean: upcEan,
    product_types: productTypes,
    tags,
    updated_at: updatedAt,
  }));
  return { entries, heapBytes: Math.ceil(text.length * HEAP_PER_SERIALIZED_CHAR) };
}

/** Numbers of the chunks that hold positions `offset .. offset+limit-1` of `total` entries (empty past the end). */
export function chunksForPage(
  offset: number,
  limit: number,
  total: number,
  size = CHILD_CHUNK_SIZE,
): number[] {
  const end = Math.min(offset + limit, total);
  if (offset >= end) return [];
  const first = Math.floor(offset / size);
  const last = Math.floor((end - 1) / size);
  const numbers: number[] = [];
  for (let n = first; n <= last; n += 1) numbers.push(n);
  return numbers;
}

/** Number of chunks for `total` entries. */
export function chunkCount(total: number, size = CHILD_CHUNK_SIZE): number {
  return Math.ceil(total / size);
}
