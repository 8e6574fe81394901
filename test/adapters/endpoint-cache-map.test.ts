/**
 * The bundles replace mnemonist's LRU (DynamoDB's endpoint-discovery cache) by EndpointCacheMap
 * (lib/holdback-function.ts aliases it): the SDK's own EndpointCache, run on it, keeps, expires and bounds its entries.
 */
import EndpointCacheMap from '../../functions/composition/endpoint-cache-map';

jest.mock('mnemonist/lru-cache', () => jest.requireActual('../../functions/composition/endpoint-cache-map').default);

// After the mock: the SDK's cache then builds its store from EndpointCacheMap, as in a bundle.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { EndpointCache } = require('@aws-sdk/endpoint-cache') as typeof import('@aws-sdk/endpoint-cache');

it("the SDK's endpoint cache keeps an endpoint, forgets a deleted one and stays within its capacity", () => {
  const cache = new EndpointCache(2);
  expect(cache.getEndpoint('a')).toBeUndefined();
  cache.set('a', [{ Address: 'a.example.com', CachePeriodInMinutes: 1 }]);
  expect([cache.has('a'), cache.getEndpoint('a')]).toEqual([true, 'a.example.com']);
  cache.delete('a');
  expect([cache.has('a'), cache.getEndpoint('a')]).toEqual([false, undefined]);
  cache.set('a', [{ Address: 'a.example.com', CachePeriodInMinutes: 1 }]);
  cache.set('b', [{ Address: 'b.example.com', CachePeriodInMinutes: 1 }]);
  cache.set('c', [{ Address: 'c.example.com', CachePeriodInMinutes: 1 }]);
  // Capacity 2: the oldest key went.
  expect([cache.has('a'), cache.getEndpoint('b'), cache.getEndpoint('c')]).toEqual([false, 'b.example.com', 'c.example.com']);
  cache.clear();
  expect(cache.has('b')).toBe(false);
});

it('an endpoint past its cache period is not handed out', () => {
  const cache = new EndpointCache(10);
  cache.set('k', [{ Address: 'old.example.com', CachePeriodInMinutes: -1 }]);
  expect(cache.getEndpoint('k')).toBeUndefined();
  expect(cache.has('k')).toBe(false);
});

it('re-setting a key moves it to the newest place, so the bound drops the oldest other key', () => {
  const map = new EndpointCacheMap<string, number>(2);
  map.set('a', 1).set('b', 2).set('a', 3).set('c', 4);
  expect([...map.entries()]).toEqual([['a', 3], ['c', 4]]);
  expect(map.peek('a')).toBe(3);
});
