/** The release queue on SQS: due release commands, sent in batches of ten, each command one message. */
import type { ReleaseQueue } from '../../application/ports';
import type { ReleaseCommand } from '../../domain/types';
import { sendJsonMessages, type SendBatch } from './sqs-batches';

/** `send`: the SDK client's SendMessageBatch (`sdkSendBatch`) or one without the client (sqs-requests.ts). */
export class SqsReleaseQueue implements ReleaseQueue {
  constructor(private readonly send: SendBatch, private readonly queueUrl: string) {}

  async enqueue(commands: ReleaseCommand[]): Promise<void> {
    await sendJsonMessages(this.send, this.queueUrl, commands, 'release commands');
  }
}
