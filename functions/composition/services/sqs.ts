/**
 * SQS: the release queue (the one send path) and the job queues, on one sender without the SDK's SQS client
 * (adapters/sqs/sqs-requests.ts), built at its first use and hooked as a client would be, so that the bill's meter
 * counts an order's messages.
 */
import { SqsRequests } from '../../adapters/sqs/sqs-requests';
import { SqsReleaseQueue } from '../../adapters/sqs/sqs-release-queue';
import { SqsJobQueue } from '../../adapters/sqs/sqs-job-queue';
import type { SendBatch } from '../../adapters/sqs/sqs-batches';
import type { AwsAdapters } from '../compose';

export const queues: NonNullable<AwsAdapters['queues']> = (c) => {
  const sqs = c.metered('SQS', () => new SqsRequests(c.aws));
  const send: SendBatch = (input) => sqs.sendMessageBatch(input);
  return { queue: new SqsReleaseQueue(send, c.config.releaseQueueUrl), jobQueue: c.config.jobQueueUrl ? new SqsJobQueue(send, c.config.jobQueueUrl, c.config.exportJobQueueUrl) : null };
};
