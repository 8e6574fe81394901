/** The export-jobs function's steps: audit's exports (outcomes, the audit log) and verification. */
import { exportStep } from '../../application/audit/export-job';
import { verifyStep } from '../../application/audit/verify-job';
import { jobStepRunner, type JobSteps } from '../../application/jobs/run-job-step';

export const EXPORT_JOB_STEPS = {
  outcomes_export: exportStep,
  audit_export: exportStep,
  audit_verify: verifyStep,
} satisfies JobSteps;

/** Runs one step of an export or a verification as the export job queue delivers it (see application/jobs/run-job-step.ts). */
export const runExportJobStep = jobStepRunner(EXPORT_JOB_STEPS);
