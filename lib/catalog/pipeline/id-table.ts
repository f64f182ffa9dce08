/**
 * A map from ids to small numbers (0 to 2^31 - 1) that holds a million ids in about 44 MB outside the heap,
 * where a `Map` of strings takes about 230 MB of it: an id in the canonical UUID form (lower-case hex, as the
 * service makes every id) is kept as its 16 bytes in an open-addressed table of typed arrays; any other id
 * in an ordinary `Map` beside it. Keys come back in the order they were first set. Export holds the
 * attached products' nodes and the products it wrote in these (lib/catalog/pipeline/export.ts).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const EMPTY = -1;
const FIRST_SLOTS = 1024;

export class IdTable {
  /** Slot to entry (EMPTY when free); entries are numbered in the order they were added. */
  private slots = new Int32Array(FIRST_SLOTS).fill(EMPTY);
  /** Entry n's 16 bytes at words 4n to 4n + 3, and its value at n. */
  private words = new Uint32Array(FIRST_SLOTS * 2);
  private values = new Int32Array(FIRST_SLOTS / 2);
  private entries = 0;
  /** Ids not in the canonical form, and their order among all. */
  private readonly others = new Map<string, number>();
  private readonly order: (string | number)[] = [];

  get size(): number {
    return this.entries + this.others.size;
  }

  get(id: string): number | undefined {
    if (!UUID.test(id)) return this.others.get(id);
    const at = this.find(id);
    return at.entry === EMPTY ? undefined : this.values[at.entry];
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  set(id: string, value: number): void {
    if (!Number.isInteger(value) || value < 0 || value > 0x7fffffff) throw new RangeError(`value ${value}`);
    if (!UUID.test(id)) {
      if (!this.others.has(id)) this.order.push(id);
      this.others.set(id, value);
      return;
    }
    const at = this.find(id);
    if (at.entry !== EMPTY) {
      this.values[at.entry] = value;
      return;
    }
    const entry = this.entries;
    this.entries += 1;
    if (entry >= this.values.length) this.growEntries();
    this.words.set(at.words, entry * 4);
    this.values[entry] = value;
    this.slots[at.slot] = entry;
    this.order.push(entry);
    if (this.entries * 2 > this.slots.length) this.growSlots();
  }

  /** Every id, in the order first set. */
  *keys(): IterableIterator<string> {
    for (const key of this.order) yield typeof key === 'string' ? key : this.idOf(key);
  }

  private find(id: string): { slot: number; entry: number; words: Uint32Array } {
    const words = wordsOf(id);
    const mask = this.slots.length - 1;
    for (let slot = hashOf(words) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot] as number;
      if (entry === EMPTY) return { slot, entry, words };
      const base = entry * 4;
      if (
        this.words[base] === words[0] &&
        this.words[base + 1] === words[1] &&
        this.words[base + 2] === words[2] &&
        this.words[base + 3] === words[3]
      )
        return { slot, entry, words };
    }
  }

  private growEntries(): void {
    const words = new Uint32Array(this.words.length * 2);
    words.set(this.words);
    this.words = words;
    const values = new Int32Array(this.values.length * 2);
    values.set(this.values);
    this.values = values;
  }

  private growSlots(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(EMPTY);
    const mask = slots.length - 1;
    for (let entry = 0; entry < this.entries; entry += 1) {
      const words = this.words.subarray(entry * 4, entry * 4 + 4);
      let slot = hashOf(words) & mask;
      while (slots[slot] !== EMPTY) slot = (slot + 1) & mask;
      slots[slot] = entry;
    }
    this.slots = slots;
  }

  private idOf(entry: number): string {
    const hex = Array.from(this.words.subarray(entry * 4, entry * 4 + 4), (word) =>
      word.toString(16).padStart(8, '0'),
    ).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}

/** The 16 bytes of a canonical UUID as four 32-bit words. */
function wordsOf(id: string): Uint32Array {
  const hex = id.replaceAll('-', '');
  return Uint32Array.of(
    Number.parseInt(hex.slice(0, 8), 16),
    Number.parseInt(hex.slice(8, 16), 16),
    Number.parseInt(hex.slice(16, 24), 16),
    Number.parseInt(hex.slice(24, 32), 16),
  );
}

/** A 31-bit hash of the four words (UUID v7's first 48 bits are a time: every word is mixed in). */
function hashOf(words: Uint32Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < 4; i += 1) {
    h = Math.imul(h ^ (words[i] as number), 0x01000193);
    h ^= h >>> 15;
  }
  return h & 0x7fffffff;
}
