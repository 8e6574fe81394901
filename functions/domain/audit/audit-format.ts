/**
 * The pure text forms of the audit log's public format (contract 6.2): RFC 8785 canonical JSON, what a record's and a
 * checkpoint's hash cover. No node import, so the browser console's proof check bundles it too.
 */
import canonicalize from 'canonicalize';

/** The `prevHash` of a stream's first record. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * RFC 8785 (JSON Canonicalization Scheme) text of `value`, by the `canonicalize` package (the RFC co-author's): keys
 * in UTF-16 code-unit order at every depth, ECMAScript number and string forms, no whitespace; `undefined` members
 * are left out as JSON.stringify leaves them out. A string with a lone surrogate, which RFC 8785 refuses, is never
 * sealed (`wellFormed`); a record stored before this rule with one is hashed as JSON.stringify escapes it (`\udXXX`).
 */
export function canonicalJson(value: unknown): string {
  try {
    return canonicalize(value) ?? 'null';
  } catch (error) {
    if (!/surrogate/i.test((error as Error).message)) throw error;
    return JSON.stringify(sortedKeys(value));
  }
}

/** Only for records stored before lone surrogates were replaced: the same order, JSON.stringify's escapes. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]));
}

/** The text a record's hash covers: the RFC 8785 form of every member of the record but `hash`. */
export function recordText<R extends object>(record: R & { hash?: unknown }): string {
  const { hash: _hash, ...covered } = record;
  return canonicalJson(covered);
}

/** A Merkle leaf's text (RFC 9162 over a checkpoint's heads): the RFC 8785 form of `{stream, sequence, hash}` and nothing else a head may carry. */
export function leafText(head: Pick<StreamHead, 'stream' | 'sequence' | 'hash'>): string {
  return canonicalJson({ stream: head.stream, sequence: head.sequence, hash: head.hash });
}

/** The text a checkpoint's hash and signature cover: the RFC 8785 form of every member but those two. */
export function checkpointText<C extends object>(checkpoint: C & { hash?: unknown; signature?: unknown }): string {
  const { hash: _hash, signature: _signature, ...covered } = checkpoint;
  return canonicalJson(covered);
}

/** One sealed record: its place in its stream, the link to the record before it, and its own hash. */
export interface AuditRecord {
  /** `order#<orderId>`, `vendor#<vendorId>` or `config`. */
  stream: string;
  /** 1, 2, 3... within the stream, without gaps. */
  sequence: number;
  /** The `hash` of the record before it in the stream; GENESIS_HASH for the first. */
  prevHash: string;
  kind: string;
  /** When it happened (the entry's time). */
  at: string;
  actor: string | null;
  /** Who made the change, as proven (contract 6.4): an IAM principal ARN, or `local:unauthenticated`; absent otherwise. */
  principal?: string;
  orderId: string | null;
  vendorId: string | null;
  detail: Record<string, unknown>;
  /** When the log stored it (UTC, milliseconds), which orders records in time for checkpoints and exports. */
  recordedAt: string;
  /** Lowercase hex SHA-256 of the RFC 8785 form of every member above (`recordText`). */
  hash: string;
}

/** The head of a stream: its last sequence and that record's hash. */
export interface StreamHead {
  stream: string;
  sequence: number;
  hash: string;
}

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
