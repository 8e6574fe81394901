/** The job queue on SQS: one message per step of a job, consumed by the jobs function at a bounded concurrency. */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { JobQueue, JobStep } from '../../application/ports';
import { sendJsonMessages } from './sqs-batches';

export class SqsJobQueue implements JobQueue {
  constructor(private readonly client: SQSClient, private readonly queueUrl: string) {}

  async enqueue(steps: JobStep[]): Promise<void> {
    await sendJsonMessages(this.client, this.queueUrl, steps, 'job steps');
  }
}
