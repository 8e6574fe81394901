/**
 * The claim carries the send's first attempt (issue 17 item 7: fewer DynamoDB calls a release): one conditional write
 * of the release instead of two before the PUT, when the plan read after the claim sends exactly that attempt. The
 * guarantees stay: nothing of a vendor held (or an order disputed) before the reads is sent and no attempt that never
 * left stays on the record; what leaves is on the record before it leaves; a sender killed between that write and the
 * PUT never makes the release send twice.
 */
import { handleOrderEvent } from '../../../functions/application/releases/handle-order-event';
import { setVendorHold } from '../../../functions/application/releases/manage-releases';
import { releaseVendor } from '../../../functions/application/releases/release-vendor';
import { sweep } from '../../../functions/application/releases/sweep';
import type { Dependencies } from '../../../functions/application/ports';
import { INDIA_TIME, formatInstant, parseGatewayDate } from '../../../functions/domain/dates';
import type { ReleaseCommand, VendorRelease } from '../../../functions/domain/types';
import { fakeWorld, type FakeWorld } from '../../fakes/dependencies';
import { ORDER, VENDOR, paid, release, send, usePolicy } from '../scenario';

/** The immediate release of the documented example, claimed at 16:05: it sends the next gateway minute, 16:06. */
const SENT = '2022-12-02 16:06:00';
const PENDING = { at: '2022-12-02T16:05:00+05:30', request: SENT, httpStatus: null, status: 'SENT', subCode: null, message: 'sent; no answer recorded yet' };

/**
 * A world whose release function has sent one release already (another order), so that it knows the settings and
 * claims with the first attempt on; then ORDER paid, its release due at once and its command taken off the queue.
 */
async function dueRelease(): Promise<{ world: FakeWorld; command: ReleaseCommand; writes: VendorRelease[] }> {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'immediate' });
  await send(world, 'order.paid', paid('order_0999'));
  expect((await release(world, 'order_0999')).state).toBe('APPLIED');
  await handleOrderEvent(world.deps, 'order.paid', paid());
  const [command] = world.queue.take();
  const writes: VendorRelease[] = [];
  const put = world.orders.putRelease.bind(world.orders);
  world.orders.putRelease = async (r: VendorRelease, expected: number | null) => {
    await put(r, expected);
    if (r.orderId === ORDER) writes.push(r);
  };
  return { world, command, writes };
}

const attemptRecords = (world: FakeWorld) => world.audit.entries.filter((e) => e.kind === 'gateway_attempt' && e.orderId === ORDER).map((e) => e.detail);

test('a release sent: the claim is stored with its first attempt, so two writes from claim to answer instead of three', async () => {
  const { world, command, writes } = await dueRelease();
  const atPut: unknown[] = [];
  world.gateway.beforeStep = async (step, subject) => {
    if (step !== 'gateway.updateEligibility' || subject.orderId !== ORDER) return;
    const stored = await world.orders.getRelease(ORDER, VENDOR);
    atPut.push({ state: stored?.state, sending: stored?.sending?.request, attempts: stored?.attempts, audit: attemptRecords(world) });
  };
  await releaseVendor(world.deps, command);

  // On the record when the PUT leaves, as before: the release's attempt and the audit record of the request.
  expect(atPut).toEqual([{
    state: 'APPLYING', sending: SENT, attempts: [PENDING],
    audit: [{ phase: 'sent', send: 1, attempt: 1, request: { eligibility: SENT, at: '2022-12-02T16:05:00+05:30' } }],
  }]);
  expect(writes.map((w) => [w.state, w.attempts.map((a) => a.status)])).toEqual([['APPLYING', ['SENT']], ['APPLIED', ['OK']]]);
  expect(writes[0].sending?.request).toBe(SENT);
  // The early send's exposure is on the claim as reserveExposure entered it, and in the ledger.
  expect(writes[0].exposure).toEqual((await release(world)).exposure);
  expect(writes[0].exposure).not.toBeNull();
  expect(attemptRecords(world).map((d) => d.phase)).toEqual(['sent', 'answered']);
  expect(world.gateway.calls.filter((c) => c.orderId === ORDER).map((c) => c.eligibility)).toEqual([SENT]);
});

test('a hold stored between the claim and its reads: nothing sent, HELD, and the attempt that never left is not on the record', async () => {
  const { world, command, writes } = await dueRelease();
  world.config.beforeStep = async (step) => {
    if (step !== 'config.forPlanning') return;
    world.config.beforeStep = null;
    await setVendorHold(world.deps, VENDOR, { actor: 'risk@example.com', reason: 'fraud review' }, true);
  };
  await releaseVendor(world.deps, command);

  expect(writes[0]).toMatchObject({ state: 'APPLYING', attempts: [PENDING] });
  const held = await release(world);
  expect(held).toMatchObject({ state: 'HELD', holdReason: 'vendor_hold', attempts: [] });
  expect([held.sending ?? null, held.exposure ?? null]).toEqual([null, null]);
  expect(world.gateway.calls.filter((c) => c.orderId === ORDER)).toEqual([]);
  expect(attemptRecords(world)).toEqual([]);
});

test('the plan after the claim sends another date (the next gateway minute passed meanwhile): that date is what is on the record before it leaves', async () => {
  const { world, command, writes } = await dueRelease();
  world.config.beforeStep = async (step) => {
    if (step === 'config.forPlanning') world.clock.advance({ minutes: 1 });
  };
  const atPut: unknown[] = [];
  world.gateway.beforeStep = async (step, subject) => {
    if (step !== 'gateway.updateEligibility' || subject.orderId !== ORDER) return;
    const stored = await world.orders.getRelease(ORDER, VENDOR);
    atPut.push({ sending: stored?.sending?.request, attempts: stored?.attempts.map((a) => [a.request, a.status]) });
  };
  await releaseVendor(world.deps, command);

  const later = '2022-12-02 16:07:00';
  expect(writes.map((w) => w.sending?.request ?? null)).toEqual([SENT, later, null]);
  expect(atPut).toEqual([{ sending: later, attempts: [[later, 'SENT']] }]);
  expect(world.gateway.calls.filter((c) => c.orderId === ORDER).map((c) => c.eligibility)).toEqual([later]);
  expect(await release(world)).toMatchObject({ state: 'APPLIED', appliedEligibility: '2022-12-02T16:07:00+05:30', sends: 1 });
  expect(attemptRecords(world).map((d) => [d.phase, (d.request as { eligibility: string }).eligibility])).toEqual([['sent', later], ['answered', later]]);
});

/** The release function's dependencies with a process that dies after the claim was stored, before anything is sent. */
function killedBeforePut(world: FakeWorld): Dependencies {
  return {
    ...world.deps,
    gateway: {
      async updateEligibility() {
        throw new Error('process killed before the PUT');
      },
    },
  };
}

/** The same, dying after the gateway applied the PUT and before its answer came back. */
function killedAfterPut(world: FakeWorld): Dependencies {
  return {
    ...world.deps,
    gateway: {
      async updateEligibility(orderId, vendorId, eligibility, beforePut) {
        await world.gateway.updateEligibility(orderId, vendorId, eligibility, beforePut);
        world.gatewayOrders.eligibilities.set(`${orderId}/${vendorId}`, formatInstant(parseGatewayDate(eligibility)!, INDIA_TIME));
        throw new Error('process killed after the PUT');
      },
    },
  };
}

async function sweepAfterDeadline(world: FakeWorld): Promise<void> {
  world.clock.advance({ minutes: 3 });
  expect((await sweep(world.deps)).redriven).toBe(1);
  await world.deliverQueued();
}

test('a sender killed between the claim with its attempt and the PUT: the next claimant reads the recon, finds nothing, and sends once', async () => {
  const { world, command } = await dueRelease();
  await expect(releaseVendor(killedBeforePut(world), command)).rejects.toThrow('process killed');
  const stuck = await release(world);
  expect(stuck).toMatchObject({ state: 'APPLYING', attempts: [PENDING] });
  expect(stuck.sending?.request).toBe(SENT);
  expect(world.gateway.calls.filter((c) => c.orderId === ORDER)).toEqual([]);

  await sweepAfterDeadline(world);
  // The claim's attempt may have left as far as the record says: the recon is asked before anything is sent.
  expect(world.gatewayOrders.recons).toEqual([{ orderId: ORDER, vendorId: VENDOR }]);
  expect(world.gateway.calls.filter((c) => c.orderId === ORDER).map((c) => c.eligibility)).toHaveLength(1);
  const applied = await release(world);
  expect(applied).toMatchObject({ state: 'APPLIED', sending: null });
  expect(world.publisher.events.filter((e) => e.type === 'vendor.release_applied' && e.detail.orderId === ORDER)).toHaveLength(1);
  // The audit log holds the one send that left, request and answer.
  expect(attemptRecords(world).map((d) => d.phase)).toEqual(['sent', 'answered']);
});

test('a sender killed after the PUT it recorded with its claim was applied: APPLIED from the recon, exactly one PUT', async () => {
  const { world, command } = await dueRelease();
  await expect(releaseVendor(killedAfterPut(world), command)).rejects.toThrow('process killed');
  expect(await release(world)).toMatchObject({ state: 'APPLYING', attempts: [PENDING] });

  await sweepAfterDeadline(world);
  expect(world.gateway.calls.filter((c) => c.orderId === ORDER).map((c) => c.eligibility)).toEqual([SENT]);
  expect(await release(world)).toMatchObject({ state: 'APPLIED', appliedEligibility: '2022-12-02T16:06:00+05:30', sends: 1 });
  expect(attemptRecords(world).map((d) => d.phase)).toEqual(['sent', 'confirmed_from_recon']);
  expect(world.publisher.events.filter((e) => e.type === 'vendor.release_applied' && e.detail.orderId === ORDER)).toHaveLength(1);
});

test('a release scheduled after delivery: its claim carries the attempt, and the answer stores the plan\'s reason and the exposure closing from the delivery', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'immediate' }, 'vendor_w');
  await send(world, 'order.paid', paid('order_0999', [{ vendorId: 'vendor_w', amount: '10.00' }]));
  await usePolicy(world, { kind: 'after_delivery', delay: 'P1D' });
  await send(world, 'order.paid', paid());
  await send(world, 'order.delivered', { orderId: ORDER, deliveredAt: '2022-12-02T16:05:00+05:30' });
  const writes: VendorRelease[] = [];
  const put = world.orders.putRelease.bind(world.orders);
  world.orders.putRelease = async (r: VendorRelease, expected: number | null) => {
    await put(r, expected);
    if (r.orderId === ORDER) writes.push(r);
  };
  world.clock.advance({ days: 2 });
  await world.fireDueSchedules();
  await world.deliverQueued();

  expect(writes.map((w) => [w.state, w.sending?.request ?? null])).toEqual([['APPLYING', '2022-12-04 16:06:00'], ['APPLIED', null]]);
  // The claim's guess closed the exposure from the payment; the plan after it knew the delivery, and the answer says so.
  expect(writes[0].exposure).toMatchObject({ currency: 'INR', amount: '1250.50', closesAt: '2022-12-09T16:00:00+05:30' });
  const applied = await release(world);
  expect(applied).toMatchObject({ state: 'APPLIED', exposure: { currency: 'INR', amount: '1250.50', closesAt: '2022-12-09T16:05:00+05:30' } });
  expect(applied.reason).toMatch(/^applied: eligibility 2022-12-04T16:06:00\+05:30 accepted by the gateway at send 1/);
  expect((await world.deps.exposure.open(VENDOR, world.clock.now())).map((e) => e.closesAt.toText())).toEqual(['2022-12-09T16:05:00+05:30']);
  expect(attemptRecords(world).map((d) => d.phase)).toEqual(['sent', 'answered']);
});
