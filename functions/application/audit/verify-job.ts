/**
 * Verification of the audit log as a job (contract 6.3, 6.2): `POST /audit/verifications` always starts one, and
 * `GET /audit/verify` answers inline while the log is small and `202 {job}` above `auditVerifyInlineRecords` signed
 * records (read from the writer's signed-head pointers, a bounded read: never the whole log, never the bucket listed).
 * The job runs the same verification in the jobs function, in steps where the table is the log: each step reads at
 * most `exportPartRows` records (a step's rows) from where the one before stopped and carries the verifier's state
 * (counts, the first break so far, the open stream's chain head: a few hundred bytes) in the next step's message, so a
 * kill or a timeout repeats one step at most and memory holds one step; the checkpoints are pinned by the first step.
 * Over the write-once copy (AWS) the steps are copy-steps.ts's: a page of the copy's objects a step, then a page of
 * the table's records. Its `result` is exactly the answer of `GET /audit/verify`, which runs the same steps.
 */
import { objectBody, textField } from '../body-schema';
import type { AuditVerification } from '../../domain/audit/audit-verification';
import { AuditVerifier, type VerifierProgress } from '../../domain/audit/audit-verification';
import { AUDIT_VERIFY_INLINE_RECORDS, EXPORT_PART_ROWS, type AuditCopy, type Dependencies, type JobStep, type StoredJob } from '../ports';
import type { StepWork } from '../release-walk';
import { startJob } from '../start-job';
import { checkpointFirst, verifierOptions, verifyAuditLog } from './audit-log-views';
import { copyVerifyStep, missingStreams, type CopyVerifyState } from './copy-steps';

export type VerificationOrJob = { verification: AuditVerification; job: null } | { verification: null; job: StoredJob };

const inlineMax = (deps: Dependencies): number => deps.auditVerifyInlineRecords ?? AUDIT_VERIFY_INLINE_RECORDS;

/** GET /audit/verify: the verification itself when the log fits one answer, else the job that verifies it. */
export async function verifyAuditLogOrJob(deps: Dependencies): Promise<VerificationOrJob> {
  const max = inlineMax(deps);
  // Signed first (where this runtime may; on AWS the sweep signs every minute), so the pointers count what moved too.
  await checkpointFirst(deps);
  if ((await deps.auditArchive.signedRecordsUpTo(max)) <= max) return { verification: await verifyAuditLog(deps, { signed: true }), job: null };
  return { verification: null, job: await startVerification(deps, 'api') };
}

/** The optional body of POST /audit/verifications (read by its route): who asks. */
export const VERIFICATION_BODY = objectBody({
  fields: { actor: textField({ limit: 200, absent: 'api', expected: 'who asks, e.g. "auditor@example.com", or leave it out', schema: { description: 'Who asks (default "api").' } }) },
  example: { actor: 'auditor@example.com' },
  hint: '{"actor": "auditor@example.com"} or no body',
  notObject: '{} or {"actor": "auditor@example.com"}',
  unknownMember: 'only actor, or an empty body',
  unknownProblem: 'is not a field of a verification',
  unknownMembers: 'alone',
  optional: true,
});

/** POST /audit/verifications: `{actor?}` as its route's schema read it; starts the job whatever the log's size. */
export async function startAuditVerification(deps: Dependencies, body: { actor: string }): Promise<StoredJob> {
  return startVerification(deps, body.actor);
}

function startVerification(deps: Dependencies, actor: string): Promise<StoredJob> {
  return startJob(deps, { kind: 'audit_verify', actor, params: {}, first: { step: 'verify:0', after: null } });
}

/** What a step of a verification in steps carries to the next: where the store's read goes on, the checkpoints pinned, the verifier's state. */
interface VerifyPosition {
  after: string | null;
  /** The highest checkpoint the first step read: later steps verify against the same checkpoints. */
  upTo: number;
  progress: VerifierProgress | null;
}

/** A step of the verification: its records are the job's total and done, the last step's answer the result. */
export async function verifyStep(deps: Dependencies, _job: StoredJob, step: JobStep): Promise<StepWork> {
  if (!step.step.startsWith('verify:')) return wholeVerification(deps);
  const n = Number(step.step.slice('verify:'.length));
  const limit = deps.exportPartRows ?? EXPORT_PART_ROWS;
  if (n === 0) await checkpointFirst(deps);
  if (deps.auditCopy) return copyStep(deps, deps.auditCopy, n, step.after ? (JSON.parse(step.after) as CopyVerifyState) : null);
  const at: VerifyPosition = step.after ? (JSON.parse(step.after) as VerifyPosition) : { after: null, upTo: Number.POSITIVE_INFINITY, progress: null };
  const checkpoints = (await deps.auditArchive.checkpoints()).filter((c) => c.number <= at.upTo);
  const upTo = checkpoints.reduce((top, c) => Math.max(top, c.number), 0);
  const verifier = AuditVerifier.resume(await verifierOptions(deps), checkpoints, at.progress);
  let count = 0;
  let after = at.after;
  let current = at.progress?.open?.stream ?? null;
  let ended = true;
  for await (const { record, problem, position } of deps.auditArchive.records({}, at.after)) {
    // A store's scan gives a stream's records together: the stream before this one is done.
    if (record.stream !== current) verifier.closeStreamsBut(record.stream);
    current = record.stream;
    verifier.addRecord(record, problem);
    after = position ?? null;
    count += 1;
    if (count >= limit) {
      ended = false;
      break;
    }
  }
  const work = { count, run: async () => ({ done: count, failed: 0, failures: [] }) };
  if (!ended) {
    verifier.closeStreamsBut(current);
    const next: VerifyPosition = { after, upTo, progress: verifier.progress() };
    return { ...work, opened: [{ step: `verify:${n + 1}`, after: JSON.stringify(next) }] };
  }
  const verification = verifier.result(await missingStreams(deps, verifier));
  return { ...work, opened: [], result: () => verification };
}

/** A step of the verification over the write-once copy (AWS): a page of the copy's objects, or of the table's records. */
async function copyStep(deps: Dependencies, copy: AuditCopy, n: number, state: CopyVerifyState | null): Promise<StepWork> {
  const step = await copyVerifyStep(deps, copy, await verifierOptions(deps), state);
  const work = { count: step.count, run: async () => ({ done: step.count, failed: 0, failures: [] }) };
  if (step.next) return { ...work, opened: [{ step: `verify:${n + 1}`, after: JSON.stringify(step.next) }] };
  const { verification } = step;
  return { ...work, opened: [], result: () => verification };
}

/** The whole verification in one step (a job started before verification ran in steps). */
async function wholeVerification(deps: Dependencies): Promise<StepWork> {
  const verification = await verifyAuditLog(deps);
  return {
    count: verification.records,
    opened: [],
    run: async () => ({ done: verification.records, failed: 0, failures: [] }),
    result: () => verification,
  };
}
