/** Opaque cursors of paged reads: a position the reader resumes after, tied to the list it came from. */
import { ValidationError } from '../domain/errors';

/** base64url of `{l: list, p: position}`: opaque to callers, and refused by any other list. */
export function encodeCursor(list: string, position: string): string {
  return Buffer.from(JSON.stringify({ l: list, p: position }), 'utf8').toString('base64url');
}

/** The position of a cursor of `list`; null when none was sent. A cursor of another list or a damaged one is a 400. */
export function decodeCursor(text: string | null | undefined, list: string): string | null {
  if (text === undefined || text === null || text === '') return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    decoded = null;
  }
  const { l, p } = (decoded ?? {}) as { l?: unknown; p?: unknown };
  if (l !== list || typeof p !== 'string' || p === '') {
    throw new ValidationError([{
      field: 'cursor',
      problem: 'is not a cursor of this list (damaged, or from another list or query)',
      expected: 'the nextCursor of the previous page as it was answered, or no cursor for the first page',
    }]);
  }
  return p;
}

/** A whole number query parameter in [min, max], or its default when absent. */
export function boundedCount(text: string | null | undefined, field: string, min: number, max: number, fallback: number): number {
  if (text === undefined || text === null || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError([{ field, problem: `is ${JSON.stringify(text)}`, expected: `a whole number from ${min} to ${max}` }]);
  }
  return value;
}
