/** The job queue (contract 6.3): the steps of bulk changes and exports in, the jobs function out, at a bounded concurrency. */
import { Construct } from 'constructs';
import { JOB_QUEUE } from '../../functions/definitions/routing';
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
