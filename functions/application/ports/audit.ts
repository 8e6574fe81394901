/** The audit log's ports: appending, the read side with its checkpoints, and the checkpoints' key. */
import type { Instant } from '../../domain/instant';
import type { AuditEntryInput, AuditRecord, StreamHead } from '../../domain/audit/audit-records';
import type { AuditCheckpoint, CheckpointAlgorithm } from '../../domain/audit/audit-checkpoints';

/**
 * One record of the tamper-evident audit log (contract 6.2). The log derives the stream from the entry: the order's
 * (`orderId` set), else the vendor's (`vendorId` set), else the configuration's.
 * The domain's entry (domain/audit/audit-records.ts), whose members say what each holds.
 */
export type AuditEntry = AuditEntryInput;

/** The audit log: append-only, hash-chained per stream, checkpoints signed. */
export interface AuditLog {
  /**
   * Appends the entries in order. Retries on its own; it never makes a release fail or repeat: a record it could not
   * write after its retries is kept for a later append (the sweep), and the failure is logged.
   */
  append(entries: AuditEntry[], options?: AppendOptions): Promise<void>;
}

/** What the caller of an append knows that spares the log a read. */
export interface AppendOptions {
  /**
   * Orders created by this very call, whose streams hold no record yet: their head is not read before the first record
   * is put. The put stays conditional, so a wrong guess only costs a refused put and the read.
   */
  newOrders?: readonly string[];
  /**
   * Orders whose stream this caller appended to itself a moment ago, in the same invocation (a send's record before
   * the PUT, then its answer): the head that append left is taken without a read. Any other stream's head is read
   * first, whatever the container remembers of it: the order's other functions append to it too (events, sends,
   * webhooks), so a remembered head is mostly stale, and a stale guess costs a refused put (a write unit, on the audit
   * table five times a consistent read's price) besides the read.
   */
  continuingOrders?: readonly string[];
}

/** A record as the store holds it, with what the store found wrong with the item itself (verification reports it). */
export interface StoredAuditRecord {
  record: AuditRecord;
  /** E.g. an item stored under another key than its stream and sequence; absent when the item is well-formed. */
  problem?: string;
  /** Where a read continues after this record (`records(range, position)`); absent where a read cannot resume. */
  position?: string;
}

/** The audit log's read side and its checkpoints (verify, export, timeline): the store behind `audit`. */
export interface AuditArchive {
  /** One stream's records in sequence order (`order#<id>`, `vendor#<id>`, `config`). */
  streamRecords(stream: string): Promise<AuditRecord[]>;
  /**
   * Every record, each stream's in sequence order (a stream's records together); `from`/`to` (UTC ISO, inclusive)
   * bound `recordedAt`. `after`: the `position` of a record read before, to continue after it (a job's next step).
   */
  records(range?: { from?: string; to?: string }, after?: string | null): AsyncIterable<StoredAuditRecord>;
  /** Every checkpoint in number order; `since` (UTC ISO) keeps those written at or after it. */
  checkpoints(since?: string): Promise<AuditCheckpoint[]>;
  /** Up to `limit` checkpoints numbered above `afterNumber`, in number order, `since` as for `checkpoints`: a bounded read. */
  checkpointsAfter(afterNumber: number, limit: number, since?: string): Promise<AuditCheckpoint[]>;
  /** The newest checkpoints, newest first. */
  latestCheckpoints(limit: number): Promise<AuditCheckpoint[]>;
  /**
   * The head of every stream with a record stored at or after `since` (UTC ISO; null: every stream), from an index:
   * only a hint of which streams moved (an index can lag or run ahead), never what is signed.
   */
  headsRecordedSince(since: string | null): Promise<StreamHead[]>;
  /** One stream's records from `fromSequence` on, in sequence order, read consistently from the records themselves. */
  streamRecordsFrom(stream: string, fromSequence: number): Promise<AuditRecord[]>;
  /** The head each of `streams` had when the writer last signed it (absent: never signed, or signed before pointers). */
  signedHeads(streams: readonly string[]): Promise<Map<string, StreamHead & { checkpoint?: number }>>;
  /** One checkpoint by number, or null. */
  checkpoint(number: number): Promise<AuditCheckpoint | null>;
  /** The records stored at these places (stream and sequence; absent places are left out), read consistently. */
  recordsAt(places: readonly { stream: string; sequence: number }[]): Promise<StoredAuditRecord[]>;
  /**
   * Records the writer's signed-head pointers account for (the sum of their sequences), read only until the sum passes
   * `max`: a bounded read whatever the log's size (then some number above `max`). Whether verification fits one answer.
   */
  signedRecordsUpTo(max: number): Promise<number>;
  /** Remembers the heads a checkpoint signed (a pointer per stream that only moves forward). */
  putSignedHeads(heads: readonly StreamHead[], checkpoint: number): Promise<void>;
  /** Stores a checkpoint unless its number is taken; false then (another writer was first). */
  putCheckpoint(checkpoint: AuditCheckpoint): Promise<boolean>;
  /** Appends entries kept after appends that failed; answers how many entries were appended. */
  flushPending(): Promise<number>;
}

/** A record or checkpoint changed or removed in the table, as the write-once copy kept it (`tampering/`). */
export interface AuditCopyEvidence {
  /** The object's key in the copy. */
  key: string;
  /** `INSERT`, `MODIFY` or `REMOVE` as the table's change stream said. */
  eventName: string;
  /** The item's stream (`checkpoints` for a checkpoint) and its sequence (a checkpoint's number). */
  stream: string;
  sequence: number;
  /** When the table changed (UTC ISO). */
  at: string;
}

/** The write-once copy read back whole: each record and checkpoint once (identical lines dropped). */
export interface AuditCopyContents {
  records: AuditRecord[];
  checkpoints: AuditCheckpoint[];
  tampering: AuditCopyEvidence[];
  /** Lines of the copy that are not a record or a checkpoint (`<key> line <n>: why`). */
  unreadable: string[];
}

/** A page of the copy: what its objects hold, and where the next page starts. */
export interface AuditCopyPage extends AuditCopyContents {
  /** The last object key read (the next page starts after it); `startAfter` when the page is empty. */
  last: string | null;
  /** Whether objects are left after `last`. */
  more: boolean;
  /** Objects the page read. */
  objects: number;
}

/**
 * The audit log's write-once copy (AWS: S3 under Object Lock, fed by the table's change stream), which verification
 * and export read instead of trusting the table; absent where there is none (locally the table is the only store).
 */
export interface AuditCopy {
  /** The whole copy at once: a small copy (tools, tests); verification and export read it a page a step. */
  read(): Promise<AuditCopyContents>;
  /**
   * At most `maxObjects` objects of `log/` (or of `tampering/`) after the object key `startAfter` (null: from the
   * first), in key order; a line held by two objects of the page is in it once.
   */
  readPage(part: 'log' | 'tampering', startAfter: string | null, maxObjects: number): Promise<AuditCopyPage>;
}

/** One entry of GET /audit/public-keys (contract 6.2). */
export type AuditPublicKey = import('../../domain/audit/audit-proof').PublicKeyEntry;

/** The asymmetric key of the audit checkpoints (locally an Ed25519 key file, on AWS a KMS key). */
export interface AuditKey {
  /** The algorithm and key name written into (and covered by) every checkpoint. */
  identity(): Promise<{ algorithm: CheckpointAlgorithm; keyId: string }>;
  /** The public key, PEM (SPKI), for verifiers. */
  publicKeyPem(): Promise<string>;
  /** Every key that ever signed here, the current one last (GET /audit/public-keys); from the key store, not the log. */
  publicKeys(): Promise<AuditPublicKey[]>;
  /** Whether this runtime may sign (on AWS only the checkpoint writer may). */
  readonly canSign: boolean;
  /** Base64 signature of a checkpoint's text (`digestHex` is its SHA-256); throws where `canSign` is false. */
  sign(text: string, digestHex: string): Promise<string>;
}
