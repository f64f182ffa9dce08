/**
 * A least-recently-used cache bounded by total weight (approximate bytes), for per-container caches of
 * immutable release data. Entries heavier than the whole budget are not kept.
 */
export class LruCache<V> {
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private weight = 0;

  constructor(
    /** Budget in weight units (bytes, by convention). */
    readonly maxWeight: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Total weight held. */
  get totalWeight(): number {
    return this.weight;
  }

  /** The value, marked as most recently used; undefined when absent. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Stores a value, evicting the least recently used entries until the budget holds. */
  set(key: string, value: V, weight: number): void {
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.entries.delete(key);
      this.weight -= previous.weight;
    }
    if (weight > this.maxWeight) return;
    this.entries.set(key, { value, weight });
    this.weight += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.weight <= this.maxWeight) break;
      this.entries.delete(oldest);
      this.weight -= entry.weight;
    }
  }

  /** Removes an entry. */
  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }

  clear(): void {
    this.entries.clear();
    this.weight = 0;
  }
}
