/** One stream proved alone (GET /audit/proof): its records chain to the head a checkpoint signed, whose root holds it. */
import { createHash, type KeyObject } from 'node:crypto';
import { checkpointText, isSignedBy, type AuditCheckpoint, type CheckpointAlgorithm } from './audit-checkpoints';
import { merkleRoot, rootFromPath } from './audit-merkle';
import { GENESIS_HASH, recordHash, type AuditRecord } from './audit-records';
import { sha256Hex } from './digest';

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

/** The SHA-256 (first 16 hex digits) of a key's SPKI DER: what a local keyId `ed25519:<digits>` must say. */
export function keyFingerprint(key: KeyObject): string {
  return createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
}

/**
 * A list of public keys as `keyId` → key. An entry whose PEM is no public key, or whose keyId names a fingerprint the
 * PEM does not have (a forged list), is left out and named in `problems`, so checkpoints under it do not verify.
 */
export function publicKeyMap(list: readonly PublicKeyEntry[], parse: (pem: string) => KeyObject | null): { keys: Map<string, KeyObject>; problems: string[] } {
  const keys = new Map<string, KeyObject>();
  const problems: string[] = [];
  for (const entry of list) {
    const key = typeof entry?.publicKeyPem === 'string' ? parse(entry.publicKeyPem) : null;
    if (!key) problems.push(`the listed key ${JSON.stringify(entry?.keyId)} is not a PEM public key`);
    else if (entry.keyId.startsWith('ed25519:') && entry.keyId !== `ed25519:${keyFingerprint(key)}`) {
      problems.push(`the listed key ${JSON.stringify(entry.keyId)} is not the key its keyId names (its fingerprint is ${keyFingerprint(key)})`);
    } else if (keys.has(entry.keyId)) problems.push(`the key ${JSON.stringify(entry.keyId)} is listed twice`);
    else keys.set(entry.keyId, key);
  }
  return { keys, problems };
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

/** Checks a proof offline: the records' chain from sequence 1, the head in the root, the checkpoint's hash and signature. */
export function checkStreamProof(proof: StreamProof, keys: ReadonlyMap<string, KeyObject>): ProofCheck {
  const fail = (problem: string): ProofCheck => ({ ok: false, problem, signedSequence: 0, signedHash: null, pending: 0 });
  let last = { sequence: 0, hash: GENESIS_HASH };
  for (const record of [...proof.records, ...proof.pending]) {
    if (record.stream !== proof.stream) return fail(`sequence ${record.sequence} belongs to ${JSON.stringify(record.stream)}, not ${JSON.stringify(proof.stream)}`);
    if (record.sequence !== last.sequence + 1) return fail(`sequence ${last.sequence + 1} is missing (the next record is ${record.sequence})`);
    if (record.prevHash !== last.hash) return fail(`sequence ${record.sequence} does not link to the hash of sequence ${last.sequence}`);
    if (recordHash(record) !== record.hash) return fail(`sequence ${record.sequence} no longer matches its hash (edited)`);
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
    if (proof.treeSize !== checkpoint.heads.length) return fail(`treeSize ${proof.treeSize} is not the checkpoint's ${checkpoint.heads.length} heads`);
    if (rootFromPath(leaf, index, proof.treeSize, proof.path ?? []) !== checkpoint.root) return fail(`the inclusion path does not lead to checkpoint ${checkpoint.number}'s root`);
    if (merkleRoot(checkpoint.heads) !== checkpoint.root) return fail(`checkpoint ${checkpoint.number}'s root is not the tree hash of its heads`);
  }
  if (sha256Hex(checkpointText(checkpoint)) !== checkpoint.hash) return fail(`checkpoint ${checkpoint.number} no longer matches its hash (edited)`);
  const key = keys.get(checkpoint.keyId);
  if (!key) return fail(`checkpoint ${checkpoint.number} is signed by ${JSON.stringify(checkpoint.keyId)}, which is not in the list of public keys`);
  if (!isSignedBy(checkpoint, key)) return fail(`checkpoint ${checkpoint.number}'s signature is not by the key ${JSON.stringify(checkpoint.keyId)}`);
  return { ok: true, problem: null, signedSequence: leaf.sequence, signedHash: leaf.hash, pending: proof.pending.length };
}
