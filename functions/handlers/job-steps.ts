/** The jobs function's runner with every kind's step: the release walk, config's previews, audit's exports and verification. */
import { exportStep } from '../application/audit/export-job';
import { verifyStep } from '../application/audit/verify-job';
import { previewStep } from '../application/config/preview-job';
import { jobStepRunner } from '../application/jobs/run-job-step';
import { walkPage } from '../application/release-walk';

/** Runs one step of a job as the job queue delivers it (see application/jobs/run-job-step.ts). */
export const runJobStep = jobStepRunner({
  vendor_hold: walkPage,
  vendor_unhold: walkPage,
  policy_apply: walkPage,
  outcomes_export: exportStep,
  audit_export: exportStep,
  policy_preview: previewStep,
  settings_preview: previewStep,
  audit_verify: verifyStep,
});
