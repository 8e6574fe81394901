/** RFC 9162 (section 2.1) Merkle tree over a checkpoint's heads: the root a checkpoint signs and one head's inclusion path. */
import { createHash } from 'node:crypto';
import { leafText } from './audit-format';
import type { StreamHead } from './audit-records';

/** A leaf: the RFC 8785 bytes of `{stream, sequence, hash}` (nothing else a head may carry). */
export function leafBytes(head: StreamHead): Buffer {
  return Buffer.from(leafText(head), 'utf8');
}

/** SHA-256(0x00 || leaf). */
export function leafHash(head: StreamHead): Buffer {
  return createHash('sha256').update(Buffer.from([0])).update(leafBytes(head)).digest();
}

/** SHA-256(0x01 || left || right). */
function nodeHash(left: Buffer, right: Buffer): Buffer {
  return createHash('sha256').update(Buffer.from([1])).update(left).update(right).digest();
}

/** The largest power of two smaller than n (n >= 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function treeHash(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return createHash('sha256').digest();
  if (leaves.length === 1) return leaves[0];
  const k = split(leaves.length);
  return nodeHash(treeHash(leaves.slice(0, k)), treeHash(leaves.slice(k)));
}

/** MTH(heads), lowercase hex: the empty tree's is SHA-256 of nothing. */
export function merkleRoot(heads: readonly StreamHead[]): string {
  return treeHash(heads.map(leafHash)).toString('hex');
}

/** PATH(m, heads) of RFC 9162 2.1.3.1, each node lowercase hex, from the leaf's sibling up. */
export function inclusionPath(heads: readonly StreamHead[], index: number): string[] {
  const path = (m: number, leaves: readonly Buffer[]): Buffer[] => {
    if (leaves.length <= 1) return [];
    const k = split(leaves.length);
    return m < k
      ? [...path(m, leaves.slice(0, k)), treeHash(leaves.slice(k))]
      : [...path(m - k, leaves.slice(k)), treeHash(leaves.slice(0, k))];
  };
  return path(index, heads.map(leafHash)).map((node) => node.toString('hex'));
}

/** Compares streams by their UTF-8 bytes (the order of a checkpoint's heads), not by UTF-16 code units. */
export function byStreamBytes(a: Pick<StreamHead, 'stream'>, b: Pick<StreamHead, 'stream'>): number {
  return Buffer.compare(Buffer.from(a.stream, 'utf8'), Buffer.from(b.stream, 'utf8'));
}
