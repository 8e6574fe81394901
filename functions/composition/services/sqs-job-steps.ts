/**
 * SQS for the functions that only send job steps (export-jobs, apiAudit): SendMessageBatch without the SDK's SQS client
 * (adapters/sqs/sqs-requests.ts), which was about 8 KB of each one's gzipped bundle. No release queue: neither
 * function enqueues a release (a use of it fails naming the composition, compose.ts).
 */
import { SqsRequests } from '../../adapters/sqs/sqs-requests';
import { SqsJobQueue } from '../../adapters/sqs/sqs-job-queue';
import type { AwsAdapters } from '../compose';

export const jobStepQueues: NonNullable<AwsAdapters['queues']> = (c) => ({
  jobQueue: c.config.jobQueueUrl ? new SqsJobQueue(new SqsRequests(c.aws).sendMessageBatch, c.config.jobQueueUrl, c.config.exportJobQueueUrl) : null,
});
