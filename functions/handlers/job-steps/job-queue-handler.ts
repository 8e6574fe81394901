/**
 * A job queue's handler (contract 6.3): SQS event source, one step a message → runJobStep (the function's own kinds);
 * a step that throws is delivered again by SQS, and on its last receive its job ends `failed`. The jobs function
 * (handlers/jobs.ts) runs the release walks and previews with it, the export-jobs function (handlers/export-jobs.ts)
 * the exports and audit verifications.
 */
import middy from '@middy/core';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describeError } from '../../application/errors';
import type { JobStepResult } from '../../application/jobs/run-job-step';
import { JOB_KINDS, type JobKind, type JobStep } from '../../application/ports';
import { JOB_QUEUE } from '../../definitions/routing';
import type { Dependencies } from '../../application/ports';
import type { DependencySource } from '../dependencies';
import { handlerDependencies, observed } from '../observability';

/** Runs one step of a job of the function's kinds (application/jobs/run-job-step.ts's jobStepRunner). */
export type JobStepRun = (deps: Dependencies, step: JobStep, attempt: { last: boolean }) => Promise<JobStepResult>;

/** The handler of a job queue: each step run by `runJobStep`. */
export function makeJobQueueHandler(getDeps: DependencySource, runJobStep: JobStepRun) {
  const deps = handlerDependencies(getDeps);
  return middy<SQSEvent, SQSBatchResponse>().use(observed()).handler(async (event) => {
    const d = await deps();
    // Powertools' batch processor, one record after the other (a step is a page of work); each that throws is answered
    // in batchItemFailures, all of them when all fail (SQS delivers each again; the last receive ends its job failed).
    return processPartialResponse({ Records: event.Records ?? [] }, async (record: SQSRecord) => {
      const step = jobStepOf(record.body);
      if (typeof step === 'string') {
        d.logger.error('job queue message is not a job step; it goes to the dead-letter queue after its retries', { messageId: record.messageId, reason: step });
        throw new Error(`not a job step: ${step}`);
      }
      const receives = Number(record.attributes?.ApproximateReceiveCount ?? '1');
      try {
        await runJobStep(d, step, { last: receives >= JOB_QUEUE.maxReceiveCount });
      } catch (error) {
        d.logger.error('job step failed; SQS delivers it again', { messageId: record.messageId, jobId: step.jobId, step: step.step, receives, error: describeError(error) });
        throw error;
      }
    }, new BatchProcessor(EventType.SQS), { throwOnFullBatchFailure: false, processInParallel: false });
  });
}

/** The step, or why the body is not one. */
function jobStepOf(body: string): JobStep | string {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return 'the body is not JSON';
  }
  if (typeof value !== 'object' || value === null) return 'the body is not a JSON object';
  const { jobId, step, vendorId, after, kind } = value as Record<string, unknown>;
  if (typeof jobId !== 'string' || typeof step !== 'string') return 'jobId or step is missing';
  if (vendorId !== undefined && typeof vendorId !== 'string') return 'vendorId is not a text';
  if (after !== undefined && after !== null && typeof after !== 'string') return 'after is not a text';
  if (kind !== undefined && !(JOB_KINDS as readonly unknown[]).includes(kind)) return 'kind is no job kind';
  return { jobId, step, ...(vendorId !== undefined ? { vendorId } : {}), ...(after !== undefined ? { after } : {}), ...(kind !== undefined ? { kind: kind as JobKind } : {}) };
}
