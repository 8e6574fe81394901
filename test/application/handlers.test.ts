/** The Lambda entry points around the use cases: envelopes in, answers out, and what they must not throw. */
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { lazyDependencies } from '../../functions/handlers/dependencies';
import { makeOrderEventsHandler } from '../../functions/handlers/order-events';
import { makeReleaseHandler } from '../../functions/handlers/release';
import { makeSweepHandler } from '../../functions/handlers/sweep';
import { fakeWorld } from '../fakes/dependencies';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { PowertoolsReleaseMetrics } from '../../functions/adapters/metrics/powertools-metrics';
import { METRIC } from '../../functions/definitions/metric-names';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ORDER, VENDOR, paid, release, send, usePolicy } from './scenario';
import { setVendorHold } from '../../functions/application/releases/manage-releases';

const context = {} as Context;
const envelope = (detailType: string, detail: unknown): EventBridgeEvent<string, unknown> => ({
  version: '0', id: 'evt-1', 'detail-type': detailType, source: 'marketplace.orders', account: '000000000000',
  time: '2022-12-02T10:30:00Z', region: 'ap-south-1', resources: [], detail,
});

/** One release queue message as the SQS event source hands it over. */
const record = (messageId: string, body: string) => ({ messageId, body, receiptHandle: messageId, attributes: {}, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:ap-south-1:000000000000:holdback-releases', awsRegion: 'ap-south-1' });

/** An order paid on a one-day policy, its release now due, and the release function's entry point. */
async function releaseDue() {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_payment', delay: 'P1D' });
  await makeOrderEventsHandler(() => world.deps)(envelope('order.paid', paid()), context);
  const handler = makeReleaseHandler(() => world.deps);
  world.clock.set('2022-12-03T15:00:00+05:30');
  return { world, handler };
}

test('order-events: a valid event is applied; a malformed one is answered as rejected, not thrown (no EventBridge retry)', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_payment', delay: 'P3D' });
  const handler = makeOrderEventsHandler(() => world.deps);

  expect(await handler(envelope('order.paid', paid()), context)).toEqual({
    outcome: 'accepted', orderId: ORDER, duplicate: false, states: { [VENDOR]: 'SCHEDULED' },
  });
  const rejected = await handler(envelope('order.paid', { orderId: ORDER }), context);
  expect(rejected).toMatchObject({ outcome: 'rejected', id: 'evt-1' });
  expect(world.rejected.items[0]).toMatchObject({ id: 'evt-1', source: 'marketplace.orders' });
});

test('release: a Scheduler input sends the release; something else is answered, not thrown', async () => {
  const { world, handler } = await releaseDue();

  expect(await handler({ orderId: ORDER, vendorId: VENDOR }, context)).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(/releaseKey is missing$/) });
  expect(world.logger.lines.filter((l) => l.level === 'error').map((l) => l.fields?.reason)).toEqual(['releaseKey is missing']);
  expect(await handler(world.scheduler.created[0].command, context)).toMatchObject({ outcome: 'applied' });
  expect((await release(world)).state).toBe('APPLIED');
});

test('release: an SQS batch runs each command; a record that is not a command or that threw is a batch item failure', async () => {
  const { world, handler } = await releaseDue();
  const command = world.scheduler.created[0].command;

  const answer = await handler({ Records: [
    record('m-1', JSON.stringify(command)),
    record('m-2', '{"orderId": "order_1001"}'),
    record('m-3', 'not json'),
    // A duplicate of m-1: it finds the release sent and does nothing.
    record('m-4', JSON.stringify(command)),
  ] } as never, context);

  expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-2' }, { itemIdentifier: 'm-3' }] });
  expect(world.gateway.calls).toHaveLength(1);
  expect((await release(world)).state).toBe('APPLIED');
  const poison = world.logger.lines.filter((l) => l.message.startsWith('queue message is not a release command'));
  expect(poison.map((l) => [l.fields?.messageId, l.fields?.reason])).toEqual([['m-2', 'vendorId is missing'], ['m-3', 'the body is not a JSON object']]);

  // A record whose command throws (the table is unreachable) fails alone; SQS delivers it again.
  world.orders.getRelease = async () => { throw new Error('ECONNRESET'); };
  expect(await handler({ Records: [record('m-5', JSON.stringify(command))] } as never, context)).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-5' }] });
});

test('release: while the gateway secret is not filled in, a batch sends nothing, claims nothing, is acknowledged and counted as paused; once filled in, the same command sends', async () => {
  const { world } = await releaseDue();
  let ready = false;
  world.deps.gatewayReady = async () => ready;
  const metrics = new PowertoolsReleaseMetrics(new Metrics({ namespace: 'Holdback', serviceName: 'holdback-test' }));
  const handler = makeReleaseHandler(() => world.deps, metrics);
  const command = world.scheduler.created[0].command;
  const before = (await release(world)).state;
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => { lines.push(String(chunk)); return true; });
  try {
    expect(await handler({ Records: [record('p-1', JSON.stringify(command)), record('p-2', JSON.stringify(command))] } as never, context)).toEqual({ batchItemFailures: [] });
  } finally {
    write.mockRestore();
  }
  expect(world.gateway.calls).toHaveLength(0);
  expect((await release(world)).state).toBe(before);
  expect(world.logger.lines.map((l) => l.message)).toContainEqual(expect.stringMatching(/^releases paused: the gateway secret does not hold the credentials yet/));
  const emf = lines.flatMap((l) => l.split('\n')).filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(emf.map((m) => m[METRIC.releasesPaused.name]).filter((v) => v !== undefined)).toEqual([2]);

  ready = true;
  expect(await handler({ Records: [record('p-3', JSON.stringify(command))] } as never, context)).toEqual({ batchItemFailures: [] });
  expect(world.gateway.calls).toHaveLength(1);
  expect((await release(world)).state).toBe('APPLIED');
});

test('sweep: a release whose schedule was lost is put on the release queue again, counted as a re-drive', async () => {
  const { world } = await releaseDue();
  const command = world.scheduler.created[0].command;
  const metrics = new PowertoolsReleaseMetrics(new Metrics({ namespace: 'Holdback', serviceName: 'holdback-test' }));
  const sweepHandler = makeSweepHandler(() => world.deps, metrics);
  // Not yet overdue: the schedule (send at 15:05) still has its chance.
  expect(await sweepHandler({}, context)).toEqual({ examined: 1, redriven: 0, errors: 0 });
  expect(world.queue.take()).toEqual([]);

  // The schedule never fired; past its grace the sweep sends the command down the one send path.
  world.clock.set('2022-12-03T15:30:00+05:30');
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => { lines.push(String(chunk)); return true; });
  try {
    expect(await sweepHandler({}, context)).toEqual({ examined: 1, redriven: 1, errors: 0 });
  } finally {
    write.mockRestore();
  }
  expect(world.queue.take()).toEqual([command]);
  expect(world.gateway.calls).toHaveLength(0);
  const redriven = lines.flatMap((l) => l.split('\n')).filter((l) => l.includes(METRIC.sweepRedriven.name)).map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(redriven.map((m) => m[METRIC.sweepRedriven.name])).toEqual([1]);
});

test('sweep: once an hour it counts held money the gateway settles anyway within holdWarning (HeldSettlingSoon)', async () => {
  const world = fakeWorld('2022-12-02T16:00:00+05:30');
  await usePolicy(world, { kind: 'immediate' });
  await setVendorHold(world.deps, VENDOR, { actor: 'risk@example.com', reason: 'fraud review', source: 'risk' }, true);
  await send(world, 'order.paid', paid());
  expect((await release(world)).state).toBe('HELD');
  const metrics = new PowertoolsReleaseMetrics(new Metrics({ namespace: 'Holdback', serviceName: 'holdback-test' }));
  const sweepHandler = makeSweepHandler(() => world.deps, metrics);
  const counted = async (at: string): Promise<unknown[]> => {
    world.clock.set(at);
    const lines: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => { lines.push(String(chunk)); return true; });
    try {
      await sweepHandler({}, context);
    } finally {
      write.mockRestore();
    }
    return lines.flatMap((l) => l.split('\n')).filter((l) => l.includes(METRIC.heldSettlingSoon.name)).map((l) => (JSON.parse(l) as Record<string, unknown>)[METRIC.heldSettlingSoon.name]);
  };
  // Max eligibility Sat 17 Dec 16:00 IST, settled anyway by option 1 (T+1 working day) on Mon 19 Dec at 11:00 IST: far beyond P2D on 10 Dec: counted, zero.
  expect(await counted('2022-12-10T12:00:00Z')).toEqual([0]);
  // Not on the (UTC) hour: not counted at all.
  expect(await counted('2022-12-16T12:30:00Z')).toEqual([]);
  // On 17 Dec at 11:30 IST it settles within two days: one alert.
  expect(await counted('2022-12-17T06:00:00Z')).toEqual([1]);
});

test('dependencies are built once; a failed build is retried on the next invocation', async () => {
  let builds = 0;
  const world = fakeWorld();
  const deps = lazyDependencies(() => {
    builds += 1;
    if (builds === 1) throw new Error('HOLDBACK_ORDERS_TABLE is not set');
    return world.deps;
  });
  await expect(deps()).rejects.toThrow(/not set/);
  expect(await deps()).toBe(world.deps);
  expect(await deps()).toBe(world.deps);
  expect(builds).toBe(2);
});

test('observability: a release applied and one retried are published as CloudWatch metrics (EMF), with lateness and 429s', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_payment', delay: 'P1D' });
  await makeOrderEventsHandler(() => world.deps)(envelope('order.paid', paid()), context);
  const metrics = new PowertoolsReleaseMetrics(new Metrics({ namespace: 'Holdback', serviceName: 'holdback-test' }));
  const handler = makeReleaseHandler(() => world.deps, metrics);
  // The planned send was 15:00 the next day; it leaves 10 minutes late, and the gateway first answers 429.
  world.clock.set('2022-12-03T15:10:00+05:30');
  world.gateway.answerNext({ kind: 'response', httpStatus: 429, status: 'ERROR', subCode: '429', message: 'Too many requests', retryAfterSeconds: 1 });
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => { lines.push(String(chunk)); return true; });
  try {
    await handler(world.scheduler.created[0].command, context);
    world.clock.set('2022-12-03T15:20:00+05:30');
    const retries = [...world.scheduler.takeDue(world.clock.now()).map((d) => d.command), ...world.queue.take()];
    expect(retries.length).toBeGreaterThan(0);
    for (const command of retries) await handler(command, context);
  } finally {
    write.mockRestore();
  }
  const emf = lines.flatMap((l) => l.split('\n')).filter((l) => l.includes('"_aws"')).map((l) => JSON.parse(l) as Record<string, unknown>);
  const metricNames = emf.flatMap((m) => ((m._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] }).CloudWatchMetrics[0].Metrics).map((x) => x.Name));
  expect(metricNames).toEqual(expect.arrayContaining([METRIC.retried.name, METRIC.rateLimited.name, METRIC.sendLateness.name, METRIC.applied.name]));
  const lateness = emf.find((m) => METRIC.sendLateness.name in m)![METRIC.sendLateness.name];
  expect(lateness).toBe(600);
  expect(emf.every((m) => (m._aws as { CloudWatchMetrics: { Namespace: string }[] }).CloudWatchMetrics[0].Namespace === 'Holdback')).toBe(true);
});

test('the events the release function emits match their published contracts (applied; failed with drift)', async () => {
  const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
  const schemaOf = (type: string) => JSON.parse(fs.readFileSync(path.join(__dirname, '../../functions/contracts/published/v1', `${type}.schema.json`), 'utf8')) as object;
  const checked = (events: { type: string; detail: unknown }[]) => events.map((e) => {
    const validate = ajv.compile(schemaOf(e.type));
    return [e.type, validate(e.detail), validate.errors];
  });

  const applied = await releaseDue();
  await applied.handler(applied.world.scheduler.created[0].command, context);
  expect(checked(applied.world.publisher.events)).toEqual([['vendor.release_applied', true, null]]);

  const drifted = await releaseDue();
  drifted.world.gateway.answerNext({ kind: 'response', httpStatus: 400, status: 'ERROR', subCode: '400', message: 'Settlement eligibility cannot be beyond max_eligibity_date. Provide an earlier date' });
  await drifted.handler(drifted.world.scheduler.created[0].command, context);
  expect(checked(drifted.world.publisher.events).sort()).toEqual([['config.drift_detected', true, null], ['vendor.release_failed', true, null]]);
});
