/** SQS: the release queue (the one send path) and the job queues, on one client. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { SqsReleaseQueue } from '../../adapters/sqs/sqs-release-queue';
import { SqsJobQueue } from '../../adapters/sqs/sqs-job-queue';
import { sdkSendBatch } from '../../adapters/sqs/sqs-batches';
import type { AwsAdapters } from '../compose';

export const queues: NonNullable<AwsAdapters['queues']> = (c) => {
  const sqs = c.lazy('SQS', () => new SQSClient(c.aws));
  return { queue: new SqsReleaseQueue(sdkSendBatch(sqs), c.config.releaseQueueUrl), jobQueue: c.config.jobQueueUrl ? new SqsJobQueue(sdkSendBatch(sqs), c.config.jobQueueUrl, c.config.exportJobQueueUrl) : null };
};
