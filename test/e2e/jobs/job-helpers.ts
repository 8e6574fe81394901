/** What the job tests share: orders seeded through the bus, and a job polled to its end. */
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { START, type Harness } from '../harness';

/** Sends `count` order.paid events of one vendor, ten to a PutEvents call, and waits until they are planned. */
export async function seedOrders(harness: Harness, vendorId: string, count: number, prefix = 'ord'): Promise<void> {
  for (let i = 0; i < count; i += 10) {
    const entries = Array.from({ length: Math.min(10, count - i) }, (_, n) => ({
      Source: 'marketplace.orders', DetailType: 'order.paid',
      Detail: JSON.stringify({ orderId: `${prefix}_${String(i + n).padStart(6, '0')}`, transactionTime: START, vendors: [{ vendorId, amount: 100 }] }),
    }));
    const out = await harness.events.send(new PutEventsCommand({ Entries: entries }));
    if (out.FailedEntryCount) throw new Error(`PutEvents refused: ${JSON.stringify(out.Entries)}`);
  }
  await harness.runtime.idle();
}

/** Polls GET /jobs/{jobId} until the job ended. */
export async function jobEnded(harness: Harness, jobId: string, waitMs = 180_000): Promise<Record<string, any>> {
  const until = Date.now() + waitMs;
  for (;;) {
    const { status, body } = await harness.api('GET', `/jobs/${jobId}`);
    expect(status).toBe(200);
    if (['succeeded', 'failed', 'cancelled'].includes(body.state)) return body;
    if (Date.now() > until) throw new Error(`job ${jobId} did not end: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
