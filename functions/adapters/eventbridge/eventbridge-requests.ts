/**
 * EventBridge's PutEvents over its JSON API (AWS JSON 1.1: a POST to `/` with `X-Amz-Target: AWSEvents.PutEvents`), as
 * the SDK's EventBridge client sends it, signed by the SDK's own SigV4 signer (aws-http/signed-request.ts says why
 * there is no SDK client here). An entry's `Time` travels as epoch seconds, as the SDK writes it. Errors carry
 * EventBridge's own message, as the SDK client's did.
 */
import { SignedRequests, type AwsTarget } from '../aws-http/signed-request';
import { CallStack } from '../aws-http/call-stack';
import type { PutEvents } from './eventbridge-publisher';

export class EventBridgeRequests {
  /** The bench's call meter hooks in here (aws-http/call-stack.ts). */
  readonly middlewareStack = new CallStack();
  /** Its signed requests (a client hook may carry them another way: SignedRequests.transport). */
  readonly http: SignedRequests;

  constructor(target: AwsTarget) {
    this.http = new SignedRequests('events', target, `events.${target.region}.amazonaws.com`, { endpointEnv: 'AWS_ENDPOINT_URL_EVENTBRIDGE', sdkMessages: true });
  }

  readonly putEvents: PutEvents = (input) => this.middlewareStack.call('PutEvents', input, (sent) => this.http.json('EventBridge PutEvents', this.http.base, '1.1', 'AWSEvents.PutEvents', {
    Entries: sent.Entries.map((entry) => ({ ...entry, Time: entry.Time === undefined ? undefined : Math.round(entry.Time.getTime()) / 1000 })),
  }));
}
