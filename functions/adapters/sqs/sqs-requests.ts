/**
 * SQS's SendMessageBatch over its JSON API (AWS JSON 1.0: a POST to `/` with `X-Amz-Target: AmazonSQS.SendMessageBatch`,
 * as the pinned SDK sends it, /work/shared/reference/aws-wire.md), signed by the SDK's own SigV4 signer
 * (aws-http/signed-request.ts): what the export-jobs and apiAudit functions send (job steps), without the SDK's SQS
 * client. As the SDK's client does, it goes to the queue URL's own host unless an endpoint is configured, and checks
 * each sent message's MD5 in the answer.
 */
import { createHash } from 'node:crypto';
import { SignedRequests, type AwsTarget } from '../aws-http/signed-request';
import { CallStack } from '../aws-http/call-stack';
import type { SendBatch } from './sqs-batches';

export class SqsRequests {
  /** The bench's call meter hooks in here where the composition hands it over (aws-http/call-stack.ts). */
  readonly middlewareStack = new CallStack();
  /** Its signed requests (a client hook may carry them another way: SignedRequests.transport). */
  readonly http: SignedRequests;

  constructor(target: AwsTarget) {
    this.http = new SignedRequests('sqs', target, `sqs.${target.region}.amazonaws.com`);
  }

  readonly sendMessageBatch: SendBatch = (input) => this.middlewareStack.call('SendMessageBatch', input, this.sendBatch);

  private readonly sendBatch: SendBatch = async (input) => {
    const url = this.http.ownEndpoint ? this.http.base : new URL(new URL(input.QueueUrl).origin);
    const output = await this.http.json<Awaited<ReturnType<SendBatch>> & { Successful?: { Id: string; MessageId: string; MD5OfMessageBody: string }[] }>(
      'SQS SendMessageBatch', url, '1.0', 'AmazonSQS.SendMessageBatch', input, { 'x-amzn-query-mode': 'true' });
    const bodies = new Map(input.Entries.map((entry) => [entry.Id, entry.MessageBody]));
    const corrupted = (output.Successful ?? []).filter((sent) => createHash('md5').update(bodies.get(sent.Id) ?? '').digest('hex') !== sent.MD5OfMessageBody);
    if (corrupted.length > 0) throw new Error(`Invalid MD5 checksum on messages: ${corrupted.map((sent) => sent.MessageId).join(', ')}`);
    return output;
  };
}
