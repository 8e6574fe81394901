/** The release queue on SQS: due release commands, sent in batches of ten, each command one message. */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ReleaseQueue } from '../../application/ports';
import type { ReleaseCommand } from '../../domain/types';
import { sdkSendBatch, sendJsonMessages } from './sqs-batches';

export class SqsReleaseQueue implements ReleaseQueue {
  constructor(private readonly client: SQSClient, private readonly queueUrl: string) {}

  async enqueue(commands: ReleaseCommand[]): Promise<void> {
    await sendJsonMessages(sdkSendBatch(this.client), this.queueUrl, commands, 'release commands');
  }
}
