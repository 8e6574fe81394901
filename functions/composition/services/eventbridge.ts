/**
 * EventBridge: Holdback's own events (source "holdback") and the order events it puts on the bus. PutEvents goes out
 * without the SDK's EventBridge client (adapters/eventbridge/eventbridge-requests.ts), hooked as a client would be.
 */
import { EventBridgeRequests } from '../../adapters/eventbridge/eventbridge-requests';
import { EventBridgePublisher } from '../../adapters/eventbridge/eventbridge-publisher';
import type { AwsAdapters } from '../compose';

export const publisher: NonNullable<AwsAdapters['publisher']> = (c, lingerMs) => {
  const events = c.metered('EventBridge', () => new EventBridgeRequests(c.aws));
  return new EventBridgePublisher((input) => events.putEvents(input), {
    eventBusName: c.config.eventBus,
    orderEventSource: c.config.orderEventSource,
    now: () => c.clock.now(),
    lingerMs,
  });
};
