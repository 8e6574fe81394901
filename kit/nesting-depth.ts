/** How deeply a JSON value nests, and a copy cut below a depth: both without recursion, for any untrusted input. */
/**
 * Levels of nested objects and lists in an event's detail or a JSON body (an order event needs 3). Anything deeper is
 * refused before a recursive step (cloning, serialising, storing) can overflow the stack on it.
 */
export const MAX_NESTING_DEPTH = 32;

/** What stands for a value cut off by `pruneNesting`. */
export const NESTED_TOO_DEEP = '[nested too deep]';

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === 'object' && value !== null;
}

/**
 * How many levels of objects and lists a value nests (a scalar 0, `{}` 1, `{"a": []}` 2), counted without recursion
 * and stopping as soon as it exceeds `limit` (then `limit + 1`).
 */
export function nestingDepth(value: unknown, limit: number = MAX_NESTING_DEPTH): number {
  if (!isContainer(value)) return 0;
  let deepest = 1;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return limit + 1;
    for (const child of Object.values(current as object)) if (isContainer(child)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * A copy of a JSON value in which everything below `keep` levels is replaced by "[nested too deep]", built without
 * recursion: safe to clone, serialise and store whatever the input, and still deeper than MAX_NESTING_DEPTH when the
 * input was (with `keep` above it), so whoever reads it refuses it for the same reason.
 */
export function pruneNesting(value: unknown, keep: number = MAX_NESTING_DEPTH + 1): unknown {
  if (!isContainer(value)) return value;
  const copyOf = (v: object): Record<string, unknown> | unknown[] => (Array.isArray(v) ? [] : {});
  const root = copyOf(value);
  const stack: Array<{ from: object; to: Record<string, unknown>; depth: number }> = [{ from: value, to: root as Record<string, unknown>, depth: 1 }];
  while (stack.length > 0) {
    const { from, to, depth } = stack.pop()!;
    for (const [key, child] of Object.entries(from)) {
      if (!isContainer(child)) {
        to[key] = child;
      } else if (depth >= keep) {
        to[key] = NESTED_TOO_DEEP;
      } else {
        const copy = copyOf(child);
        to[key] = copy;
        stack.push({ from: child, to: copy as Record<string, unknown>, depth: depth + 1 });
      }
    }
  }
  return root;
}
