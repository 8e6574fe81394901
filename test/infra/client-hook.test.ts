/**
 * The composition root's client hook: the bench's call meter reaches the AWS calls of the runtime's own thread (the
 * API) and of every Lambda container only through `clientHook`; a runtime started without it meters nothing.
 */
import { join } from 'node:path';
import { AwsCallTally } from '../../bench/aws-call-meter';
import { startHarness } from '../e2e/harness';

const METER = join(__dirname, '..', '..', 'bench', 'aws-call-meter.ts');

async function callsOfOneOrder(clientHook?: string): Promise<AwsCallTally['calls']> {
  const tally = new AwsCallTally();
  const harness = await startHarness(clientHook ? { clientHook } : {});
  try {
    await harness.createVendors([{ id: 'vendor_hook', scheduleOption: 1 }]);
    await harness.setPolicy('vendor_hook', { kind: 'after_payment', delay: 'P1D' });
    const paid = await harness.createPaidOrder('order-hook-1', [{ vendorId: 'vendor_hook', amount: 200 }]);
    await harness.send('order.paid', { orderId: 'order-hook-1', transactionTime: paid, vendors: [{ vendorId: 'vendor_hook', amount: 200 }] });
    // The meter's messages cross threads on a BroadcastChannel: wait until the container's writes have arrived.
    if (clientHook) {
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && !tally.calls.has('Scheduler CreateSchedule')) await new Promise((r) => setTimeout(r, 50));
    } else {
      await new Promise((r) => setTimeout(r, 500));
    }
    return new Map(tally.calls);
  } finally {
    await harness.close();
    tally.close();
  }
}

test('with the meter as its client hook, the API thread and the containers count their AWS calls', async () => {
  const calls = await callsOfOneOrder(METER);
  // The policy PUT runs on the API's thread; the order event's plan and its schedule in a Lambda container.
  expect(calls.get('Scheduler CreateSchedule')?.calls).toBeGreaterThanOrEqual(1);
  expect(calls.get('DynamoDB PutItem')?.calls).toBeGreaterThanOrEqual(2);
});

test('without a client hook nothing is metered', async () => {
  const calls = await callsOfOneOrder();
  expect([...calls.keys()]).toEqual([]);
});
