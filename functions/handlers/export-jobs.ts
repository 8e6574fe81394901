/**
 * Flow: the export job queue (SQS event source, one step a message) → runJobStep → a part of an outcomes or audit
 * export written (S3, hashed) or a part of an audit verification checked (the write-once copy, the KMS key's public
 * half); a step that throws is delivered again by SQS, and on its last receive its job ends `failed`.
 */
import { runExportJobStep } from './job-steps/export-job-steps';
import { awsRuntime, type DependencySource } from './dependencies';
import * as composition from '../composition/export-jobs';
import { makeJobQueueHandler } from './job-steps/job-queue-handler';

export function makeExportJobsHandler(getDeps: DependencySource) {
  return makeJobQueueHandler(getDeps, runExportJobStep);
}

export const handler = makeExportJobsHandler(awsRuntime('export-jobs', composition));
