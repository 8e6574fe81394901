/** Sending JSON messages to an SQS queue in batches of ten (SendMessageBatch's limit), failing when one is refused. */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

const BATCH = 10;

/** Sends each value as one message; `what` names them in the error (e.g. "release commands"). */
export async function sendJsonMessages(client: SQSClient, queueUrl: string, values: readonly unknown[], what: string): Promise<void> {
  for (let i = 0; i < values.length; i += BATCH) {
    const batch = values.slice(i, i + BATCH);
    const answer = await client.send(new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: batch.map((value, n) => ({ Id: String(n), MessageBody: JSON.stringify(value) })),
    }));
    if (answer.Failed && answer.Failed.length > 0) {
      const first = answer.Failed[0];
      throw new Error(`${what}: the queue refused ${answer.Failed.length} of ${batch.length}: ${first.Code ?? 'error'} ${first.Message ?? ''}`.trim());
    }
  }
}
