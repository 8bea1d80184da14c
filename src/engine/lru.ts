/**
 * A small least-recently-used map: `get` refreshes an entry, `set` evicts the oldest while the
 * entries weigh more than `capacity`. Each entry weighs 1 unless `weigh` says otherwise (its bytes,
 * for a cache bounded by memory); a value heavier than the whole capacity is not kept (and evicts nothing).
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();
  private weight = 0;

  constructor(
    readonly capacity: number,
    private readonly weigh: (value: V) => number = () => 1,
  ) {
    if (!(Number.isInteger(capacity) && capacity >= 1)) throw new RangeError(`LRU capacity must be ≥ 1, got ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Looks up without refreshing recency. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const weight = this.weigh(value);
    if (weight > this.capacity) return;
    this.entries.set(key, value);
    this.weight += weight;
    for (const [oldest, old] of this.entries) {
      if (this.weight <= this.capacity) break;
      this.entries.delete(oldest);
      this.weight -= this.weigh(old);
    }
  }

  delete(key: K): boolean {
    const value = this.entries.get(key);
    if (value === undefined) return false;
    this.entries.delete(key);
    this.weight -= this.weigh(value);
    return true;
  }

  keys(): K[] {
    return [...this.entries.keys()];
  }

  clear(): void {
    this.entries.clear();
    this.weight = 0;
  }
}
