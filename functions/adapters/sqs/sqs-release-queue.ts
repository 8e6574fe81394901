/** The release queue on SQS: due release commands, sent in batches of ten, each command one message. */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ReleaseQueue } from '../../application/ports';
import type { ReleaseCommand } from '../../domain/types';

/** SendMessageBatch takes at most ten entries. */
const BATCH = 10;

export class SqsReleaseQueue implements ReleaseQueue {
  constructor(private readonly client: SQSClient, private readonly queueUrl: string) {}

  async enqueue(commands: ReleaseCommand[]): Promise<void> {
    for (let i = 0; i < commands.length; i += BATCH) {
      const batch = commands.slice(i, i + BATCH);
      const answer = await this.client.send(new SendMessageBatchCommand({
        QueueUrl: this.queueUrl,
        Entries: batch.map((command, n) => ({ Id: String(n), MessageBody: JSON.stringify(command) })),
      }));
      if (answer.Failed && answer.Failed.length > 0) {
        const first = answer.Failed[0];
        throw new Error(`release queue refused ${answer.Failed.length} of ${batch.length} commands: ${first.Code ?? 'error'} ${first.Message ?? ''}`.trim());
      }
    }
  }
}
