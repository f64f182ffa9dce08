import { inflatedText } from '../deflated-json';

/**
 * A release's item manifest: one entry per item of the release as readers see it (its own items and those
 * it shares with the releases below it), each a hash of the item's key and a hash of its content. The next
 * publish of the catalog compares its derived items with it (lib/catalog/pipeline/share.ts) and writes only
 * those whose content differs, plus a tombstone for each key it no longer has.
 *
 * Binary, little-endian, entry after entry: key hash (2 x u32), content hash (2 x u32), shard (u16), sort
 * key length (u16, UTF-8 bytes), sort key. About 58 bytes an item: 230 MB for a million products of four
 * items each, streamed in and out, never held as text. Held in memory only as hashes (16 bytes an item,
 * plus an 8-byte slot of the lookup table): {@link ManifestTable}.
 */

export interface ManifestEntry {
  /** The key's hash: two independent 32-bit lanes (a 64-bit hash). */
  k1: number;
  k2: number;
  /** The content's hash (64 bits). */
  c1: number;
  c2: number;
  /** The shard of the key's partition (`REL#<release>#<shard>`). */
  shard: number;
  sk: string;
}

const FIXED_BYTES = 20;

/**
 * Two 32-bit FNV-1a lanes with different offsets and primes over UTF-16 code units: 64 bits, so a million
 * products' four million keys collide with a probability near 4e-7 (the publish is then written whole).
 * Fed string by string (`Hash64.add`), so an item's content is hashed without joining it into one string.
 */
class Hash64 {
  a = 0x811c9dc5;
  b = 0x1b873593;

  add(text: string): this {
    let a = this.a;
    let b = this.b;
    for (let i = 0; i < text.length; i += 1) {
      const code = text.charCodeAt(i);
      a = Math.imul(a ^ code, 0x01000193);
      b = Math.imul(b ^ code, 0x5bd1e995);
      b ^= b >>> 15;
    }
    this.a = a;
    this.b = b;
    return this;
  }

  into(words: Uint32Array, at: number): void {
    words[at] = this.a >>> 0;
    words[at + 1] = this.b >>> 0;
  }
}

/**
 * What an item's content is compared by, fed to `hash`: every attribute but the key, in name order; deflated
 * ones (`z`: the indexes and id lists, all deflated JSON) inflated; and the publish time taken out, which
 * the derivation puts in every item that has no time of its own (`published_at`, and `created_at` /
 * `updated_at` of a document that leaves them out). An item that differs only by it is the same item: the
 * shared one keeps the time of the publish that last changed it.
 */
function hashContent(item: Record<string, unknown>, publishedAt: string, hash: Hash64): void {
  for (const name of Object.keys(item).sort()) {
    if (name === 'pk' || name === 'sk') continue;
    const value = item[name];
    const text =
      value instanceof Uint8Array
        ? inflateOrRaw(value)
        : typeof value === 'string'
          ? value
          : JSON.stringify(value);
    hash.add(name).add('\u0000');
    if (!text.includes(publishedAt)) hash.add(text);
    else for (const part of text.split(publishedAt)) hash.add(part);
    hash.add('\u0001');
  }
}

function inflateOrRaw(bytes: Uint8Array): string {
  try {
    return inflatedText(bytes);
  } catch {
    return Buffer.from(bytes).toString('base64');
  }
}

/** The shard of a release item's partition key (`REL#<release>#<shard>`). */
export function shardOfPartition(pk: string): number {
  return Number(pk.slice(pk.lastIndexOf('#') + 1));
}

/** An item's manifest entry, encoded. */
export function manifestEntry(item: Record<string, unknown>, publishedAt: string): Buffer {
  const sk = item.sk as string;
  const skBytes = Buffer.from(sk, 'utf8');
  const out = Buffer.allocUnsafe(FIXED_BYTES + skBytes.length);
  const words = new Uint32Array(4);
  new Hash64().add(sk).into(words, 0);
  const content = new Hash64();
  hashContent(item, publishedAt, content);
  content.into(words, 2);
  out.writeUInt32LE(words[0] as number, 0);
  out.writeUInt32LE(words[1] as number, 4);
  out.writeUInt32LE(words[2] as number, 8);
  out.writeUInt32LE(words[3] as number, 12);
  out.writeUInt16LE(shardOfPartition(item.pk as string), 16);
  out.writeUInt16LE(skBytes.length, 18);
  skBytes.copy(out, FIXED_BYTES);
  return out;
}

/** The entries of a manifest read as a stream, one at a time (entries may straddle the stream's chunks). */
export async function* readManifestEntries(source: AsyncIterable<Uint8Array>): AsyncGenerator<ManifestEntry> {
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of source) {
    rest = rest.length === 0 ? Buffer.from(chunk) : Buffer.concat([rest, chunk]);
    let at = 0;
    while (rest.length - at >= FIXED_BYTES) {
      const length = rest.readUInt16LE(at + 18);
      if (rest.length - at < FIXED_BYTES + length) break;
      yield {
        k1: rest.readUInt32LE(at),
        k2: rest.readUInt32LE(at + 4),
        c1: rest.readUInt32LE(at + 8),
        c2: rest.readUInt32LE(at + 12),
        shard: rest.readUInt16LE(at + 16),
        sk: rest.toString('utf8', at + FIXED_BYTES, at + FIXED_BYTES + length),
      };
      at += FIXED_BYTES + length;
    }
    rest = rest.subarray(at);
  }
  if (rest.length > 0) throw new Error(`the item manifest ends inside an entry (${rest.length} bytes left)`);
}

/** Hashes of a manifest, by key hash: what the next publish compares its items with. */
export class ManifestTable {
  private hashes = new Uint32Array(4 * 1024);
  private slots = new Int32Array(0);
  private mask = 0;
  count = 0;
  /**
   * Entries whose key hash an earlier entry has (about 4e-7 for a million products): the caller then writes
   * the release whole rather than judge those keys.
   */
  collisions = 0;
  /** Entries the new release has (by index): the rest are keys it no longer has. */
  visited = new Uint8Array(0);

  /** The manifest's entries (only those whose sort key `only` accepts, when given). */
  static async load(
    source: AsyncIterable<Uint8Array>,
    only?: (sk: string) => boolean,
  ): Promise<ManifestTable> {
    const table = new ManifestTable();
    for await (const entry of readManifestEntries(source))
      if (only === undefined || only(entry.sk)) table.add(entry);
    table.index();
    return table;
  }

  private add(entry: ManifestEntry): void {
    if (this.hashes.length < (this.count + 1) * 4) {
      const grown = new Uint32Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    const at = this.count * 4;
    this.hashes[at] = entry.k1;
    this.hashes[at + 1] = entry.k2;
    this.hashes[at + 2] = entry.c1;
    this.hashes[at + 3] = entry.c2;
    this.count += 1;
  }

  private index(): void {
    let size = 1;
    while (size < this.count * 2) size *= 2;
    this.slots = new Int32Array(size).fill(-1);
    this.mask = size - 1;
    for (let i = 0; i < this.count; i += 1) {
      const k1 = this.hashes[i * 4] as number;
      const k2 = this.hashes[i * 4 + 1] as number;
      let slot = k1 & this.mask;
      for (;;) {
        const held = this.slots[slot] as number;
        if (held === -1) {
          this.slots[slot] = i;
          break;
        }
        if (this.hashes[held * 4] === k1 && this.hashes[held * 4 + 1] === k2) {
          this.collisions += 1;
          break;
        }
        slot = (slot + 1) & this.mask;
      }
    }
    this.visited = new Uint8Array(this.count);
  }

  /**
   * Whether the base holds this entry's key with the same content (the item need not be written); marks
   * the key as still present either way.
   */
  unchanged(entry: Pick<ManifestEntry, 'k1' | 'k2' | 'c1' | 'c2'>): boolean {
    if (this.count === 0) return false;
    let slot = entry.k1 & this.mask;
    for (;;) {
      const held = this.slots[slot] as number;
      if (held === -1) return false;
      if (this.hashes[held * 4] === entry.k1 && this.hashes[held * 4 + 1] === entry.k2) {
        this.visited[held] = 1;
        return this.hashes[held * 4 + 2] === entry.c1 && this.hashes[held * 4 + 3] === entry.c2;
      }
      slot = (slot + 1) & this.mask;
    }
  }

  /** Whether entry `index` (in manifest order) has a key the new release still has. */
  kept(index: number): boolean {
    return this.visited[index] === 1;
  }
}
