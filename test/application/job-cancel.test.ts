/**
 * POST /jobs/{jobId}/cancel over in-memory ports (contract 6.3): a cancelled job stops at its next step, and every
 * release is left in a state the contract allows: those its finished step planned under the change, the others as
 * they were; the hold itself stays in force from its own answer. A job that has ended cannot be cancelled.
 */
import { cancelJob } from '../../functions/application/jobs/cancel-job';
import { runJobStep } from '../../functions/handlers/job-steps/job-steps';
import { WALK_PAGE } from '../../functions/application/release-walk';
import { setVendorHold } from '../../functions/application/releases/manage-releases';
import { fakeWorld } from '../fakes/dependencies';
import { VENDOR, paid, send, usePolicy } from './scenario';

/** More than one walk step, so that a step remains after the first. */
const ORDERS = WALK_PAGE + 30;

test('a hold job cancelled after its first step stops there: one page HELD, the rest SCHEDULED as they were, the hold in force', async () => {
  const world = fakeWorld();
  await usePolicy(world, { kind: 'after_payment', delay: 'P1D' });
  for (let i = 0; i < ORDERS; i += 1) await send(world, 'order.paid', paid(`order_${String(1000 + i)}`));
  const held = await setVendorHold(world.deps, VENDOR, { actor: 'risk@example.com', reason: 'fraud review' }, true);
  const jobId = held.job!.jobId;

  // The first step reads page 0 (and opens page 1), plans its releases HELD.
  expect(await runJobStep(world.deps, world.jobQueue.waiting.shift()!)).toEqual({ outcome: 'done' });
  expect(world.jobQueue.waiting).toHaveLength(1);

  const cancelled = await cancelJob(world.deps, jobId, { actor: 'ops@example.com', reason: 'started by mistake' });
  expect(cancelled).toMatchObject({ jobId, state: 'cancelled', done: WALK_PAGE, error: 'cancelled by ops@example.com: started by mistake' });
  expect(cancelled.finishedAt).toMatch(/\+05:30$/);

  // The step still queued sees the cancel and changes nothing.
  expect(await runJobStep(world.deps, world.jobQueue.waiting.shift()!)).toEqual({ outcome: 'skipped', reason: `job ${jobId} is cancelled` });
  const states = new Map<string, number>();
  for (const r of world.orders.releases.values()) states.set(`${r.state}/${r.holdReason ?? '-'}`, (states.get(`${r.state}/${r.holdReason ?? '-'}`) ?? 0) + 1);
  expect(states).toEqual(new Map([['HELD/vendor_hold', WALK_PAGE], ['SCHEDULED/-', ORDERS - WALK_PAGE]]));
  // The hold is in force whatever the job did: a release claimed now reads it and is not sent.
  expect(await world.deps.holds.get(VENDOR)).toMatchObject({ actor: 'risk@example.com' });
  expect(await world.jobs.get(jobId)).toMatchObject({ state: 'cancelled', done: WALK_PAGE, total: WALK_PAGE });

  // Ended: nothing to cancel (409), and bad input names its field.
  await expect(cancelJob(world.deps, jobId, undefined)).rejects.toMatchObject({ code: 'job_ended', message: expect.stringMatching(/has ended already \(cancelled\)/) });
  await expect(cancelJob(world.deps, 'job_0000000000000_aaaaaaaaaa', {})).rejects.toMatchObject({ name: 'NotFoundError' });
  await expect(cancelJob(world.deps, 'nope', {})).rejects.toMatchObject({ issues: [{ field: 'jobId' }] });
  await expect(cancelJob(world.deps, jobId, { actor: 7, when: 'now' })).rejects.toMatchObject({ issues: [{ field: 'actor' }, { field: 'when' }] });
});
