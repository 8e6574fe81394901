/** Verification of the audit log: every record's hash and link, the checkpoint chain and signatures, and truncation. */
import type { KeyObject } from 'node:crypto';
import { CHECKPOINT_VERSION, checkpointText, isSignedBy, type AuditCheckpoint } from './audit-checkpoints';
import { byStreamBytes, merkleRoot } from './audit-merkle';
import { GENESIS_HASH, recordHash, type AuditRecord } from './audit-records';
import { sha256Hex } from '../digest';

/** The stream name under which a broken checkpoint is reported (its number is the `sequence`). */
export const CHECKPOINT_STREAM = 'checkpoints';

export interface BrokenLink {
  stream: string;
  sequence: number;
  reason: string;
}

export interface AuditVerification {
  ok: boolean;
  records: number;
  streams: number;
  checkpoints: number;
  firstBroken: BrokenLink | null;
  /** Records after the last checkpoint that covers their stream: chained, but not yet signed. */
  unsignedRecords: number;
}

export interface VerifierOptions {
  /** One key every checkpoint must be signed with (an older CLI's `--public-key`); null: none can be checked. */
  publicKey?: KeyObject | null;
  /**
   * Every key that ever signed, by `keyId` (GET /audit/public-keys): a checkpoint verifies under the key its keyId
   * names, and one whose keyId is not here is reported. Takes precedence over `publicKey`.
   */
  publicKeys?: ReadonlyMap<string, KeyObject>;
  /**
   * True for the whole log (streams start at 1, checkpoints at 1, and a stream shorter than its signed head was
   * truncated); false for a time range, whose first record of each stream and first checkpoint link to records outside.
   */
  complete: boolean;
}

interface SignedHead {
  sequence: number;
  hash: string;
  checkpoint: number;
}

/** Every head any checkpoint signed for one stream (not only the newest): each must be in the stream as signed. */
interface SignedHeads {
  /** The highest. */
  top: SignedHead;
  bySequence: Map<number, SignedHead>;
}

interface Waiting {
  prevHash: string;
  hash: string;
  recordedAt: string;
  /** It no longer matches its hash: reported when its turn comes, so the lowest broken sequence is the one named. */
  edited: boolean;
}

interface StreamState {
  /** The next sequence expected in order; 0 until the stream's start is known (a partial export). */
  next: number;
  lastHash: string;
  lastRecordedAt: string;
  /** Records that came before their predecessor (any order is accepted); drained as the gap closes. */
  waiting: Map<number, Waiting> | null;
  broken: (BrokenLink & { when: string }) | null;
  signed: SignedHeads | undefined;
}

/** One stream's place in the chain, as a step of a verification in steps carries it to the next (plain JSON). */
export interface StreamProgress {
  stream: string;
  next: number;
  lastHash: string;
  lastRecordedAt: string;
  /** The lowest record waiting for its predecessor (a gap: records are read in sequence order), or null. */
  waiting: [number, Waiting] | null;
  broken: (BrokenLink & { when: string }) | null;
}

/**
 * Where a verification in steps stands after a step (plain JSON, a few hundred bytes whatever the log's size): its
 * counts, the first break of the streams closed so far, and the stream still open (records come a stream at a time).
 */
export interface VerifierProgress {
  records: number;
  unsigned: number;
  closedStreams: number;
  /** Closed streams that a checkpoint signed: fewer at the end than the signed streams means a stream is missing. */
  closedSigned: number;
  firstBreak: (BrokenLink & { when: string }) | null;
  open: StreamProgress | null;
}

/** Breaks in the order the first is chosen: by time, then stream, then sequence. */
function byTime(a: BrokenLink & { when: string }, b: BrokenLink & { when: string }): number {
  return a.when < b.when ? -1 : a.when > b.when ? 1 : a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : a.sequence - b.sequence;
}

/**
 * Feed every checkpoint first, then every record (any order; per stream in sequence order is the fast path), then read
 * `result()`. Memory grows with the number of streams, not of records, when records come in sequence order.
 */
export class AuditVerifier {
  private readonly checkpointList: AuditCheckpoint[] = [];
  private checkpointsDone = false;
  private checkpointBreak: BrokenLink | null = null;
  private readonly signedHeads = new Map<string, SignedHeads>();
  private readonly streams = new Map<string, StreamState>();
  private recordCount = 0;
  private unsigned = 0;
  /** Broken links found outside the records and checkpoints fed (the table against the write-once copy). */
  private readonly findings: (BrokenLink & { when: string })[] = [];
  /** Streams closed (a verification in steps): counted, their first break kept, their state dropped. */
  private closed = { streams: 0, signed: 0, firstBreak: null as (BrokenLink & { when: string }) | null };

  constructor(private readonly options: VerifierOptions) {}

  /**
   * A verifier that carries on from `progress` (checkpoints added again first): what a step of a verification in
   * steps starts from. Records must come a stream at a time, each stream's in sequence order (a store's scan).
   */
  static resume(options: VerifierOptions, checkpoints: readonly AuditCheckpoint[], progress: VerifierProgress | null): AuditVerifier {
    const verifier = new AuditVerifier(options);
    for (const checkpoint of checkpoints) verifier.addCheckpoint(checkpoint);
    verifier.finishCheckpoints();
    if (!progress) return verifier;
    verifier.recordCount = progress.records;
    verifier.unsigned = progress.unsigned;
    verifier.closed = { streams: progress.closedStreams, signed: progress.closedSigned, firstBreak: progress.firstBreak };
    if (progress.open) {
      const { stream, next, lastHash, lastRecordedAt, waiting, broken } = progress.open;
      verifier.streams.set(stream, { next, lastHash, lastRecordedAt, waiting: waiting ? new Map([waiting]) : null, broken, signed: verifier.signedHeads.get(stream) });
    }
    return verifier;
  }

  /** The streams a checkpoint signed, sorted as breaks are (UTF-16 order). */
  signedStreams(): string[] {
    if (!this.checkpointsDone) this.finishCheckpoints();
    return [...this.signedHeads.keys()].sort();
  }

  /** Signed streams that records were fed of (closed or open). */
  signedSeen(): number {
    return this.closed.signed + [...this.streams.values()].filter((state) => state.signed).length;
  }

  /** Closes every stream but `keep` (done: no record of theirs comes later), keeping only their counts and first break. */
  closeStreamsBut(keep: string | null): void {
    for (const [stream, state] of this.streams) {
      if (stream === keep) continue;
      const broken = this.streamBreak(stream, state);
      if (broken && (!this.closed.firstBreak || byTime(broken, this.closed.firstBreak) < 0)) this.closed.firstBreak = broken;
      this.closed.streams += 1;
      if (state.signed) this.closed.signed += 1;
      this.streams.delete(stream);
    }
  }

  /** Where the verification stands, to carry to the next step: at most one stream open (see `closeStreamsBut`). */
  progress(): VerifierProgress {
    if (this.streams.size > 1) throw new Error('progress is carried with one stream open at most: close the others first');
    const open = [...this.streams].map(([stream, state]): StreamProgress => {
      const first = state.waiting && state.waiting.size > 0 ? Math.min(...state.waiting.keys()) : null;
      return { stream, next: state.next, lastHash: state.lastHash, lastRecordedAt: state.lastRecordedAt, waiting: first === null ? null : [first, state.waiting!.get(first)!], broken: state.broken };
    })[0] ?? null;
    return { records: this.recordCount, unsigned: this.unsigned, closedStreams: this.closed.streams, closedSigned: this.closed.signed, firstBreak: this.closed.firstBreak, open };
  }

  addCheckpoint(checkpoint: AuditCheckpoint): void {
    if (this.checkpointsDone) throw new Error('checkpoints must be added before the first record');
    this.checkpointList.push(checkpoint);
  }

  /** `storageProblem`: what the store found wrong with the item itself (a key that disagrees with its record...). */
  addRecord(record: AuditRecord, storageProblem?: string): void {
    if (!this.checkpointsDone) this.finishCheckpoints();
    this.recordCount += 1;
    let state = this.streams.get(record.stream);
    if (!state) {
      state = { next: this.options.complete ? 1 : 0, lastHash: GENESIS_HASH, lastRecordedAt: '', waiting: null, broken: null, signed: this.signedHeads.get(record.stream) };
      this.streams.set(record.stream, state);
    }
    if (state.signed === undefined || record.sequence > state.signed.top.sequence) this.unsigned += 1;
    if (state.broken) return;
    const sequence = record.sequence;
    if (storageProblem) return this.breakStream(state, record.stream, sequence, storageProblem, record.recordedAt);
    if (!Number.isInteger(sequence) || sequence < 1) {
      return this.breakStream(state, record.stream, 0, `a record has sequence ${JSON.stringify(sequence)}, not 1, 2, 3...`, record.recordedAt);
    }
    const edited = recordHash(record) !== record.hash;
    if (sequence === state.next) {
      this.link(state, record.stream, sequence, record.prevHash, record.hash, record.recordedAt, false, edited);
      this.drain(state, record.stream);
      return;
    }
    if (sequence < state.next || state.waiting?.has(sequence)) {
      return this.breakStream(state, record.stream, sequence, 'a second record with this sequence', record.recordedAt);
    }
    state.waiting ??= new Map();
    state.waiting.set(sequence, { prevHash: record.prevHash, hash: record.hash, recordedAt: record.recordedAt, edited });
  }

  /**
   * A broken link found by comparing stores (a record or checkpoint in the write-once copy but not in the table, or
   * different there): `when` is its `recordedAt` (a checkpoint's `at`), so it takes its place among the breaks in time.
   */
  addFinding(link: BrokenLink, when: string): void {
    this.findings.push({ ...link, when });
  }

  /**
   * The answer. `missing` (a verification in steps, whose closed streams are no longer held): the signed streams with
   * no record at all, found by the caller; otherwise they are the signed streams no record was fed of.
   */
  result(missing?: readonly string[]): AuditVerification {
    if (!this.checkpointsDone) this.finishCheckpoints();
    const breaks: (BrokenLink & { when: string })[] = [...this.findings.filter((f) => f.stream !== CHECKPOINT_STREAM)];
    if (this.closed.firstBreak) breaks.push(this.closed.firstBreak);
    const checkpointFinding = this.findings.filter((f) => f.stream === CHECKPOINT_STREAM).sort((a, b) => a.sequence - b.sequence)[0];
    for (const [stream, state] of this.streams) {
      const broken = this.streamBreak(stream, state);
      if (broken) breaks.push(broken);
    }
    if (this.options.complete) {
      const absent = missing ?? [...this.signedHeads.keys()].filter((stream) => !this.streams.has(stream));
      for (const stream of absent) {
        const { top } = this.signedHeads.get(stream)!;
        breaks.push({ stream, sequence: 1, reason: `missing: checkpoint ${top.checkpoint} signed sequence ${top.sequence}, no record of the stream is left (or the export left it out)`, when: '' });
      }
    }
    breaks.sort(byTime);
    const first = this.checkpointBreak ?? (checkpointFinding ? { stream: CHECKPOINT_STREAM, sequence: checkpointFinding.sequence, reason: checkpointFinding.reason } : null) ?? (breaks[0] ? { stream: breaks[0].stream, sequence: breaks[0].sequence, reason: breaks[0].reason } : null);
    return {
      ok: first === null,
      records: this.recordCount,
      streams: this.streams.size + this.closed.streams,
      checkpoints: this.checkpointList.length,
      firstBroken: first,
      unsignedRecords: this.unsigned,
    };
  }

  /** A stream's first break once all its records were fed: its own, a gap, or records cut from its end. */
  private streamBreak(stream: string, state: StreamState): (BrokenLink & { when: string }) | null {
    if (!state.broken && state.waiting?.size) {
      if (state.next === 0) {
        // A partial export: the stream's first record here links to one before the range.
        const first = Math.min(...state.waiting.keys());
        const start = state.waiting.get(first)!;
        state.waiting.delete(first);
        this.link(state, stream, first, start.prevHash, start.hash, start.recordedAt, true, start.edited);
        this.drain(state, stream);
      }
      if (!state.broken && state.waiting?.size) {
        const after = Math.min(...state.waiting.keys());
        const reason = state.next === 1
          ? `missing: the stream starts at sequence ${after} (its first records were deleted)`
          : `missing: the stream goes from sequence ${state.next - 1} to ${after} (a record was deleted)`;
        this.breakStream(state, stream, state.next, reason, state.waiting.get(after)!.recordedAt);
      }
    }
    if (!state.broken && this.options.complete && state.signed && state.next - 1 < state.signed.top.sequence) {
      const { top } = state.signed;
      this.breakStream(state, stream, state.next, `missing: checkpoint ${top.checkpoint} signed sequence ${top.sequence}, the stream ends at ${state.next - 1} (records were deleted from its end)`, state.lastRecordedAt);
    }
    return state.broken;
  }

  private link(state: StreamState, stream: string, sequence: number, prevHash: string, hash: string, recordedAt: string, anchor = false, edited = false): void {
    if (edited) {
      this.breakStream(state, stream, sequence, 'edited: the record no longer matches its hash', recordedAt);
      return;
    }
    const expected = sequence === 1 ? GENESIS_HASH : state.lastHash;
    if (!anchor && prevHash !== expected) {
      const reason = sequence === 1
        ? 'its link is not the start of a stream (records before it were removed)'
        : `its link does not match the hash of sequence ${sequence - 1} (a record before it was changed or replaced)`;
      this.breakStream(state, stream, sequence, reason, recordedAt);
      return;
    }
    const signed = state.signed?.bySequence.get(sequence);
    if (signed && signed.hash !== hash) {
      this.breakStream(state, stream, sequence, `edited: checkpoint ${signed.checkpoint} signed another hash for this record`, recordedAt);
      return;
    }
    state.next = sequence + 1;
    state.lastHash = hash;
    state.lastRecordedAt = recordedAt;
  }

  private drain(state: StreamState, stream: string): void {
    const waiting = state.waiting;
    if (!waiting) return;
    for (let entry = waiting.get(state.next); entry && !state.broken; entry = waiting.get(state.next)) {
      waiting.delete(state.next);
      this.link(state, stream, state.next, entry.prevHash, entry.hash, entry.recordedAt, false, entry.edited);
    }
    if (waiting.size === 0) state.waiting = null;
  }

  private breakStream(state: StreamState, stream: string, sequence: number, reason: string, when: string): void {
    state.broken ??= { stream, sequence, reason, when };
  }

  /** What is wrong with a checkpoint's form: its version, the order of its heads, its root. */
  private formatProblem(checkpoint: AuditCheckpoint): string | null {
    const heads = checkpoint.heads ?? [];
    if (checkpoint.version === undefined) {
      // Version 1 (written before roots): no root to check, heads signed as they are.
      return checkpoint.root === undefined ? null : 'a root on a checkpoint without a version (version 2 carries both)';
    }
    if (checkpoint.version !== CHECKPOINT_VERSION) return `version ${JSON.stringify(checkpoint.version)} is not one this verifier knows (1 or 2)`;
    for (let i = 1; i < heads.length; i++) {
      if (byStreamBytes(heads[i - 1], heads[i]) >= 0) return `its heads are not sorted by stream in UTF-8 byte order (at ${heads[i].stream})`;
    }
    return merkleRoot(heads) === checkpoint.root ? null : 'its root is not the Merkle tree hash of its heads';
  }

  /** Whether the key its keyId names signed it (or the one key given). */
  private signatureProblem(checkpoint: AuditCheckpoint): string | null {
    const { publicKeys, publicKey } = this.options;
    const key = publicKeys ? publicKeys.get(checkpoint.keyId) : publicKey;
    if (!key) {
      return publicKeys
        ? `signed by an unknown key: ${JSON.stringify(checkpoint.keyId)} is not in the list of public keys`
        : 'its signature cannot be checked: no public key was given';
    }
    return isSignedBy(checkpoint, key) ? null : 'wrong signature: not signed by the audit key';
  }

  /** Checks the chain of checkpoints in number order and folds their heads (the highest signed sequence per stream). */
  private finishCheckpoints(): void {
    this.checkpointsDone = true;
    const list = this.checkpointList.sort((a, b) => a.number - b.number);
    const fail = (number: number, reason: string): void => {
      this.checkpointBreak ??= { stream: CHECKPOINT_STREAM, sequence: number, reason };
    };
    let previous: AuditCheckpoint | null = null;
    for (const checkpoint of list) {
      const { number } = checkpoint;
      if (previous === null) {
        if (this.options.complete && number !== 1) fail(1, `missing: the first checkpoint is number ${number}`);
        if (this.options.complete && number === 1 && checkpoint.previousHash !== GENESIS_HASH) fail(1, 'its link is not the start of the chain');
      } else if (number === previous.number) {
        fail(number, 'a second checkpoint with this number');
      } else if (number !== previous.number + 1) {
        fail(previous.number + 1, `missing: the checkpoints go from ${previous.number} to ${number} (a checkpoint was deleted)`);
      } else if (checkpoint.previousHash !== previous.hash) {
        fail(number, `its link does not match the hash of checkpoint ${previous.number}`);
      }
      if (sha256Hex(checkpointText(checkpoint)) !== checkpoint.hash) fail(number, 'edited: the checkpoint no longer matches its hash');
      else {
        const problem = this.formatProblem(checkpoint) ?? this.signatureProblem(checkpoint);
        if (problem) fail(number, problem);
      }
      for (const head of checkpoint.heads ?? []) {
        const known = this.signedHeads.get(head.stream);
        const same = known?.bySequence.get(head.sequence);
        if (same && same.hash !== head.hash) {
          fail(number, `signs another hash for ${head.stream} sequence ${head.sequence} than checkpoint ${same.checkpoint}`);
        }
        if (known && head.sequence < known.top.sequence) {
          fail(number, `signs ${head.stream} sequence ${head.sequence}, below sequence ${known.top.sequence} that checkpoint ${known.top.checkpoint} signed (signed heads only grow)`);
        }
        const signed = { sequence: head.sequence, hash: head.hash, checkpoint: number };
        if (!known) this.signedHeads.set(head.stream, { top: signed, bySequence: new Map([[head.sequence, signed]]) });
        else {
          if (!same) known.bySequence.set(head.sequence, signed);
          if (head.sequence > known.top.sequence) known.top = signed;
        }
      }
      previous = checkpoint;
    }
  }
}
