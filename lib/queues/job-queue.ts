/** The job queue (contract 6.3): the steps of bulk changes and exports in, the jobs function out, at a bounded concurrency. */
import { Construct } from 'constructs';
import { EXPORT_JOB_QUEUE, JOB_QUEUE } from '../../functions/definitions/routing';
import { FunctionQueue } from './function-queue';

/** The jobs function consumes the queue (attach): a step an invocation, at most JOB_QUEUE.maximumConcurrency at once. */
export class JobQueue extends FunctionQueue {
  constructor(scope: Construct, id: string) {
    super(scope, id, {
      holds: `job steps the jobs function failed on ${JOB_QUEUE.maxReceiveCount} times (their job ended failed, saying why)`,
      visibilityTimeoutSeconds: JOB_QUEUE.visibilityTimeoutSeconds,
      maxReceiveCount: JOB_QUEUE.maxReceiveCount,
      batchSize: JOB_QUEUE.batchSize,
      maximumConcurrency: JOB_QUEUE.maximumConcurrency,
    });
  }
}

/** The export job queue: the steps of exports and audit verifications in, the export-jobs function out (attach), as the job queue. */
export class ExportJobQueue extends FunctionQueue {
  constructor(scope: Construct, id: string) {
    super(scope, id, {
      holds: `export and verification steps the export-jobs function failed on ${EXPORT_JOB_QUEUE.maxReceiveCount} times (their job ended failed, saying why)`,
      visibilityTimeoutSeconds: EXPORT_JOB_QUEUE.visibilityTimeoutSeconds,
      maxReceiveCount: EXPORT_JOB_QUEUE.maxReceiveCount,
      batchSize: EXPORT_JOB_QUEUE.batchSize,
      maximumConcurrency: EXPORT_JOB_QUEUE.maximumConcurrency,
    });
  }
}
