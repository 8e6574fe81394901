/** A deep copy of a record for the in-memory fakes: plain objects and arrays copied, Instants (immutable) kept as they are. */
import { Instant } from '../../functions/domain/instant';

export function copy<T>(value: T): T {
  if (value instanceof Instant) return value;
  if (Array.isArray(value)) return value.map(copy) as T;
  if (value instanceof Set) return new Set([...value].map(copy)) as T;
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, copy(v)])) as T;
  if (value === null || typeof value !== 'object') return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value as Record<string, unknown>)) out[name] = copy(inner);
  return out as T;
}

/** What a value becomes on the wire (an event on the bus, an audit record): JSON, so Instants are their stored text. */
export function onTheWire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
