/**
 * Issue 15.5 on the whole embedded default: a long clock move answers at once with ?wait=false, shows its progress on
 * GET /_local/clock, and the API, the sandbox and the edge answer while it runs; every due release still goes at its
 * own due time (contract section 7).
 */
import { DateTime } from 'luxon';
import { START, startHarness, type Harness } from './harness';

const ORDERS = 12;
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.createVendors([{ id: 'vendor_a', scheduleOption: 1 }]);
  await h.setPolicy('vendor_a', { kind: 'after_payment', delay: 'P1D' });
}, 120_000);
afterAll(() => h?.close());

type ClockAnswer = { now: string; advancing?: { from: string; to: string; fired: number; pending: number } };
const clockNow = async (): Promise<ClockAnswer> => (await (await fetch(`${h.runtime.edge.url}/_local/clock`)).json()) as ClockAnswer;
async function until(seen: (answer: ClockAnswer) => boolean): Promise<ClockAnswer> {
  for (;;) {
    const answer = await clockNow();
    if (seen(answer)) return answer;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test('POST /_local/clock?wait=false: 202 at once, progress on GET, other requests served meanwhile, each release sent at its own time', async () => {
  const paidAt: string[] = [];
  for (let i = 0; i < ORDERS; i += 1) {
    const orderId = `order_adv_${i}`;
    const transactionTime = await h.createPaidOrder(orderId, [{ vendorId: 'vendor_a', amount: 100 + i }]);
    await h.send('order.paid', { orderId, transactionTime, vendors: [{ vendorId: 'vendor_a', amount: 100 + i }] });
    paidAt.push(transactionTime);
  }
  // A timer on the shared clock half a day on holds the move there until the test has looked: the move is then
  // under way for as long as it takes, whatever the machine's speed.
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => { open = resolve; });
  const gateAt = DateTime.fromISO(START).plus({ hours: 12 });
  h.runtime.clock.at(gateAt.toMillis(), () => gate);

  const answer = await fetch(`${h.runtime.edge.url}/_local/clock?wait=false`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advance": "P2D"}' });
  expect(answer.status).toBe(202);
  const held = await until((seen) => seen.now === gateAt.toUTC().toISO());
  expect(held.advancing).toMatchObject({ to: DateTime.fromISO(START).plus({ days: 2 }).toUTC().toISO(), pending: expect.any(Number) });
  // The 12 releases (sent an hour before their target, a day after payment) are still due.
  expect(held.advancing!.pending).toBeGreaterThanOrEqual(ORDERS);

  // Served while the move runs: the API, the sandbox, and the edge's own AWS calls.
  expect((await h.api('GET', '/health')).status).toBe(200);
  expect(await h.api('GET', '/orders/order_adv_0')).toMatchObject({ status: 200, body: { vendors: [{ state: 'SCHEDULED' }] } });
  expect((await h.gateway('GET', '/pg/easy-split/orders/order_adv_0')).status).toBe(200);
  expect((await (await fetch(`${h.runtime.edge.url}/_local/schedules`)).json() as { schedules: unknown[] }).schedules.length).toBeGreaterThanOrEqual(ORDERS);

  open();
  await until((seen) => seen.advancing === undefined);
  await h.runtime.idle();
  for (let i = 0; i < ORDERS; i += 1) {
    const target = DateTime.fromISO(paidAt[i]).plus({ days: 1 }).setZone('Asia/Kolkata').toISO({ suppressMilliseconds: true });
    const { body } = await h.api('GET', `/orders/order_adv_${i}`);
    // Sent at its own time (releaseLead before the target), so with the target itself, not with a later minute.
    expect(body.vendors[0]).toMatchObject({ state: expect.stringMatching(/^(APPLIED|SETTLED)$/), appliedEligibility: target });
  }
  expect([...(await h.appliedAtGateway()).values()]).toEqual(Array(ORDERS).fill(1));
}, 180_000);
