/** Sending JSON messages to an SQS queue in batches of ten (SendMessageBatch's limit), failing when one is refused. */
import { SendMessageBatchCommand, type SendMessageBatchCommandInput, type SendMessageBatchCommandOutput, type SQSClient } from '@aws-sdk/client-sqs';

const BATCH = 10;

/** One SendMessageBatch: the SDK client's, or one without a client (sqs-requests.ts). */
export type SendBatch = (input: { QueueUrl: string; Entries: { Id: string; MessageBody: string }[] } & SendMessageBatchCommandInput) => Promise<Pick<SendMessageBatchCommandOutput, 'Failed'>>;

/** The SDK client's SendMessageBatch as a SendBatch (a function that sends without the client never reaches its code). */
export const sdkSendBatch = (client: SQSClient): SendBatch => (input) => client.send(new SendMessageBatchCommand(input));

/** Sends each value as one message; `what` names them in the error (e.g. "release commands"). */
export async function sendJsonMessages(send: SendBatch, queueUrl: string, values: readonly unknown[], what: string): Promise<void> {
  for (let i = 0; i < values.length; i += BATCH) {
    const batch = values.slice(i, i + BATCH);
    const answer = await send({
      QueueUrl: queueUrl,
      Entries: batch.map((value, n) => ({ Id: String(n), MessageBody: JSON.stringify(value) })),
    });
    if (answer.Failed && answer.Failed.length > 0) {
      const first = answer.Failed[0];
      throw new Error(`${what}: the queue refused ${answer.Failed.length} of ${batch.length}: ${first.Code ?? 'error'} ${first.Message ?? ''}`.trim());
    }
  }
}
