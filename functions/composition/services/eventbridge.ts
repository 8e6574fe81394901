/** EventBridge: Holdback's own events (source "holdback") and the order events it puts on the bus. */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { EventBridgePublisher } from '../../adapters/eventbridge/eventbridge-publisher';
import type { AwsAdapters } from '../compose';

export const publisher: NonNullable<AwsAdapters['publisher']> = (c, lingerMs) => new EventBridgePublisher(c.lazy('EventBridge', () => new EventBridgeClient(c.aws)), {
  eventBusName: c.config.eventBus,
  orderEventSource: c.config.orderEventSource,
  now: () => c.clock.now(),
  lingerMs,
});
