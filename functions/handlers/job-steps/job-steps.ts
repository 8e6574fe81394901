/** Every kind's step, in one runner: where one function runs every job (the tests' worlds); each job function runs its own. */
import { jobStepRunner } from '../../application/jobs/run-job-step';
import { EXPORT_JOB_STEPS } from './export-job-steps';
import { WALK_JOB_STEPS } from './walk-job-steps';

/** Runs one step of a job of any kind (see application/jobs/run-job-step.ts). */
export const runJobStep = jobStepRunner({ ...WALK_JOB_STEPS, ...EXPORT_JOB_STEPS });
