/** Audit log records (contract 6.2): entries sealed into per-stream hash chains, with one canonical JSON form. */
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
  /** Lowercase hex SHA-256 of `recordText` of every field above. */
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
 * JSON with every object's keys in code-point order and no insignificant whitespace; `undefined` members are left out
 * and non-finite numbers become null, as JSON.stringify does. The same value always gives the same text.
 */
export function canonicalJson(value: unknown): string {
  // Stored details come back with their keys in order already: then the native serialiser gives the same text, faster.
  if (value !== null && typeof value === 'object' && keysInOrder(value)) return JSON.stringify(value);
  return canonicalText(value);
}

/** Whether every object in `value` has its keys in code-point order (and none has a toJSON of its own). */
function keysInOrder(value: object): boolean {
  if (Array.isArray(value)) {
    for (const item of value) if (item !== null && typeof item === 'object' && !keysInOrder(item)) return false;
    return true;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  let previous: string | null = null;
  for (const key of Object.keys(value)) {
    if (previous !== null && previous > key) return false;
    previous = key;
    const member = (value as Record<string, unknown>)[key];
    if (member !== null && typeof member === 'object' && !keysInOrder(member)) return false;
  }
  return true;
}

function canonicalText(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      const item = value[i];
      out += item === undefined || typeof item === 'function' ? 'null' : canonicalText(item);
    }
    return `${out}]`;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return canonicalText((value as { toJSON(): unknown }).toJSON());
  const keys = Object.keys(value);
  if (!isSorted(keys)) keys.sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined || typeof member === 'function') continue;
    out += `${first ? '' : ','}${quotedKey(key)}:${canonicalText(member)}`;
    first = false;
  }
  return `${out}}`;
}

/** Stored details come back with their keys sorted already; checking is cheaper than sorting again. */
function isSorted(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1] > keys[i]) return false;
  return true;
}

/** Details repeat a few key names a million times over in a verification: each is quoted once. */
const QUOTED_KEYS = new Map<string, string>();
function quotedKey(key: string): string {
  let quoted = QUOTED_KEYS.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (QUOTED_KEYS.size < 10_000) QUOTED_KEYS.set(key, quoted);
  }
  return quoted;
}

/** The text a record's hash covers: every field but the hash, in a fixed order (the detail canonical). */
export function recordText(record: Omit<AuditRecord, 'hash'>): string {
  const { actor, at, detail, kind, orderId, prevHash, recordedAt, sequence, stream, vendorId } = record;
  if (actor !== undefined && at !== undefined && kind !== undefined && orderId !== undefined && prevHash !== undefined && recordedAt !== undefined
    && sequence !== undefined && stream !== undefined && vendorId !== undefined && detail !== null && typeof detail === 'object' && keysInOrder(detail)) {
    // The fields in code-point order, the detail's keys in order already: one native call gives the canonical text.
    return JSON.stringify({ actor, at, detail, kind, orderId, prevHash, recordedAt, sequence, stream, vendorId });
  }
  // Field by field otherwise (a detail whose keys came back in another order, or an item missing a field).
  return `{"actor":${JSON.stringify(record.actor)},"at":${JSON.stringify(record.at)},"detail":${canonicalJson(record.detail)},`
    + `"kind":${JSON.stringify(record.kind)},"orderId":${JSON.stringify(record.orderId)},"prevHash":${JSON.stringify(record.prevHash)},`
    + `"recordedAt":${JSON.stringify(record.recordedAt)},"sequence":${record.sequence},"stream":${JSON.stringify(record.stream)},`
    + `"vendorId":${JSON.stringify(record.vendorId)}}`;
}

export function recordHash(record: Omit<AuditRecord, 'hash'>): string {
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
      actor: entry.actor ?? null,
      orderId: entry.orderId ?? null,
      vendorId: entry.vendorId ?? null,
      detail: JSON.parse(canonicalJson(entry.detail ?? {})) as Record<string, unknown>,
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
