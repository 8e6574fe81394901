/** Audit checkpoints: the heads of the streams that moved, signed with an asymmetric key and chained to the previous checkpoint. */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { checkpointText, type AuditCheckpoint, type CheckpointAlgorithm } from './audit-format';
import { GENESIS_HASH, type StreamHead } from './audit-records';
import { byStreamBytes, merkleRoot } from './audit-merkle';
import { sha256Hex } from '../digest';

/**
 * The checkpoint format this code writes. Version 2 (RFC 8785 text, heads in UTF-8 byte order, `root`) is marked by
 * `version: 2`; a checkpoint without `version` was written before it (version 1): the same hash and signature rule
 * (its text has no `root` and no `version`), heads in UTF-16 order, no root. Nothing stored is re-hashed.
 */
export const CHECKPOINT_VERSION = 2;

export type UnsignedCheckpoint = Omit<AuditCheckpoint, 'signature'>;

export { checkpointText };
export type { AuditCheckpoint, CheckpointAlgorithm };

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
  return signatureHolds(checkpoint.algorithm, publicKey, Buffer.from(checkpointText(checkpoint), 'utf8'), Buffer.from(checkpoint.signature ?? '', 'base64'));
}

/** Whether `signature` is the key's over `text`: Ed25519 over the text, or DER ECDSA P-256 over its SHA-256. */
export function signatureHolds(algorithm: CheckpointAlgorithm, publicKey: KeyObject, text: Uint8Array, signature: Uint8Array): boolean {
  try {
    if (algorithm === 'Ed25519') return publicKey.asymmetricKeyType === 'ed25519' && verify(null, text, publicKey, signature);
    if (algorithm === 'ECDSA_SHA_256') return publicKey.asymmetricKeyType === 'ec' && verify('sha256', text, publicKey, signature);
  } catch {
    return false;
  }
  return false;
}
