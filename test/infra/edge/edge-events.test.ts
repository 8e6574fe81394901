/** The edge's EventBridge PutEvents, through the real AWS SDK: per-entry validation and delivery by the shared rules. */
import { EventBridgeClient, PutEventsCommand, ListRulesCommand } from '@aws-sdk/client-eventbridge';
import { SharedClock } from '../../../local/clock';
import { credentials, edgeWithBus, recordingTarget, region, startEdge, START } from '../local-edge';

const { orderEvents, fixture: f } = edgeWithBus();

beforeEach(() => { orderEvents.calls.length = 0; });

const paid = { orderId: 'order_1', transactionTime: '2022-12-02T16:05:00+05:30', vendors: [{ vendorId: 'v1', amount: '100.00' }] };

test('a good entry is accepted and delivered as an envelope; a malformed one fails alone', async () => {
  const answer = await f.events.send(new PutEventsCommand({
    Entries: [
      { Source: 'marketplace.orders', DetailType: 'order.paid', Detail: JSON.stringify(paid) },
      { Source: 'marketplace.orders', DetailType: 'order.paid', Detail: '[1, 2]' },
      { Source: 'marketplace.orders', DetailType: 'order.paid', Detail: '{not json' },
      { Source: 'marketplace.orders', Detail: '{}' },
    ],
  }));
  expect(answer.FailedEntryCount).toBe(3);
  expect(answer.Entries?.[0].EventId).toMatch(/^[0-9a-f-]{36}$/);
  expect(answer.Entries?.[1]).toMatchObject({ ErrorCode: 'MalformedDetail' });
  expect(answer.Entries?.[2]).toMatchObject({ ErrorCode: 'MalformedDetail' });
  expect(answer.Entries?.[3]).toMatchObject({ ErrorCode: 'InvalidArgument' });
  expect(answer.Entries?.[3].ErrorMessage).toContain('DetailType');

  await f.local.edge.idle();
  expect(orderEvents.calls).toEqual([{
    at: START,
    event: {
      version: '0',
      id: answer.Entries?.[0].EventId,
      'detail-type': 'order.paid',
      source: 'marketplace.orders',
      account: '000000000000',
      time: '2022-12-02T10:35:00Z',
      region: 'us-east-1',
      resources: [],
      detail: paid,
    },
  }]);
  expect(f.local.edge.bus.events.map((e) => e.id)).toContain(answer.Entries?.[0].EventId);
});

test('the entry\'s own Time becomes the envelope time', async () => {
  await f.events.send(new PutEventsCommand({
    Entries: [{ Source: 'marketplace.orders', DetailType: 'order.delivered', Detail: '{"orderId":"order_1"}', Time: new Date('2022-12-05T04:00:00Z') }],
  }));
  await f.local.edge.idle();
  expect((orderEvents.calls[0].event as { time: string }).time).toBe('2022-12-05T04:00:00Z');
});

test('an event of another source is kept but not delivered', async () => {
  const answer = await f.events.send(new PutEventsCommand({
    Entries: [{ Source: 'another.system', DetailType: 'vendor.release_applied', Detail: '{"orderId":"order_9"}' }],
  }));
  expect(answer.FailedEntryCount).toBe(0);
  await f.local.edge.idle();
  expect(orderEvents.calls).toEqual([]);
  const res = await fetch(`${f.local.edge.url}/_local/events?source=another.system&detailType=vendor.release_applied`);
  const listed = (await res.json()) as { events: Array<{ id: string; detail: unknown }> };
  expect(listed.events.map((e) => e.id)).toEqual([answer.Entries?.[0].EventId]);
  expect(listed.events[0].detail).toEqual({ orderId: 'order_9' });
});

test('the default bus by name or ARN is local; an unknown bus fails the entry', async () => {
  const answer = await f.events.send(new PutEventsCommand({
    Entries: [
      { Source: 'marketplace.orders', DetailType: 'order.cancelled', Detail: '{}', EventBusName: 'default' },
      { Source: 'marketplace.orders', DetailType: 'order.cancelled', Detail: '{}', EventBusName: 'arn:aws:events:us-east-1:000000000000:event-bus/default' },
      { Source: 'marketplace.orders', DetailType: 'order.cancelled', Detail: '{}', EventBusName: 'no-such-bus' },
    ],
  }));
  expect(answer.FailedEntryCount).toBe(1);
  expect(answer.Entries?.[2]).toMatchObject({ ErrorCode: 'ResourceNotFoundException' });
  await f.local.edge.idle();
  expect(orderEvents.calls).toHaveLength(2);
});

test('more than 10 entries, or none, fail the whole call with ValidationException', async () => {
  const entry = { Source: 'marketplace.orders', DetailType: 'order.paid', Detail: '{}' };
  await expect(f.events.send(new PutEventsCommand({ Entries: Array.from({ length: 11 }, () => entry) })))
    .rejects.toMatchObject({ name: 'ValidationException' });
  await expect(f.events.send(new PutEventsCommand({ Entries: [] }))).rejects.toMatchObject({ name: 'ValidationException' });
});

test('entries over 256 KB in all fail the whole call', async () => {
  const big = JSON.stringify({ pad: 'x'.repeat(130 * 1024) });
  const entry = { Source: 'marketplace.orders', DetailType: 'order.paid', Detail: big };
  await expect(f.events.send(new PutEventsCommand({ Entries: [entry, entry] }))).rejects.toMatchObject({ name: 'ValidationException' });
});

test('other EventBridge operations are unknown to the edge', async () => {
  await expect(f.events.send(new ListRulesCommand({}))).rejects.toMatchObject({ name: 'UnknownOperationException' });
});

/** One order.paid through a separate edge whose target throws on its first `failFirst` calls; what came of it. */
async function deliverToFlakyTarget(failFirst: number) {
  const flakyClock = new SharedClock({ start: new Date(START), frozen: true });
  const flaky = recordingTarget(flakyClock, failFirst);
  // Three tries in all, so that the final failure comes within the test (the default tries for 24 hours).
  const other = await startEdge({ orderEvents: flaky.target }, flakyClock, { delivery: { maximumAttempts: 3 } });
  const client = new EventBridgeClient({ endpoint: other.edge.url, region, credentials });
  try {
    await client.send(new PutEventsCommand({ Entries: [{ Source: 'marketplace.orders', DetailType: 'order.paid', Detail: '{"orderId":"o_1"}' }] }));
    await other.edge.idle();
    return { calls: flaky.calls, failures: other.edge.bus.failures, logs: other.logs };
  } finally {
    client.destroy();
    await other.edge.close();
  }
}

test('a target that throws is retried, then after its last try the failure is logged', async () => {
  const { calls, failures, logs } = await deliverToFlakyTarget(10);
  expect(calls).toHaveLength(3);
  expect(failures).toEqual([expect.objectContaining({ eventId: (calls[0].event as { id: string }).id, target: 'orderEvents', attempts: 3 })]);
  expect(logs.join('\n')).toContain('failed 3 times: target refused the invocation');
});

test('a target that throws once gets the event again and succeeds', async () => {
  const { calls, failures } = await deliverToFlakyTarget(1);
  expect(calls).toHaveLength(2);
  expect(calls[1].event).toEqual(calls[0].event);
  expect(failures).toEqual([]);
});
