/** The jobs function's steps: the release walks (holds, unholds, policies applied to open orders) and config's previews. */
import { previewStep } from '../../application/config/preview-job';
import { jobStepRunner, type JobSteps } from '../../application/jobs/run-job-step';
import { walkPage } from '../../application/release-walk';

export const WALK_JOB_STEPS = {
  vendor_hold: walkPage,
  vendor_unhold: walkPage,
  policy_apply: walkPage,
  policy_preview: previewStep,
  settings_preview: previewStep,
} satisfies JobSteps;

/** Runs one step of a walk or a preview as the job queue delivers it (see application/jobs/run-job-step.ts). */
export const runWalkJobStep = jobStepRunner(WALK_JOB_STEPS);
