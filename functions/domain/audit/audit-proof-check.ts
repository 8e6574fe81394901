/**
 * One stream proved alone (GET /audit/proof, contract 6.2), checked with the hash and signature functions it is given:
 * node:crypto for `holdback audit prove`, Web Crypto for the browser console's order page. No node import here.
 */
import { checkpointText, leafText, GENESIS_HASH, recordText, type AuditCheckpoint, type AuditRecord, type CheckpointAlgorithm, type StreamHead } from './audit-format';

/** The answer of GET /audit/proof (contract 6.2). */
export interface StreamProof {
  stream: string;
  /** Every record of the stream up to the head `checkpoint` signed. */
  records: AuditRecord[];
  /** The newest checkpoint that signed the stream's head; null while none has. */
  checkpoint: AuditCheckpoint | null;
  /** The head's place among the checkpoint's heads, and their number. */
  leafIndex: number | null;
  treeSize: number | null;
  /** RFC 9162 inclusion path of the head in `checkpoint.root`, lowercase hex, from the leaf's sibling up. */
  path: string[];
  /** Records after the signed head (chained, not yet signed). */
  pending: AuditRecord[];
}

/** One entry of GET /audit/public-keys. */
export interface PublicKeyEntry {
  keyId: string;
  algorithm: CheckpointAlgorithm;
  publicKeyPem: string;
  from: string | null;
  to: string | null;
}

export interface ProofCheck {
  ok: boolean;
  /** What failed, or null. */
  problem: string | null;
  /** The sequence and hash proved signed (0 when nothing is signed yet). */
  signedSequence: number;
  signedHash: string | null;
  /** Pending records that chain after it. */
  pending: number;
}

/** The cryptography a check runs on, with keys of type K. */
export interface ProofCrypto<K> {
  sha256(bytes: Uint8Array): Promise<Uint8Array>;
  /** Whether `signature` is `key`'s over `text` under `algorithm` (ECDSA_SHA_256: DER, over the text's SHA-256). */
  verify(key: K, algorithm: CheckpointAlgorithm, text: Uint8Array, signature: Uint8Array): Promise<boolean>;
}

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

/** Base64 text as bytes (atob: a global of browsers and of Node). */
export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function joined(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The RFC 9162 hashes over RFC 8785 leaves `{stream, sequence, hash}`, on the given SHA-256. */
function merkle(sha256: (bytes: Uint8Array) => Promise<Uint8Array>) {
  const leaf = (head: StreamHead) => sha256(joined(Uint8Array.of(0), utf8(leafText(head))));
  const node = (left: Uint8Array, right: Uint8Array) => sha256(joined(Uint8Array.of(1), left, right));
  /** MTH over the leaves' hashes: the largest power of two below n splits each level. */
  const tree = async (hashes: Uint8Array[]): Promise<Uint8Array> => {
    if (hashes.length <= 1) return hashes[0] ?? sha256(new Uint8Array(0));
    let k = 1;
    while (k * 2 < hashes.length) k *= 2;
    return node(await tree(hashes.slice(0, k)), await tree(hashes.slice(k)));
  };
  /** RFC 9162 2.1.3.2: the root `path` leads to from `head` at `index` of `size`, or null when it cannot be such a path. */
  const fromPath = async (head: StreamHead, index: number, size: number, path: readonly string[]): Promise<string | null> => {
    if (!Number.isInteger(index) || !Number.isInteger(size) || index < 0 || index >= size) return null;
    let fn = index;
    let sn = size - 1;
    let r = await leaf(head);
    for (const hex of path) {
      if (sn === 0 || !/^[0-9a-f]{64}$/.test(hex)) return null;
      const p = fromHex(hex);
      if (fn % 2 === 1 || fn === sn) {
        r = await node(p, r);
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      } else {
        r = await node(r, p);
      }
      fn = Math.floor(fn / 2);
      sn = Math.floor(sn / 2);
    }
    return sn === 0 ? toHex(r) : null;
  };
  return { root: async (heads: readonly StreamHead[]) => toHex(await tree(await Promise.all(heads.map(leaf)))), fromPath };
}

/** Checks a proof offline: the records' chain from sequence 1, the head in the root, the checkpoint's hash and signature. */
export async function checkProof<K>(proof: StreamProof, keys: ReadonlyMap<string, K>, crypto: ProofCrypto<K>): Promise<ProofCheck> {
  const fail = (problem: string): ProofCheck => ({ ok: false, problem, signedSequence: 0, signedHash: null, pending: 0 });
  const sha256Hex = async (text: string) => toHex(await crypto.sha256(utf8(text)));
  let last = { sequence: 0, hash: GENESIS_HASH };
  for (const record of [...proof.records, ...proof.pending]) {
    if (record.stream !== proof.stream) return fail(`sequence ${record.sequence} belongs to ${JSON.stringify(record.stream)}, not ${JSON.stringify(proof.stream)}`);
    if (record.sequence !== last.sequence + 1) return fail(`sequence ${last.sequence + 1} is missing (the next record is ${record.sequence})`);
    if (record.prevHash !== last.hash) return fail(`sequence ${record.sequence} does not link to the hash of sequence ${last.sequence}`);
    if (await sha256Hex(recordText(record)) !== record.hash) return fail(`sequence ${record.sequence} no longer matches its hash (edited)`);
    last = { sequence: record.sequence, hash: record.hash };
  }
  const { checkpoint } = proof;
  if (!checkpoint) {
    return proof.records.length > 0 ? fail('records are given as signed but no checkpoint is') : { ok: true, problem: null, signedSequence: 0, signedHash: null, pending: proof.pending.length };
  }
  const head = proof.records[proof.records.length - 1];
  if (!head) return fail('a checkpoint is given but no record it signed');
  const leaf = { stream: proof.stream, sequence: head.sequence, hash: head.hash };
  const index = proof.leafIndex ?? -1;
  const listed = checkpoint.heads?.[index];
  if (!listed || listed.stream !== leaf.stream || listed.sequence !== leaf.sequence || listed.hash !== leaf.hash) {
    return fail(`checkpoint ${checkpoint.number} does not sign sequence ${leaf.sequence} of the stream with this hash at leaf ${index}`);
  }
  if (checkpoint.version !== undefined) {
    const tree = merkle(crypto.sha256);
    if (proof.treeSize !== checkpoint.heads.length) return fail(`treeSize ${proof.treeSize} is not the checkpoint's ${checkpoint.heads.length} heads`);
    if (await tree.fromPath(leaf, index, proof.treeSize, proof.path ?? []) !== checkpoint.root) return fail(`the inclusion path does not lead to checkpoint ${checkpoint.number}'s root`);
    if (await tree.root(checkpoint.heads) !== checkpoint.root) return fail(`checkpoint ${checkpoint.number}'s root is not the tree hash of its heads`);
  }
  const text = checkpointText(checkpoint);
  if (await sha256Hex(text) !== checkpoint.hash) return fail(`checkpoint ${checkpoint.number} no longer matches its hash (edited)`);
  const key = keys.get(checkpoint.keyId);
  if (key === undefined) return fail(`checkpoint ${checkpoint.number} is signed by ${JSON.stringify(checkpoint.keyId)}, which is not in the list of public keys`);
  let signed = false;
  try {
    signed = await crypto.verify(key, checkpoint.algorithm, utf8(text), fromBase64(checkpoint.signature ?? ''));
  } catch {
    signed = false;
  }
  if (!signed) return fail(`checkpoint ${checkpoint.number}'s signature is not by the key ${JSON.stringify(checkpoint.keyId)}`);
  return { ok: true, problem: null, signedSequence: leaf.sequence, signedHash: leaf.hash, pending: proof.pending.length };
}
