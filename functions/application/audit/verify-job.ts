/**
 * Verification of the audit log as a job (contract 6.3, 6.2): `POST /audit/verifications` always starts one, and
 * `GET /audit/verify` answers inline while the log is small and `202 {job}` above `auditVerifyInlineRecords` signed
 * records (read from the writer's signed-head pointers, a bounded read: never the whole log, never the bucket listed).
 * The job's one step runs the same verification in the jobs function (15 minutes, not API Gateway's 30 s); its
 * `result` is exactly the answer of `GET /audit/verify`.
 */
import { objectBody, textField } from '../body-schema';
import type { AuditVerification } from '../../domain/audit/audit-verification';
import { AUDIT_VERIFY_INLINE_RECORDS, type Dependencies, type StoredJob } from '../ports';
import type { StepWork } from '../release-walk';
import { startJob } from '../start-job';
import { checkpointFirst, verifyAuditLog } from './audit-log-views';

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
  return startJob(deps, { kind: 'audit_verify', actor, params: {}, first: { step: 'verify' } });
}

/** The job's one step: the whole verification; its records are the job's total and done, its answer the result. */
export async function verifyStep(deps: Dependencies): Promise<StepWork> {
  const verification = await verifyAuditLog(deps);
  return {
    count: verification.records,
    opened: [],
    run: async () => ({ done: verification.records, failed: 0, failures: [] }),
    result: () => verification,
  };
}
