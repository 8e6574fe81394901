/**
 * A Map that remembers which keys were reached since it was last asked (persistence.ts): a record of the sandbox's state
 * is changed only by code that took it from its map first (a `get`, an iteration, a `set`), so only the entries reached
 * since the last save can differ from what that save wrote. Iterating reaches every entry.
 */
export class TrackedMap<K, V> extends Map<K, V> {
  /** Keys reached since the last `takeReached()`; null: every key (an iteration, a clear, or never asked yet). */
  private reached: Set<K> | null = null;

  override get(key: K): V | undefined {
    this.reached?.add(key);
    return super.get(key);
  }

  override set(key: K, value: V): this {
    // Map's constructor calls set() before this class's fields exist.
    if (this.reached) this.reached.add(key);
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    this.reached?.add(key);
    return super.delete(key);
  }

  override clear(): void {
    this.reached = null;
    super.clear();
  }

  override forEach(callback: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    this.reached = null;
    super.forEach(callback, thisArg);
  }

  override entries(): MapIterator<[K, V]> {
    this.reached = null;
    return super.entries();
  }

  override values(): MapIterator<V> {
    this.reached = null;
    return super.values();
  }

  override keys(): MapIterator<K> {
    this.reached = null;
    return super.keys();
  }

  override [Symbol.iterator](): MapIterator<[K, V]> {
    this.reached = null;
    return super.entries();
  }

  /** The keys reached since the last call (null: any may have changed), and starts counting afresh. */
  takeReached(): Set<K> | null {
    const reached = this.reached;
    this.reached = new Set();
    return reached;
  }

  /** Every entry, without counting them as reached (for the serializer alone). */
  unreachedEntries(): MapIterator<[K, V]> {
    return super.entries();
  }
}
