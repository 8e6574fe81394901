/**
 * The contract of the EventPublisher port, run alike against the recording publisher the use-case tests rely on and the
 * EventBridge adapter on the local edge's bus: what is published arrives whole, in order, under its source.
 */
import { EventBridgeRequests } from '../../functions/adapters/eventbridge/eventbridge-requests';
import { EdgeChannelTransport } from '../../local/lambda/edge-channel';
import type { EventPublisher } from '../../functions/application/ports';
import { EventBridgePublisher } from '../../functions/adapters/eventbridge/eventbridge-publisher';
import { DEFAULT_EVENT_SOURCE, HOLDBACK_EVENT_SOURCE, LOCAL_FUNCTIONS_ACCESS_KEY } from '../../functions/definitions/routing';
import type { HoldbackEvent } from '../../functions/domain/types';
import { Instant } from '../../functions/domain/instant';
import { RecordingPublisher } from '../fakes/outside-world';
import { region, startEdge } from '../infra/local-edge';
import { describeEachSubject, type Subject, type Subjects } from './subjects';
import { at } from '../times';

interface Publishing {
  publisher: EventPublisher;
  /** Holdback's own events as a subscriber of the bus gets them, in the order they were put. */
  holdbackEvents(): Promise<HoldbackEvent[]>;
  /** Order events put on the marketplace's behalf, as Holdback's order-events rule gets them. */
  orderEvents(): Promise<{ detailType: string; detail: object }[]>;
}

async function recording(): Promise<Subject<Publishing>> {
  const publisher = new RecordingPublisher();
  return {
    publisher,
    holdbackEvents: async () => structuredClone(publisher.events),
    orderEvents: async () => structuredClone(publisher.orderEvents),
    close: async () => undefined,
  };
}

async function onTheLocalBus(over: 'http' | 'channel' = 'http'): Promise<Subject<Publishing>> {
  // No target: the bus keeps what it accepted, and lists it (GET /_local/events reads the same list).
  const local = await startEdge({});
  // Signed as Holdback's functions are, and sent as they send it (no SDK client: eventbridge-requests.ts): the bus's
  // policy lets only them put source `holdback`.
  const client = new EventBridgeRequests({ endpoint: local.edge.url, region, credentials: { accessKeyId: LOCAL_FUNCTIONS_ACCESS_KEY, secretAccessKey: 'local' } });
  // As a local Lambda container sends it: the same signed request over a MessagePort to the edge (edge-channel.ts).
  if (over === 'channel') client.http.transport = new EdgeChannelTransport(local.edge.channel(), local.edge.url);
  return {
    publisher: new EventBridgePublisher(client.putEvents, { eventBusName: 'default', now: () => Instant.fromDateTime(local.clock.now()) }),
    holdbackEvents: async () => local.edge.bus.find({ source: HOLDBACK_EVENT_SOURCE }).map((e) => ({ type: e['detail-type'], detail: e.detail }) as HoldbackEvent),
    orderEvents: async () => local.edge.bus.find({ source: DEFAULT_EVENT_SOURCE }).map((e) => ({ detailType: e['detail-type'], detail: e.detail })),
    close: async () => {
      await local.edge.close();
    },
  };
}

const SUBJECTS: Subjects<Publishing> = [
  ['the recording publisher', recording],
  ['the EventBridge adapter on the local bus', () => onTheLocalBus('http')],
  ['the EventBridge adapter on the local bus over a local container\'s channel to the edge', () => onTheLocalBus('channel')],
];

const applied = (n: number): HoldbackEvent => ({
  type: 'vendor.release_applied',
  detail: { orderId: `order_${n}`, vendorId: 'vendor_A', eligibility: at('2022-12-06T09:00:00+05:30'), predictedSettlement: at('2022-12-07T11:00:00+05:30') },
});
const failed: HoldbackEvent = { type: 'vendor.release_failed', detail: { orderId: 'order_9', vendorId: 'vendor_B', reason: 'the gateway refused the date (400 invalid_request)', retryable: false } };

describeEachSubject(SUBJECTS, (subject) => {

  test('Holdback\'s events arrive whole and in order, across publishes and past one PutEvents of ten entries', async () => {
    const many = Array.from({ length: 12 }, (_, i) => applied(i + 1));
    await subject().publisher.publish(many.slice(0, 11));
    await subject().publisher.publish([failed, many[11]]);
    await subject().publisher.publish([]);
    expect(await subject().holdbackEvents()).toEqual([...many.slice(0, 11), failed, many[11]]);
    expect(await subject().orderEvents()).toEqual([]);
  });

  test('an order event published on the marketplace\'s behalf arrives under its source, its detail kept as given (decimal text)', async () => {
    const detail = {
      orderId: 'order_1001', transactionTime: '2022-12-02T16:00:00+05:30', currency: 'INR', transactionTimeSource: 'gateway',
      vendors: [{ vendorId: 'vendor_a', amount: '333.32' }, { vendorId: 'vendor_b', amount: '666.73' }],
    };
    await subject().publisher.publishOrderEvent('order.paid', detail);
    expect(await subject().orderEvents()).toEqual([{ detailType: 'order.paid', detail }]);
    expect(await subject().holdbackEvents()).toEqual([]);
  });

  test('concurrent publishes each resolve once their events are accepted; none is lost or repeated', async () => {
    await Promise.all([1, 2, 3, 4, 5].map((n) => subject().publisher.publish([applied(n)])));
    const got = (await subject().holdbackEvents()).map((e) => e.detail.orderId).sort();
    expect(got).toEqual(['order_1', 'order_2', 'order_3', 'order_4', 'order_5']);
  });
});
