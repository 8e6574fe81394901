/**
 * The local bus applies the stack's bus policy (lib/event-intake.ts): an order event from a principal the deploy did
 * not name, or Holdback's own events from anyone but Holdback's functions, are refused whole by PutEvents with
 * AccessDeniedException and never reach a target. Through the real AWS SDK, signed with different access key ids.
 */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SharedClock } from '../../../local/clock';
import { LOCAL_FUNCTIONS_ACCESS_KEY } from '../../../functions/definitions/routing';
import { recordingTarget, region, startEdge, START, type TestEdge } from '../local-edge';

const clock = new SharedClock({ start: new Date(START), frozen: true });
const orderEvents = recordingTarget(clock);
let local: TestEdge;
const clients: EventBridgeClient[] = [];
const as = (accessKeyId: string) => {
  const client = new EventBridgeClient({ endpoint: local.edge.url, region, credentials: { accessKeyId, secretAccessKey: 'x' }, maxAttempts: 1 });
  clients.push(client);
  return client;
};
const delivered = { Source: 'marketplace.orders', DetailType: 'order.delivered', Detail: JSON.stringify({ orderId: 'order_forged', deliveredAt: '2022-12-02T16:05:00+05:30' }) };

beforeAll(async () => {
  local = await startEdge({ orderEvents: orderEvents.target }, clock, { eventProducers: ['marketplace-backend'] });
});
afterAll(async () => {
  for (const client of clients) client.destroy();
  await local.edge.close();
});
beforeEach(() => { orderEvents.calls.length = 0; });

async function refusal(client: EventBridgeClient, entries: Array<Record<string, string>>) {
  return client.send(new PutEventsCommand({ Entries: entries })).then(() => null, (error: { name: string; message: string; $metadata?: { httpStatusCode?: number } }) => error);
}

test('an order event from a principal the deploy did not name is refused whole and never reaches Holdback', async () => {
  const before = local.edge.bus.events.length;
  const error = await refusal(as('intruder'), [delivered]);
  expect(error?.name).toBe('AccessDeniedException');
  expect(error?.$metadata?.httpStatusCode).toBe(400);
  expect(error?.message).toMatch(/User: intruder is not authorized to perform: events:PutEvents on resource: arn:aws:events:.*event-bus\/default with an explicit deny in a resource-based policy/);
  expect(error?.message).toContain('HOLDBACK_EVENT_PRODUCERS');
  await local.edge.idle();
  expect(orderEvents.calls).toEqual([]);
  expect(local.edge.bus.events.length).toBe(before);
  expect(local.logs.some((l) => l.includes('refused by the bus policy'))).toBe(true);
});

test('the named producer puts the same event, and it is delivered', async () => {
  const answer = await as('marketplace-backend').send(new PutEventsCommand({ Entries: [delivered] }));
  expect(answer.FailedEntryCount).toBe(0);
  await local.edge.idle();
  expect(orderEvents.calls.map((c) => (c.event as { 'detail-type': string })['detail-type'])).toEqual(['order.delivered']);
});

test('one refused entry refuses the whole call: the allowed entries beside it are not accepted either', async () => {
  const before = local.edge.bus.events.length;
  const error = await refusal(as('marketplace-backend'), [delivered, { Source: 'holdback', DetailType: 'vendor.release_applied', Detail: '{"orderId":"o1"}' }]);
  expect(error?.name).toBe('AccessDeniedException');
  await local.edge.idle();
  expect(orderEvents.calls).toEqual([]);
  expect(local.edge.bus.events.length).toBe(before);
});

test("Holdback's functions put only what they emit: their events and a republished order.paid, no other order event", async () => {
  const functions = as(LOCAL_FUNCTIONS_ACCESS_KEY);
  const ok = await functions.send(new PutEventsCommand({
    Entries: [
      { Source: 'holdback', DetailType: 'vendor.release_applied', Detail: '{"orderId":"o1","vendorId":"v1"}' },
      { Source: 'marketplace.orders', DetailType: 'order.paid', Detail: JSON.stringify({ orderId: 'o2', transactionTime: '2022-12-02T16:05:00+05:30', vendors: [{ vendorId: 'v1', amount: '1.00' }] }) },
    ],
  }));
  expect(ok.FailedEntryCount).toBe(0);
  expect((await refusal(functions, [delivered]))?.name).toBe('AccessDeniedException');
  expect((await refusal(functions, [{ Source: 'holdback', DetailType: 'vendor.something_else', Detail: '{}' }]))?.name).toBe('AccessDeniedException');
});

test('with no producer named, any principal may put order events (the default bus), but never source holdback', async () => {
  const open = await startEdge({}, new SharedClock({ start: new Date(START), frozen: true }), { eventProducers: [] });
  const client = new EventBridgeClient({ endpoint: open.edge.url, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  try {
    expect((await client.send(new PutEventsCommand({ Entries: [delivered] }))).FailedEntryCount).toBe(0);
    const forged = await refusal(client, [{ Source: 'holdback', DetailType: 'vendor.release_applied', Detail: '{"orderId":"o1"}' }]);
    expect(forged?.name).toBe('AccessDeniedException');
    expect(forged?.message).toContain("only Holdback's functions put source holdback");
  } finally {
    client.destroy();
    await open.edge.close();
  }
});
