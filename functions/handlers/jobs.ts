/**
 * Flow: the job queue (SQS event source, one step a message) → runJobStep → the step's releases planned again (a vendor
 * hold, an unhold, a policy applied to open orders), or a preview's page planned; the exports and audit verifications
 * run from their own queue in the export-jobs function (handlers/export-jobs.ts).
 */
import { runWalkJobStep } from './job-steps/walk-job-steps';
import { awsRuntime, type DependencySource } from './dependencies';
import * as composition from '../composition/jobs';
import { makeJobQueueHandler } from './job-steps/job-queue-handler';

export function makeJobsHandler(getDeps: DependencySource) {
  return makeJobQueueHandler(getDeps, runWalkJobStep);
}

export const handler = makeJobsHandler(awsRuntime('jobs', composition, true));
