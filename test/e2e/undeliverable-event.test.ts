/**
 * An event the order-events function never takes is listed, never dropped (issue 15): the embedded default's bus tries
 * a failing function as EventBridge does (shortened here), then lists the event in GET /rejected-events with which
 * function failed, how often and why, and what to do.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { startLocal, type LocalRuntime } from '../../local/runtime';

let folder: string;
let runtime: LocalRuntime;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'holdback-failing-function-'));
  // An order-events function whose store is down for good: every invocation fails.
  const failing = join(folder, 'order-events.js');
  writeFileSync(failing, "exports.handler = async () => { throw new Error('the order store is down'); };\n");
  runtime = await startLocal({
    apiPort: 0, edgePort: 0, sandboxPort: 0, containers: 1,
    bundles: { orderEvents: failing },
    // Four tries a few milliseconds apart instead of 185 over 24 hours.
    delivery: { quickAttempts: 2, retryDelayMs: 5, backoffMs: 10, maxBackoffMs: 20, maximumAttempts: 4 },
  });
}, 60_000);

afterAll(async () => {
  await runtime?.close();
  rmSync(folder, { recursive: true, force: true });
});

test('after its last try the event is in GET /rejected-events with the function, the tries, the error and what to do', async () => {
  const client = new EventBridgeClient({ endpoint: runtime.edge.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  let eventId: string;
  try {
    const answer = await client.send(new PutEventsCommand({ Entries: [{
      Source: 'marketplace.orders', DetailType: 'order.paid',
      Detail: JSON.stringify({ orderId: 'order-never-taken', transactionTime: runtime.clock.now().toISO(), vendors: [{ vendorId: 'v1', amount: '10.00' }] }),
    }] }));
    eventId = answer.Entries![0].EventId!;
  } finally {
    client.destroy();
  }
  type Listed = { id: string; source: string; detailType: string; reasons: string[]; detail: { orderId: string } };
  let listed: Listed | undefined;
  for (const deadline = Date.now() + 60_000; !listed && Date.now() < deadline;) {
    const page = await (await fetch(`${runtime.api.url}/rejected-events`)).json() as { rejectedEvents: Listed[] };
    listed = page.rejectedEvents.find((event) => event.id === eventId);
    if (!listed) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(listed).toMatchObject({ source: 'marketplace.orders', detailType: 'order.paid', detail: { orderId: 'order-never-taken' } });
  expect(listed!.reasons[0]).toMatch(/^not delivered: the holdback-order-events function failed 4 times over [\d.]+ h \(last error: .*the order store is down.*\); nothing of it was applied\. Put the event on the bus again once the cause is mended$/);
  expect(runtime.edge.bus.failures).toEqual([expect.objectContaining({ eventId, attempts: 4 })]);
  // Listed, it has left the bus's journal; nothing of it reached the orders.
  expect((await fetch(`${runtime.api.url}/orders/order-never-taken`)).status).toBe(404);
});
