/**
 * The stale-claim race (issue 9.2): a dispute or a vendor hold stored while a due release is being claimed and sent.
 * The release function writes its claim, THEN reads the order and the hold: whatever was stored before that read is
 * seen, so no money of a disputed or held vendor leaves. Shown by pausing the release function before each of its
 * steps in turn and running the dispute (or the hold) in full there.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { handleOrderEvent } from '../../functions/application/releases/handle-order-event';
import { setVendorHold } from '../../functions/application/releases/manage-releases';
import { releaseVendor } from '../../functions/application/releases/release-vendor';
import type { ReleaseCommand } from '../../functions/domain/types';
import { fakeWorld, type FakeWorld } from '../fakes/dependencies';
import { ORDER, VENDOR, paid, release, usePolicy } from './scenario';
import { at } from '../times';

/** A paid order whose one release is due at once: PLANNED, its command on the queue. */
async function dueRelease(): Promise<{ world: FakeWorld; command: ReleaseCommand }> {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'immediate' });
  await handleOrderEvent(world.deps, 'order.paid', paid());
  const [command] = world.queue.take();
  expect((await release(world)).state).toBe('PLANNED');
  return { world, command };
}

/** Every step the release function takes, in order, from a run without interference. */
async function stepsOfRelease(): Promise<string[]> {
  const { world, command } = await dueRelease();
  const steps: string[] = [];
  hook(world, async (step) => { steps.push(step); });
  await releaseVendor(world.deps, command);
  return steps;
}

function hook(world: FakeWorld, fn: ((step: string) => Promise<void>) | null): void {
  const h = fn && ((step: string) => fn(step));
  world.orders.beforeStep = h;
  world.holds.beforeStep = h;
  world.config.beforeStep = h;
  world.gateway.beforeStep = h;
}

/**
 * Runs the release function with `interfere` run in full just before its step number `at` (steps of `interfere`
 * itself are not counted). Answers whether the interference ran before the release function's read of `readStep`.
 */
async function raceAt(world: FakeWorld, command: ReleaseCommand, at: number, readStep: string, interfere: () => Promise<void>): Promise<{ beforeRead: boolean }> {
  // The interference's own steps run in its own async context; the release function's reads that run in parallel
  // (the order and the config) wait until the interference is done, so each step is either before or after it.
  const interferer = new AsyncLocalStorage<boolean>();
  let index = 0;
  let done: Promise<void> | null = null;
  let readSeen = false;
  let beforeRead = false;
  hook(world, async (step) => {
    if (interferer.getStore()) return;
    if (index === at && !done) {
      beforeRead = !readSeen;
      done = interferer.run(true, interfere);
    }
    if (done) await done;
    if (step === readStep) readSeen = true;
    index += 1;
  });
  await releaseVendor(world.deps, command);
  if (!done) {
    // The release function took fewer steps than `at`: the interference comes after it.
    hook(world, null);
    await interfere();
  }
  hook(world, null);
  await world.deliverQueued();
  return { beforeRead };
}

/**
 * Races `interfere` against a fresh due release before each of its `stepCount` steps and after the last. Stored before
 * the release function's read of `readStep`, it must stop the send (the release ends as `held`); stored after, the
 * PUT was already decided and is sent once, and not again. Answers `step:state:sends` for each position.
 */
async function raceAtEveryStep(stepCount: number, readStep: string, interfere: (world: FakeWorld) => Promise<void>, held: object): Promise<string[]> {
  const seen: string[] = [];
  for (let at = 0; at <= stepCount; at++) {
    const { world, command } = await dueRelease();
    const { beforeRead } = await raceAt(world, command, at, readStep, () => interfere(world));
    const final = await release(world);
    seen.push(`${at}:${final.state}:${world.gateway.calls.length}`);
    if (beforeRead) {
      expect(world.gateway.calls).toEqual([]);
      expect(final).toMatchObject(held);
    } else {
      expect(world.gateway.calls).toHaveLength(1);
      expect(final.state).toBe('APPLIED');
    }
  }
  return seen;
}

describe('a dispute racing the claim of a due release, at every step of the release function', () => {
  test('stored before the post-claim read: nothing is sent and the release is HELD; after it: sent once', async () => {
    const steps = await stepsOfRelease();
    expect(steps).toEqual([
      // The claim, the reads after it, the attempt recorded before the PUT leaves, the PUT, the answer.
      'orders.getRelease', 'orders.putRelease', 'orders.loadOrder', 'config.forPlanning', 'orders.putRelease', 'gateway.updateEligibility', 'orders.putRelease',
    ]);
    const seen = await raceAtEveryStep(steps.length, 'orders.loadOrder', async (world) => {
      await handleOrderEvent(world.deps, 'order.dispute_opened', { orderId: ORDER, openedAt: '2022-12-02T16:04:00+05:30' });
    }, { state: 'HELD', holdReason: 'dispute', reason: 'dispute open' });
    // Before the claim's read (steps 0 to 2) the dispute holds the money; from the read on it comes too late.
    expect(seen).toEqual(['0:HELD:0', '1:HELD:0', '2:HELD:0', '3:APPLIED:1', '4:APPLIED:1', '5:APPLIED:1', '6:APPLIED:1', '7:APPLIED:1']);
  });

  test('a cancellation stored before the read drops the release: CANCELLED, nothing sent', async () => {
    const { world, command } = await dueRelease();
    await raceAt(world, command, 2, 'orders.loadOrder', async () => {
      await handleOrderEvent(world.deps, 'order.cancelled', { orderId: ORDER, cancelledAt: '2022-12-02T16:04:30+05:30' });
    });
    expect(world.gateway.calls).toEqual([]);
    expect((await release(world)).state).toBe('CANCELLED');
  });

  test('a dispute closed merchant_won while the claimant holds the release HELD is not lost: it is sent after all', async () => {
    const { world, command } = await dueRelease();
    await handleOrderEvent(world.deps, 'order.dispute_opened', { orderId: ORDER, openedAt: '2022-12-02T16:04:00+05:30' });
    // The dispute's planning found the release PLANNED and held it; put it back as a stale claimant would find it.
    const held = await release(world);
    expect(held.state).toBe('HELD');
    await world.orders.putRelease({ ...held, state: 'PLANNED', holdReason: null, sendAt: at('2022-12-02T16:05:00+05:30'), releaseKey: command.releaseKey, version: held.version + 1 }, held.version);
    // The close arrives after the claimant read the open dispute and before it writes HELD: the close's planning finds
    // APPLYING and leaves it to the claimant, which reads again after its write.
    await raceAt(world, command, 4, 'orders.loadOrder', async () => {
      await handleOrderEvent(world.deps, 'order.dispute_closed', { orderId: ORDER, closedAt: '2022-12-02T16:04:40+05:30', resolution: 'merchant_won' });
    });
    expect(world.gateway.calls).toHaveLength(1);
    expect((await release(world)).state).toBe('APPLIED');
  });
});

describe('time passing between the claim and the send', () => {
  test('a date later than the claim recorded is stored as in flight before it is sent, and then APPLIED', async () => {
    const { world, command } = await dueRelease();
    const inFlight: (string | null | undefined)[] = [];
    hook(world, async (step) => {
      // Two minutes pass after the claim, before its read: the next gateway minute is no longer the claimed one.
      if (step === 'orders.loadOrder') world.clock.advance({ minutes: 2 });
      // What the release says may be in flight when the PUT leaves.
      if (step === 'gateway.updateEligibility') inFlight.push([...world.orders.releases.values()].find((r) => r.orderId === ORDER && r.vendorId === VENDOR)?.sending?.request);
    });
    await releaseVendor(world.deps, command);
    hook(world, null);
    expect(world.gateway.calls.map((c) => c.eligibility)).toEqual(['2022-12-02 16:08:00']);
    expect(inFlight).toEqual(['2022-12-02 16:08:00']);
    expect(await release(world)).toMatchObject({ state: 'APPLIED', sends: 1, sending: null });
  });
});

describe('a vendor hold racing the claim of a due release, at every step of the release function', () => {
  test('stored before the post-claim read of the hold: nothing is sent and the release is HELD vendor_hold', async () => {
    const steps = await stepsOfRelease();
    const seen = await raceAtEveryStep(steps.length, 'config.forPlanning', async (world) => {
      await setVendorHold(world.deps, VENDOR, { actor: 'risk@example.com', reason: 'fraud review' }, true);
    }, { state: 'HELD', holdReason: 'vendor_hold', reason: expect.stringMatching(/^vendor hold by risk@example.com at .*: fraud review$/) });
    expect(seen).toEqual(['0:HELD:0', '1:HELD:0', '2:HELD:0', '3:HELD:0', '4:APPLIED:1', '5:APPLIED:1', '6:APPLIED:1', '7:APPLIED:1']);
  });

  test('an unhold racing a claimant that read the hold: the release is planned again, never left HELD', async () => {
    const { world, command } = await dueRelease();
    await world.holds.put({ vendorId: VENDOR, held: true, actor: 'risk@example.com', reason: 'fraud review', at: at('2022-12-02T16:04:00+05:30') });
    // The unhold lands after the claimant read the hold, before it writes HELD.
    await raceAt(world, command, 4, 'config.forPlanning', async () => {
      await setVendorHold(world.deps, VENDOR, { actor: 'risk@example.com', reason: 'cleared' }, false);
    });
    expect(world.gateway.calls).toHaveLength(1);
    expect((await release(world)).state).toBe('APPLIED');
  });
});
