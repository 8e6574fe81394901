/**
 * Flow: the job queue (SQS event source, one step a message) → runJobStep → the step's releases planned again, or an
 * export written; a step that throws is delivered again by SQS, and on its last receive its job ends `failed`.
 */
import middy from '@middy/core';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { describeError } from '../application/errors';
import { runJobStep } from './job-steps';
import type { JobStep } from '../application/ports';
import { JOB_QUEUE } from '../definitions/routing';
import { awsRuntime, type DependencySource } from './dependencies';
import * as composition from '../composition/jobs';
import { handlerDependencies, observed } from './observability';

export function makeJobsHandler(getDeps: DependencySource) {
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
  const { jobId, step, vendorId, after } = value as Record<string, unknown>;
  if (typeof jobId !== 'string' || typeof step !== 'string') return 'jobId or step is missing';
  if (vendorId !== undefined && typeof vendorId !== 'string') return 'vendorId is not a text';
  if (after !== undefined && after !== null && typeof after !== 'string') return 'after is not a text';
  return { jobId, step, ...(vendorId !== undefined ? { vendorId } : {}), ...(after !== undefined ? { after } : {}) };
}

export const handler = makeJobsHandler(awsRuntime('jobs', composition, true));
