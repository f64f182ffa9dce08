import {
  chunkCount,
  chunkEntries,
  chunksForPage,
  decodeChunk,
  encodeChunk,
} from '../../lib/catalog/child-index';
import { LruCache } from '../../lib/catalog/lru';
import type { ChildIndexEntry } from '../../lib/catalog/types';

const entry = (n: number): ChildIndexEntry => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  name: `Tee ${n} "quoted" ü`,
  sku: `SKU-${n}`,
  slug: `tee-${n}`,
  manufacturer_part_num: n % 2 ? `MPN-${n}` : '',
  upc_ean: '',
  product_types: ['child'],
  tags: ['red', `size-${n % 3}`],
  updated_at: `2024-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`,
});

describe('child index chunks', () => {
  it('round-trips entries through the compressed encoding', () => {
    const entries = Array.from({ length: 100 }, (_, i) => entry(i));
    const bytes = encodeChunk(entries);
    expect(decodeChunk(bytes)).toEqual(entries);
    expect(bytes.byteLength).toBeLessThan(JSON.stringify(entries).length / 3);
  });

  it('splits entries into chunks of the given size, keeping order', () => {
    const entries = Array.from({ length: 250 }, (_, i) => entry(i));
    const chunks = chunkEntries(entries, 100);
    expect(chunks.map((chunk) => chunk.length)).toEqual([100, 100, 50]);
    expect(chunks[2]?.[0]).toEqual(entry(200));
    expect(chunkEntries([], 100)).toEqual([]);
    expect(chunkCount(250, 100)).toBe(3);
    expect(chunkCount(200, 100)).toBe(2);
    expect(chunkCount(0, 100)).toBe(0);
  });

  it.each([
    // offset, limit, total, chunks
    [0, 25, 10000, [0]],
    [9975, 25, 10000, [99]],
    [90, 25, 10000, [0, 1]],
    [0, 100, 10000, [0]],
    [50, 100, 10000, [0, 1]],
    [9990, 25, 10000, [99]],
    [10000, 25, 10000, []],
    [0, 25, 0, []],
    [100, 100, Number.POSITIVE_INFINITY, [1]],
  ])('offset %p limit %p of %p touches chunks %p', (offset, limit, total, chunks) => {
    expect(chunksForPage(offset as number, limit as number, total as number, 100)).toEqual(chunks);
  });
});

describe('LruCache', () => {
  it('evicts the least recently used entries to stay within its weight budget', () => {
    const cache = new LruCache<string>(10);
    cache.set('a', 'A', 4);
    cache.set('b', 'B', 4);
    expect(cache.get('a')).toBe('A');
    cache.set('c', 'C', 4);
    expect(cache.has('b')).toBe(false);
    expect(cache.get('a')).toBe('A');
    expect(cache.get('c')).toBe('C');
    expect(cache.totalWeight).toBe(8);
  });

  it('replaces an entry and its weight, and never keeps an entry heavier than the budget', () => {
    const cache = new LruCache<number>(10);
    cache.set('a', 1, 6);
    cache.set('a', 2, 3);
    expect(cache.totalWeight).toBe(3);
    expect(cache.get('a')).toBe(2);
    cache.set('huge', 3, 11);
    expect(cache.has('huge')).toBe(false);
    expect(cache.size).toBe(1);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(cache.totalWeight).toBe(0);
  });

  it('keeps falsy values such as null (absence markers)', () => {
    const cache = new LruCache<string | null>(10);
    cache.set('gone', null, 1);
    expect(cache.get('gone')).toBeNull();
    expect(cache.get('never')).toBeUndefined();
  });
});
