/** Audit log records (contract 6.2): entries sealed into per-stream hash chains, with one canonical JSON form. */
import canonicalize from 'canonicalize';
import { sha256Hex } from './digest';

/** The `prevHash` of a stream's first record. */
export const GENESIS_HASH = '0'.repeat(64);

/** What a use case asks the log to keep (the application's `AuditEntry` has this shape). */
export interface AuditEntryInput {
  kind: string;
  at: string;
  actor?: string | null;
  orderId?: string;
  vendorId?: string;
  detail: Record<string, unknown>;
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

/** The stream an entry belongs to: its order's, else its vendor's, else the configuration's. */
export function streamOf(entry: Pick<AuditEntryInput, 'orderId' | 'vendorId'>): string {
  if (entry.orderId) return `order#${entry.orderId}`;
  if (entry.vendorId) return `vendor#${entry.vendorId}`;
  return 'config';
}

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

/** Every string in `value` with lone surrogates replaced by U+FFFD, so that its RFC 8785 form exists. */
function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') {
    // ES2024 string methods (Node 20 and 24 have them; the compile target's library is ES2022).
    const text = value as unknown as { isWellFormed(): boolean; toWellFormed(): string };
    return text.isWellFormed() ? value : text.toWellFormed();
  }
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [wellFormed(key) as string, wellFormed(member)]));
}

/** The text a record's hash covers: the RFC 8785 form of every member of the record but `hash`. */
export function recordText(record: Omit<AuditRecord, 'hash'> & { hash?: unknown }): string {
  const { hash: _hash, ...covered } = record;
  return canonicalJson(covered);
}

export function recordHash(record: Omit<AuditRecord, 'hash'> & { hash?: unknown }): string {
  return sha256Hex(recordText(record));
}

/**
 * Seals `entries` (all of one stream) after `head` (null for an empty stream): consecutive sequences, each record
 * linked to the one before. The detail is normalised through JSON first, so the hash covers exactly what is stored.
 */
export function sealRecords(stream: string, head: Pick<StreamHead, 'sequence' | 'hash'> | null, entries: readonly AuditEntryInput[], recordedAt: string): AuditRecord[] {
  let sequence = head?.sequence ?? 0;
  let prevHash = head?.hash ?? GENESIS_HASH;
  return entries.map((entry) => {
    if (streamOf(entry) !== stream) throw new Error(`an entry of stream ${streamOf(entry)} cannot be sealed into ${stream}`);
    sequence += 1;
    const unsealed: Omit<AuditRecord, 'hash'> = {
      stream,
      sequence,
      prevHash,
      kind: entry.kind,
      at: entry.at,
      actor: entry.actor == null ? null : wellFormed(entry.actor) as string,
      orderId: entry.orderId ?? null,
      vendorId: entry.vendorId ?? null,
      detail: JSON.parse(canonicalJson(wellFormed(entry.detail ?? {}))) as Record<string, unknown>,
      recordedAt,
    };
    const record = { ...unsealed, hash: recordHash(unsealed) };
    prevHash = record.hash;
    return record;
  });
}

/** Groups entries by stream, keeping their order within each stream. */
export function entriesByStream<E extends AuditEntryInput>(entries: readonly E[]): Map<string, E[]> {
  const streams = new Map<string, E[]>();
  for (const entry of entries) {
    const stream = streamOf(entry);
    const list = streams.get(stream);
    if (list) list.push(entry);
    else streams.set(stream, [entry]);
  }
  return streams;
}
