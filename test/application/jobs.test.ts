/**
 * The job engine (contract 6.3) over in-memory ports: a release that fails is named with its reason while the job
 * carries on; a step that keeps failing ends its job `failed` on its last delivery (the jobs function reads SQS's
 * receive count), never before; a message that is not a step is refused.
 */
import { createHash } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { startExport } from '../../functions/application/audit/export-job';
import { outcomesCsv } from '../../functions/application/outcome-rows';
import { setVendorHold } from '../../functions/application/releases/manage-releases';
import { runJobStep } from '../../functions/handlers/job-steps/job-steps';
import { makeJobsHandler } from '../../functions/handlers/jobs';
import { runWalkJobStep } from '../../functions/handlers/job-steps/walk-job-steps';
import { runExportJobStep } from '../../functions/handlers/job-steps/export-job-steps';
import { JOB_QUEUE } from '../../functions/definitions/routing';
import { Instant } from '../../functions/domain/instant';
import { fakeWorld } from '../fakes/dependencies';
import { lambdaContext } from '../../local/lambda/lambda-context';
import { VENDOR, paid, release, send, usePolicy } from './scenario';

const RISK = { actor: 'risk@example.com', reason: 'fraud review' };

async function heldWorldWithTwoOrders() {
  const world = fakeWorld();
  await usePolicy(world, { kind: 'after_payment', delay: 'P1D' });
  await send(world, 'order.paid', paid('order_1001'));
  await send(world, 'order.paid', paid('order_1002'));
  const held = await setVendorHold(world.deps, VENDOR, RISK, true);
  return { world, jobId: held.job!.jobId };
}

test('a release that cannot be planned is named with its reason; the job carries on with the others and succeeds', async () => {
  const { world, jobId } = await heldWorldWithTwoOrders();
  world.orders.beforeStep = async (step, subject) => {
    if (step === 'orders.loadOrder' && subject.orderId === 'order_1002') throw new Error('table unavailable for this order');
  };
  await world.runJobs();
  expect(await world.jobs.get(jobId)).toMatchObject({
    state: 'succeeded', total: 2, done: 1, failed: 1,
    failures: [{ orderId: 'order_1002', vendorId: VENDOR, reason: 'Error: table unavailable for this order' }],
  });
  expect(await release(world, 'order_1001')).toMatchObject({ state: 'HELD', holdReason: 'vendor_hold' });
});

test('a step that keeps failing is delivered again until its last receive, which ends the job failed with the step and reason', async () => {
  const { world, jobId } = await heldWorldWithTwoOrders();
  const [step] = world.jobQueue.waiting.splice(0);
  world.deps.reads.openOrderIds = async () => { throw new Error('index unavailable'); };
  const handler = makeJobsHandler(async () => world.deps);
  const event = (receives: number): SQSEvent => ({
    Records: [{ messageId: `m${receives}`, body: JSON.stringify(step), attributes: { ApproximateReceiveCount: String(receives) } } as never],
  });
  // Not the last receive: the message is reported failed, so SQS delivers it again; the job waits.
  expect(await handler(event(1), lambdaContext('holdback-jobs'))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
  expect((await world.jobs.get(jobId))!.state).toBe('queued');
  // The last receive (the queue's maxReceiveCount): the job ends failed, saying which step and why.
  expect(await handler(event(JOB_QUEUE.maxReceiveCount), lambdaContext('holdback-jobs'))).toEqual({ batchItemFailures: [] });
  expect(await world.jobs.get(jobId)).toMatchObject({ state: 'failed', error: expect.stringMatching(new RegExp(`^step ${VENDOR}:0 failed on its last delivery: Error: index unavailable$`)) });
  // A step of an ended job changes nothing.
  expect(await runJobStep(world.deps, step)).toEqual({ outcome: 'skipped', reason: `job ${jobId} is failed` });
  // A message that is not a step goes back to the queue (and to its dead-letter queue after its receives).
  expect(await handler({ Records: [{ messageId: 'bad', body: '{"nope": 1}', attributes: {} } as never] }, lambdaContext('holdback-jobs')))
    .toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] });
});

test('an outcomes export runs a part a step from a stored cursor: a step cut by a timeout is delivered again and carries on from its part, and the file is the whole CSV', async () => {
  const world = fakeWorld();
  world.deps.exportPartRows = 2;
  await usePolicy(world, { kind: 'after_payment', delay: 'P1D' });
  const orderIds = Array.from({ length: 7 }, (_, i) => `order_20${String(i).padStart(2, '0')}`);
  for (const orderId of orderIds) await send(world, 'order.paid', paid(orderId));
  const job = await startExport(world.deps, { kind: 'outcomes', format: 'csv', filters: { vendorId: VENDOR } });

  // Where each read of the outcomes starts; the third part's first read is cut short (a function timeout).
  const reads = world.deps.reads;
  const outcomes = reads.outcomes.bind(reads);
  const starts: (string | null)[] = [];
  let cut = false;
  reads.outcomes = (filter, after) => {
    starts.push(after);
    if (starts.length === 3 && !cut) {
      cut = true;
      return (async function* timedOut() { throw new Error('Task timed out after 900.00 seconds'); })();
    }
    return outcomes(filter, after);
  };
  const steps: string[] = [];
  for (let round = 0; round < 20 && world.jobQueue.waiting.length > 0; round += 1) {
    const step = world.jobQueue.waiting[0];
    steps.push(step.step);
    try {
      await runJobStep(world.deps, step);
      world.jobQueue.waiting.shift();
    } catch (error) {
      // SQS delivers the same message again; nothing of it was recorded.
      expect(String(error)).toMatch(/timed out/);
    }
  }
  reads.outcomes = outcomes;
  expect(steps).toEqual(['part:0', 'part:1', 'part:2', 'part:2', 'part:3', 'file']);
  // Each part read once from where the one before stopped (the cut part twice from the same place), never from the start again.
  expect(starts[0]).toBeNull();
  expect(starts.filter((s) => s === null)).toHaveLength(1);
  expect(starts[2]).toBe(starts[3]);

  const done = (await world.jobs.get(job.jobId))!;
  expect(done).toMatchObject({ state: 'succeeded', total: 7, done: 7, failed: 0, result: { rows: 7 } });
  const file = world.exports.files.get(`${job.jobId}.csv`)!.text;
  let whole = '';
  for await (const chunk of outcomesCsv(world.deps, { by: 'transaction', vendorId: VENDOR })) whole += chunk;
  expect(file).toBe(whole);
  expect(file.trim().split('\r\n')).toHaveLength(8);
  const result = done.result as { bytes: number; sha256: string };
  expect(result).toMatchObject({ bytes: Buffer.byteLength(whole), sha256: createHash('sha256').update(whole).digest('hex') });
  // The parts are gone once the file is written; the last step delivered again answers the same file.
  expect(world.exports.parts.size).toBe(0);
  expect(await world.exports.combine(`${job.jobId}.csv`, 'text/csv', 4)).toEqual({ bytes: result.bytes, sha256: result.sha256 });
});

describe('a walk step plans its page as a batch', () => {
  const orderIds = Array.from({ length: 6 }, (_, i) => `order_30${i}`);

  async function scheduledWorld() {
    const world = fakeWorld();
    await usePolicy(world, { kind: 'after_payment', delay: 'P1D' });
    for (const orderId of orderIds) await send(world, 'order.paid', paid(orderId));
    return world;
  }

  test("the vendor's config and hold are read once for the page, every schedule is cancelled and each order's stream gets its record in one append", async () => {
    const world = await scheduledWorld();
    const keys = await Promise.all(orderIds.map(async (orderId) => (await release(world, orderId)).releaseKey));
    const reads: string[] = [];
    world.config.beforeStep = async (step) => { reads.push(step); };
    world.holds.beforeStep = async (step) => { reads.push(step); };
    const appends: number[] = [];
    const append = world.audit.append.bind(world.audit);
    world.audit.append = async (entries) => { appends.push(entries.length); return append(entries); };
    const held = await setVendorHold(world.deps, VENDOR, RISK, true);
    reads.length = 0;
    appends.length = 0;
    await world.runJobs();
    expect(await world.jobs.get(held.job!.jobId)).toMatchObject({ state: 'succeeded', total: 6, done: 6, failed: 0 });
    // One planning read of the config, and one read of the hold after the writes (write, then read), for six releases.
    expect(reads).toEqual(['config.forPlanning', 'holds.get']);
    expect(appends).toEqual([6]);
    expect(world.scheduler.cancelled.sort()).toEqual([...keys].sort());
    for (const orderId of orderIds) expect(await release(world, orderId)).toMatchObject({ state: 'HELD', holdReason: 'vendor_hold' });
  });

  test('a write that lost a race is planned again from what won, and an event stored after the page read its order is seen by the read after the write', async () => {
    const world = await scheduledWorld();
    await setVendorHold(world.deps, VENDOR, RISK, true);
    await world.runJobs();
    const unheld = await setVendorHold(world.deps, VENDOR, RISK, false);
    // The first write of the page finds its release written meanwhile by a writer that read the hold before the unhold
    // (a lost race: HELD again, a version up); a dispute of another order is stored after the page read that order,
    // its own planning finding the release still HELD.
    let raced: string | null = null;
    world.orders.beforePut = async (r) => {
      raced = r.orderId;
      const stale = await release(world, r.orderId);
      await world.orders.putRelease({ ...stale, version: stale.version + 1 }, stale.version);
    };
    let disputed: string | null = null;
    world.orders.beforeStep = async (step, subject) => {
      if (step !== 'orders.putRelease' || disputed !== null || subject.orderId === orderIds[0]) return;
      disputed = subject.orderId!;
      await world.orders.recordEvent({
        key: `order.dispute_opened#${disputed}`, orderId: disputed, receivedAt: Instant.parse('2022-12-02T16:06:00+05:30', 'receivedAt'),
        event: { type: 'order.dispute_opened', orderId: disputed, openedAt: Instant.parse('2022-12-02T16:06:00+05:30', 'openedAt') },
      });
    };
    await world.runJobs();
    world.orders.beforeStep = null;
    expect(await world.jobs.get(unheld.job!.jobId)).toMatchObject({ state: 'succeeded', total: 6, done: 6, failed: 0 });
    expect(disputed).not.toBeNull();
    expect(raced).toBe(orderIds[0]);
    expect(await release(world, disputed!)).toMatchObject({ state: 'HELD', holdReason: 'dispute' });
    for (const orderId of orderIds.filter((id) => id !== disputed)) expect(await release(world, orderId)).toMatchObject({ state: 'SCHEDULED', holdReason: null });
  });
});

test('each job function runs its own kinds: an export step enqueued without its kind (before the split) is sent on, routed by it; one that carries its kind and reached the wrong function fails, saying so', async () => {
  const world = fakeWorld();
  await usePolicy(world, { kind: 'after_payment', delay: 'P1D' });
  await send(world, 'order.paid', paid('order_3001'));
  const job = await startExport(world.deps, { kind: 'outcomes', format: 'csv', filters: { vendorId: VENDOR } });
  const [step] = world.jobQueue.waiting.splice(0);
  // The step names its job's kind, which routes it (SqsJobQueue; test/adapters/sqs-job-queue.test.ts).
  expect(step.kind).toBe('outcomes_export');
  const { kind: _kind, ...beforeTheSplit } = step;
  expect(await runWalkJobStep(world.deps, beforeTheSplit)).toEqual({ outcome: 'skipped', reason: 'a outcomes_export step is run by another function: sent on to its queue' });
  expect(world.jobQueue.waiting).toEqual([step]);
  expect(await world.jobs.get(job.jobId)).toMatchObject({ state: 'queued', finished: [] });
  await expect(runWalkJobStep(world.deps, step)).rejects.toThrow('this function does not run outcomes_export steps, and its queue has no function that does (HOLDBACK_EXPORT_JOB_QUEUE_URL names the export job queue)');
  // The walk and preview kinds are not the export function's either.
  const held = await setVendorHold(world.deps, VENDOR, RISK, true);
  const walk = world.jobQueue.waiting.find((s) => s.jobId === held.job!.jobId)!;
  await expect(runExportJobStep(world.deps, walk)).rejects.toThrow('does not run vendor_hold steps');
  // Its own function runs it to the end.
  world.jobQueue.waiting.splice(0, world.jobQueue.waiting.length, step);
  for (let round = 0; round < 20 && world.jobQueue.waiting.length > 0; round += 1) await runExportJobStep(world.deps, world.jobQueue.waiting.shift()!);
  expect(await world.jobs.get(job.jobId)).toMatchObject({ state: 'succeeded', total: 1, done: 1 });
});
