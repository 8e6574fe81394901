/** Audit checkpoints: the heads of the streams that moved, signed with an asymmetric key and chained to the previous checkpoint. */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { canonicalJson, GENESIS_HASH, type StreamHead } from './audit-records';
import { byStreamBytes, merkleRoot } from './audit-merkle';
import { sha256Hex } from './digest';

/**
 * The checkpoint format this code writes. Version 2 (RFC 8785 text, heads in UTF-8 byte order, `root`) is marked by
 * `version: 2`; a checkpoint without `version` was written before it (version 1): the same hash and signature rule
 * (its text has no `root` and no `version`), heads in UTF-16 order, no root. Nothing stored is re-hashed.
 */
export const CHECKPOINT_VERSION = 2;

/** Ed25519 (the local key) or ECDSA P-256 with SHA-256 (a KMS ECC_NIST_P256 key). */
export type CheckpointAlgorithm = 'Ed25519' | 'ECDSA_SHA_256';

/**
 * One checkpoint. Each lists the heads of the streams that moved since the checkpoint before it, so the chain of
 * checkpoints, read from the first, signs the head of every stream; the latest checkpoint's signature covers them all
 * through `previousHash`.
 */
export interface AuditCheckpoint {
  /** 1, 2, 3... without gaps. */
  number: number;
  /** When it was written (UTC). */
  at: string;
  /** Records stored up to this instant (UTC) were looked at; the next checkpoint looks again a little before it. */
  coveredUntil: string;
  /** The hash of the checkpoint before it; GENESIS_HASH for the first. */
  previousHash: string;
  /** Sorted by stream in UTF-8 byte order (version 2). */
  heads: StreamHead[];
  /** RFC 9162 Merkle tree hash over the heads (lowercase hex); absent on version 1 checkpoints. */
  root?: string;
  /** 2; absent on version 1 checkpoints. */
  version?: number;
  algorithm: CheckpointAlgorithm;
  /** Names the key (a KMS key ARN, or the local key's fingerprint). */
  keyId: string;
  /** Hex SHA-256 of `checkpointText`. */
  hash: string;
  /** Base64: Ed25519 over the text, or DER ECDSA over its SHA-256. */
  signature: string;
}

export type UnsignedCheckpoint = Omit<AuditCheckpoint, 'signature'>;

/** The text a checkpoint's hash and signature cover: the RFC 8785 form of every member but those two. */
export function checkpointText(checkpoint: Omit<AuditCheckpoint, 'hash' | 'signature'> & { hash?: unknown; signature?: unknown }): string {
  const { hash: _hash, signature: _signature, ...covered } = checkpoint;
  return canonicalJson(covered);
}

/** The next checkpoint after `previous` (null: the first), hashed and ready to sign. */
export function sealCheckpoint(
  previous: Pick<AuditCheckpoint, 'number' | 'hash'> | null,
  content: { at: string; coveredUntil: string; heads: StreamHead[]; algorithm: CheckpointAlgorithm; keyId: string },
): UnsignedCheckpoint {
  const heads = content.heads.map(({ stream, sequence, hash }) => ({ stream, sequence, hash })).sort(byStreamBytes);
  const body = { version: CHECKPOINT_VERSION, number: (previous?.number ?? 0) + 1, previousHash: previous?.hash ?? GENESIS_HASH, ...content, heads, root: merkleRoot(heads) };
  return { ...body, hash: sha256Hex(checkpointText(body)) };
}

/** A public key from PEM text (SPKI), or null when the text is not one. */
export function publicKeyOf(pem: string): KeyObject | null {
  try {
    return createPublicKey(pem);
  } catch {
    return null;
  }
}

/** Whether the signature is the key's over this checkpoint's text (its hash is checked separately). */
export function isSignedBy(checkpoint: AuditCheckpoint, publicKey: KeyObject): boolean {
  const text = Buffer.from(checkpointText(checkpoint), 'utf8');
  const signature = Buffer.from(checkpoint.signature ?? '', 'base64');
  try {
    if (checkpoint.algorithm === 'Ed25519') return publicKey.asymmetricKeyType === 'ed25519' && verify(null, text, publicKey, signature);
    if (checkpoint.algorithm === 'ECDSA_SHA_256') return publicKey.asymmetricKeyType === 'ec' && verify('sha256', text, publicKey, signature);
  } catch {
    return false;
  }
  return false;
}
