/**
 * The job engine (contract 6.3) over in-memory ports: a release that fails is named with its reason while the job
 * carries on; a step that keeps failing ends its job `failed` on its last delivery (the jobs function reads SQS's
 * receive count), never before; a message that is not a step is refused.
 */
import type { SQSEvent } from 'aws-lambda';
import { setVendorHold } from '../../functions/application/releases/manage-releases';
import { runJobStep } from '../../functions/handlers/job-steps';
import { makeJobsHandler } from '../../functions/handlers/jobs';
import { JOB_QUEUE } from '../../functions/definitions/routing';
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
