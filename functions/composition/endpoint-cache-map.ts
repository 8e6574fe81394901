/**
 * Stands in for `mnemonist/lru-cache` in the Lambda bundles (lib/holdback-function.ts aliases the module to this file).
 * Only DynamoDB's endpoint-discovery cache (`@aws-sdk/endpoint-cache`) uses it, and Holdback never turns endpoint
 * discovery on, so the cache stays empty; mnemonist's LRU and its iterator helpers were about 2 KB gzipped a bundle.
 * It keeps the calls that cache makes (get, set, has, peek, clear) and its bound: past `capacity` keys the oldest goes.
 */
export default class EndpointCacheMap<K, V> extends Map<K, V> {
  constructor(private readonly capacity: number) {
    super();
  }

  /** The value without refreshing its place (the LRU's peek; insertion order stands for recency here). */
  peek(key: K): V | undefined {
    return this.get(key);
  }

  override set(key: K, value: V): this {
    this.delete(key);
    super.set(key, value);
    if (this.size > this.capacity) this.delete(this.keys().next().value as K);
    return this;
  }
}
