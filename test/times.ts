/**
 * Times in tests: records carry Instants, so a test that writes a stored time as text reads it with `at`; and an
 * Instant equals the text it is stored as (its toText(): its own offset, milliseconds only when it has any), so an
 * assertion may state a record's time as that text (registered for every test file by jest.config.js).
 */
import { Instant } from '../functions/domain/instant';

/** The Instant a stored time's text names. */
export function at(text: string): Instant {
  return Instant.parse(text, 'test time');
}

/** at() of an optional time: null stays null. */
export function atOrNull(text: string | null): Instant | null {
  return text === null ? null : at(text);
}

/** An Instant and a string are equal when the string is exactly the Instant's stored text; undefined otherwise. */
export function instantEqualsText(a: unknown, b: unknown): boolean | undefined {
  if (a instanceof Instant && typeof b === 'string') return a.toText() === b;
  if (b instanceof Instant && typeof a === 'string') return b.toText() === a;
  return undefined;
}
