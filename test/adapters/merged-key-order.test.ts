/**
 * A vendor's partitions, each read in its key order, merged into one list in key order (the planning read): every
 * entry exactly once, in the order a sort of them all gives; a partition out of order is still sorted right.
 */
import { mergedInKeyOrder } from '../../functions/adapters/dynamodb/open-index-counts';

const entry = (sk: string) => ({ planSk: sk, amount: '1.00' });
const inOrder = (entries: { planSk: string }[]) => entries.map((e) => e.planSk);

describe('mergedInKeyOrder', () => {
  it('merges partitions of different sizes (one empty) into key order, each entry once', () => {
    const keys = Array.from({ length: 1_000 }, (_, i) => `2022-12-${String(1 + (i % 28)).padStart(2, '0')}T00:00:00.000Z#o${String(i).padStart(5, '0')}`);
    // Spread over 9 partitions as a hash would (not by order), each partition in its own key order.
    const parts: { planSk: string; amount: string }[][] = Array.from({ length: 9 }, () => []);
    keys.forEach((key, i) => { if (i % 9 !== 4) parts[(i * 7) % 9 === 4 ? 0 : (i * 7) % 9].push(entry(key)); });
    for (const part of parts) part.sort((a, b) => (a.planSk < b.planSk ? -1 : 1));
    expect(parts.some((part) => part.length === 0)).toBe(true);
    const merged = mergedInKeyOrder(parts, 'planSk');
    const expected = parts.flat().map((e) => e.planSk).sort();
    expect(inOrder(merged as { planSk: string }[])).toEqual(expected);
    expect(new Set(merged).size).toBe(merged.length);
  });

  it('sorts when a partition was not in key order', () => {
    const merged = mergedInKeyOrder([[entry('b'), entry('a')], [entry('c')], []], 'planSk');
    expect(inOrder(merged as { planSk: string }[])).toEqual(['a', 'b', 'c']);
  });

  it('answers nothing for no entries', () => {
    expect(mergedInKeyOrder([[], []], 'planSk')).toEqual([]);
    expect(mergedInKeyOrder([], 'planSk')).toEqual([]);
  });
});
