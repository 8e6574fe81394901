/**
 * SQS for the functions that only send job steps (export-jobs, apiAudit): SendMessageBatch without the SDK's SQS client
 * (adapters/sqs/sqs-requests.ts), which was about 8 KB of each one's gzipped bundle. No release queue: neither
 * function enqueues a release (a use of it fails naming the composition, compose.ts).
 */
import { SqsRequests } from '../../adapters/sqs/sqs-requests';
import { SqsJobQueue } from '../../adapters/sqs/sqs-job-queue';
import { SqsReleaseQueue } from '../../adapters/sqs/sqs-release-queue';
import type { AwsAdapters } from '../compose';

export const jobStepQueues: NonNullable<AwsAdapters['queues']> = (c) => ({
  jobQueue: c.config.jobQueueUrl ? new SqsJobQueue(new SqsRequests(c.aws).sendMessageBatch, c.config.jobQueueUrl, c.config.exportJobQueueUrl) : null,
});

/**
 * The release queue and the job queues without the SDK's SQS client, for the jobs function (its walks enqueue what is
 * due now; its steps pass work on): about 5 KB of its gzipped bundle, which kept it over 150 KB. Its calls are jobs',
 * not an order's, so the bill's per-order meter (a client hook) loses nothing.
 */
export const signedQueues: NonNullable<AwsAdapters['queues']> = (c) => {
  const send = new SqsRequests(c.aws).sendMessageBatch;
  return { queue: new SqsReleaseQueue(send, c.config.releaseQueueUrl), jobQueue: c.config.jobQueueUrl ? new SqsJobQueue(send, c.config.jobQueueUrl, c.config.exportJobQueueUrl) : null };
};
