/** The jobs' ports (contract 6.3): the stored jobs, their queue and the export files. */
import type { Instant } from '../../domain/instant';

/** What a job does (contract 6.3): the bulk work of a change, or an export. */
/**
 * Open releases a preview covers in its own answer at most (contract 6.3: "a preview whose releases do not fit one
 * answer"). Above it the preview is a job: reading and planning 20,000 releases takes a few seconds on AWS, well inside
 * API Gateway's 30 s, and the answer stays far below Lambda's 6 MB (its listed releases are capped by `limit`, at most
 * 10,000 of about 450 bytes). HOLDBACK_PREVIEW_INLINE_RELEASES sets another.
 */
export const PREVIEW_INLINE_RELEASES = 20_000;
/**
 * Rows of an outcomes export a step writes (one part): about 1.5 MB of CSV, read and written in seconds, far inside
 * the jobs function's timeout; held in memory one part at a time, so memory stays flat whatever the export's size.
 * HOLDBACK_EXPORT_PART_ROWS sets another.
 */
export const EXPORT_PART_ROWS = 5_000;
/**
 * Signed audit records `GET /audit/verify` checks in its own answer at most; above, it answers `202 {job}` (kind
 * `audit_verify`). Measured on the write-once copy's read: about 23 us of CPU and 400 B of heap a record, so 5,000
 * records cost about 0.1 s and 2 MB; what bounds it is reading the copy on AWS (worst case one S3 object a record, 16
 * GETs at a time: about 10 s), well inside API Gateway's 30 s. HOLDBACK_AUDIT_VERIFY_INLINE_RECORDS sets another.
 */
export const AUDIT_VERIFY_INLINE_RECORDS = 5_000;

/** What a job does (contract 6.3): the bulk work of a change, or an export. */
export type JobKind = 'vendor_hold' | 'vendor_unhold' | 'policy_apply' | 'outcomes_export' | 'audit_export' | 'policy_preview' | 'settings_preview' | 'audit_verify';
export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export const JOB_KINDS: readonly JobKind[] = ['vendor_hold', 'vendor_unhold', 'policy_apply', 'outcomes_export', 'audit_export', 'policy_preview', 'settings_preview', 'audit_verify'];
export const JOB_STATES: readonly JobState[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

/** One release a job could not do, and why; the job carries on with the others. */
export interface JobFailure {
  orderId: string;
  vendorId: string;
  reason: string;
}

/** A job as stored: the contract's shape plus what its steps need. */
export interface StoredJob {
  jobId: string;
  kind: JobKind;
  state: JobState;
  /** Items found so far (releases, or rows of an export); final once every step was read. */
  total: number;
  done: number;
  failed: number;
  actor: string;
  createdAt: Instant;
  finishedAt: Instant | null;
  error: string | null;
  result: unknown;
  /** What the job works on (e.g. `{vendorId}`, an export's filters). */
  params: Record<string, unknown>;
  /** The first failures (at most JOB_FAILURES_KEPT), each naming its release and reason. */
  failures: JobFailure[];
  /** Steps known to exist, and steps finished: the job is done when both hold the same steps. */
  expected: string[];
  finished: string[];
}

/** One message of the job queue: one step (a page of releases, a part of an export or of a verification) of one job. */
export interface JobStep {
  jobId: string;
  step: string;
  /**
   * The vendor whose open releases the step walks, and the index position it continues after (an outcomes export's
   * part: the outcome position it continues after; an audit export's part: its checkpoint number or record position,
   * as JSON; an audit verification's step: its record position, the checkpoints pinned and the verifier's progress,
   * as JSON; an export's last step: the number of parts, as text).
   */
  vendorId?: string;
  after?: string | null;
  /** The job's kind, which routes the step to the queue of the function that runs its kind (routing.ts EXPORT_JOB_KINDS). */
  kind?: JobKind;
}

export interface JobRepository {
  create(job: StoredJob): Promise<void>;
  get(jobId: string): Promise<StoredJob | null>;
  /** Newest first; `after` is the `next` of the previous page. */
  list(query: { state?: JobState; kind?: JobKind; limit: number; after?: string | null }): Promise<{ items: StoredJob[]; next: string | null }>;
  /**
   * Records once that `step` was read: `count` items more to do, and the steps it opened (expected from now on); the
   * job is `running` from then. False when the step was recorded already (a delivery again).
   */
  stepRead(jobId: string, step: string, count: number, opened: string[]): Promise<boolean>;
  /** Records once that `step` finished with these counts; the job after it, or null when it was recorded already. */
  stepDone(jobId: string, step: string, outcome: { done: number; failed: number; failures: JobFailure[] }): Promise<StoredJob | null>;
  /** Ends a job that is not ended yet; false when it was ended already. */
  finish(jobId: string, end: { state: Exclude<JobState, 'queued' | 'running'>; at: Instant; error: string | null; result: unknown }): Promise<boolean>;
}

/** The job queue (SQS on AWS, the local edge's queue locally), consumed by the jobs function at a bounded concurrency. */
export interface JobQueue {
  enqueue(steps: JobStep[]): Promise<void>;
}

/** Where export files are written once and served by a link that expires (S3 on AWS, the data folder locally). */
export interface ExportStore {
  /**
   * Writes the lines as one file named by `key`, replacing any partial file of an earlier try, and answers its size and
   * SHA-256 (lowercase hex); the file is only visible once whole.
   */
  write(key: string, contentType: string, lines: AsyncIterable<string>): Promise<{ bytes: number; sha256: string }>;
  /**
   * Writes part `part` of a file written in steps (an export's part of EXPORT_PART_ROWS rows), whole, replacing any
   * earlier try of the same part: a step delivered again after a kill or a timeout writes its part again, never twice.
   */
  writePart(key: string, part: number, lines: AsyncIterable<string>): Promise<{ bytes: number }>;
  /**
   * Writes the file `key` once from its parts 0 to `parts - 1` in order (visible only once whole, as `write`), answers
   * its size and SHA-256, then removes the parts. Called again once the parts are gone, it answers the file written.
   */
  combine(key: string, contentType: string, parts: number): Promise<{ bytes: number; sha256: string }>;
  /** A download link of the file valid until `expiresAt`. */
  link(key: string, expiresAt: Date, fileName: string): Promise<string>;
  /**
   * The file behind a link this store made, served by the API (the local store); absent where links point elsewhere
   * (a pre-signed S3 URL). Unknown key or wrong token: not_found; past its expiry: expired, never part of a file.
   */
  open?(key: string, token: string, now: Date): Promise<ExportDownload>;
}

export type ExportDownload =
  | { kind: 'file'; contentType: string; fileName: string; chunks: AsyncIterable<string> }
  | { kind: 'expired'; expiresAt: Instant }
  | { kind: 'not_found' };
