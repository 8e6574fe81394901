/** Audit log records (contract 6.2): entries sealed into per-stream hash chains, with one canonical JSON form. */
import { canonicalJson, GENESIS_HASH, recordText, type AuditRecord, type StreamHead } from './audit-format';
import { Instant } from '../instant';
import { sha256Hex } from '../digest';

export { canonicalJson, GENESIS_HASH, recordText };

/** The audit stream an entry belongs to: its order's, else its vendor's, else the configuration's. */
export function streamOf(entry: { orderId?: string; vendorId?: string }): string {
  if (entry.orderId) return `order#${entry.orderId}`;
  if (entry.vendorId) return `vendor#${entry.vendorId}`;
  return 'config';
}
export type { AuditRecord, StreamHead };

/** What a use case asks the log to keep (the application's port names it `AuditEntry`). */
export interface AuditEntryInput {
  /** What happened, e.g. `planned`, `gateway_attempt` (the last one also says what the answer made
   * of the release), `settings_changed`, `policy_changed`, `hold`, `unhold`, `manual_release`, `retry`,
   * `webhook_received` (also what it did: a settlement is recorded here). */
  kind: string;
  at: Instant;
  actor?: string | null;
  /** The caller's proven principal (contract 6.4); a record without one (events, jobs, older records) has no member. */
  principal?: string | null;
  orderId?: string;
  vendorId?: string;
  /** What a reader needs to understand the record (the request and the answer of an attempt, a reason, a diff). */
  detail: Record<string, unknown>;
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
  // A time in a record is its stored text, as JSON writes it.
  if (value instanceof Instant) return value.toText();
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [wellFormed(key) as string, wellFormed(member)]));
}

export function recordHash(record: Omit<AuditRecord, 'hash'> & { hash?: unknown }): string {
  return sha256Hex(recordText(record));
}

/**
 * recordText of an unsealed record whose detail's RFC 8785 text is known, without canonicalizing the detail a second
 * time: the same bytes (members in code-unit order, each scalar by canonicalJson, the detail as its text; an absent
 * member left out). Sealing made the detail's text once to normalise it and then again inside the record's.
 */
function unsealedText(record: Omit<AuditRecord, 'hash'>, detailText: string): string {
  const members = record as unknown as Record<string, unknown>;
  const parts = Object.keys(members).sort().flatMap((key) => {
    const value = members[key];
    if (value === undefined) return [];
    return [`${JSON.stringify(key)}:${key === 'detail' ? detailText : canonicalJson(value)}`];
  });
  return `{${parts.join(',')}}`;
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
    const detailText = canonicalJson(wellFormed(entry.detail ?? {}));
    const unsealed: Omit<AuditRecord, 'hash'> = {
      stream,
      sequence,
      prevHash,
      kind: entry.kind,
      at: entry.at.toText(),
      actor: entry.actor == null ? null : wellFormed(entry.actor) as string,
      ...(entry.principal == null ? {} : { principal: wellFormed(entry.principal) as string }),
      orderId: entry.orderId ?? null,
      vendorId: entry.vendorId ?? null,
      detail: JSON.parse(detailText) as Record<string, unknown>,
      recordedAt,
    };
    const record = { ...unsealed, hash: sha256Hex(unsealedText(unsealed, detailText)) };
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
