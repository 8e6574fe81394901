/**
 * The production adapters, built by the composition root from environment variables, running unchanged against the
 * local AWS edge (AWS_ENDPOINT_URL): schedules fire the release target, events reach the rules, tables work.
 */
import { DateTime } from 'luxon';
import { SharedClock } from '../../local/clock';
import { Instant } from '../../functions/domain/instant';
import { createEdge, localSchedulerRoleArn, type Edge } from '../../local/edge/edge';
import { GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { RELEASE_QUEUE, RELEASE_SCHEDULE_GROUP } from '../../functions/definitions/routing';
import { buildDependencies, readRuntimeConfig } from '../../functions/composition-root';
import { createTableInputs, tableNamesFromEnv } from '../../functions/definitions/tables';
import type { Dependencies } from '../../functions/application/ports';
import type { VendorRelease } from '../../functions/domain/types';
import { at } from '../times';

let clock: SharedClock;
let edge: Edge;
let deps: Dependencies;
const releaseEvents: unknown[] = [];
const orderEvents: unknown[] = [];
const logLines: string[] = [];

const ENV = {
  AWS_REGION: 'us-east-1',
  HOLDBACK_ORDERS_TABLE: 'edge-orders',
  HOLDBACK_CONFIG_TABLE: 'edge-config',
  HOLDBACK_REJECTED_TABLE: 'edge-rejected',
  HOLDBACK_EVENT_BUS: 'default',
  HOLDBACK_EVENT_SOURCE: 'marketplace.orders',
  HOLDBACK_GATEWAY_BASE_URL: 'http://127.0.0.1:9',
  HOLDBACK_GATEWAY_CLIENT_ID: 'edge_client',
  HOLDBACK_GATEWAY_CLIENT_SECRET: 'edge_secret_value_31f',
  HOLDBACK_SCHEDULER_ROLE_ARN: localSchedulerRoleArn(),
};

beforeAll(async () => {
  clock = new SharedClock({ start: new Date('2022-12-02T16:05:00+05:30'), frozen: true });
  edge = await createEdge({
    port: 0,
    clock,
    tables: createTableInputs(tableNamesFromEnv(ENV)),
    targets: {
      // The release queue's records, as the event source mapping hands them over: each body is one command.
      release: async (event) => { for (const record of (event as { Records: Array<{ body: string }> }).Records) releaseEvents.push(JSON.parse(record.body)); },
      orderEvents: async (event) => { orderEvents.push(event); },
    },
    log: () => undefined,
  });
  const config = readRuntimeConfig({
    ...ENV, AWS_ENDPOINT_URL: edge.url,
    HOLDBACK_RELEASE_QUEUE_URL: edge.queues.queueUrl(RELEASE_QUEUE.name), HOLDBACK_RELEASE_QUEUE_ARN: edge.queues.arn(RELEASE_QUEUE.name),
  });
  const logger = { info: (m: string) => logLines.push(m), warn: (m: string) => logLines.push(m), error: (m: string) => logLines.push(m) };
  deps = buildDependencies(config, { clock: { now: () => Instant.fromDateTime(clock.now()) }, logger });
});
afterAll(async () => {
  await edge.close();
});

test('a release schedule puts the command on the release queue at its minute and not before; the queue drives the release target', async () => {
  const command = { orderId: 'order_1001', vendorId: 'vendor_A', releaseKey: 'rel-edge-1' };
  await deps.scheduler.schedule(command, Instant.fromDateTime(DateTime.fromISO('2022-12-17T15:00:20+05:30')));
  await deps.scheduler.schedule(command, Instant.fromDateTime(DateTime.fromISO('2022-12-17T15:00:20+05:30'))); // a conflict: success
  const armed = edge.scheduler.list().filter((s) => s.name === 'rel-edge-1');
  expect(armed).toHaveLength(1);
  expect(armed[0]).toMatchObject({ group: 'holdback-releases', expression: 'at(2022-12-17T15:01:00)', timezone: 'Asia/Kolkata', target: RELEASE_QUEUE.name });

  await clock.set(new Date('2022-12-17T15:00:59+05:30'));
  await edge.idle();
  expect(releaseEvents).toEqual([]);
  await clock.set(new Date('2022-12-17T15:01:00+05:30'));
  await edge.idle();
  expect(releaseEvents).toEqual([command]);
});

test('enqueued commands reach the release target through the queue, ten to a SendMessageBatch', async () => {
  const commands = Array.from({ length: 12 }, (_, i) => ({ orderId: `order_30${i}`, vendorId: 'vendor_B', releaseKey: `rel-q-${i}` }));
  await deps.queue.enqueue(commands);
  await edge.idle();
  expect(releaseEvents.slice(-12)).toEqual(expect.arrayContaining(commands));
});

test('a cancelled schedule never fires; cancelling it again is success', async () => {
  const command = { orderId: 'order_1002', vendorId: 'vendor_A', releaseKey: 'rel-edge-2' };
  await deps.scheduler.schedule(command, Instant.fromDateTime(clock.now().plus({ hours: 1 })));
  await deps.scheduler.cancel('rel-edge-2');
  await deps.scheduler.cancel('rel-edge-2');
  expect(edge.scheduler.list().map((s) => s.name)).not.toContain('rel-edge-2');
  await clock.advance(2 * 3_600_000);
  await edge.idle();
  expect(releaseEvents).not.toContainEqual(command);
});

test("Holdback's events go out with source holdback; a marketplace order event reaches the order-events rule", async () => {
  await deps.publisher.publish([{ type: 'vendor.release_failed', detail: { orderId: 'order_1001', vendorId: 'vendor_A', reason: 'Vendor ID does not exist', retryable: false } }]);
  const detail = { orderId: 'order_2001', transactionTime: '2022-12-02T16:00:00+05:30', vendors: [{ vendorId: 'vendor_A', amount: '10.00' }] };
  await deps.publisher.publishOrderEvent('order.paid', detail);
  await edge.idle();
  const holdback = edge.bus.find({ source: 'holdback' });
  expect(holdback.map((e) => e['detail-type'])).toEqual(['vendor.release_failed']);
  expect(orderEvents).toHaveLength(1);
  expect(orderEvents[0]).toMatchObject({ source: 'marketplace.orders', 'detail-type': 'order.paid', detail });
  // Stamped with the shared clock, not the machine's.
  expect(DateTime.fromISO((orderEvents[0] as { time: string }).time).toMillis()).toBe(Math.floor(clock.nowMs() / 1000) * 1000);
});

test('the repositories work through the edge', async () => {
  const release: VendorRelease = {
    orderId: 'order_3001', vendorId: 'vendor_A', amount: '10.00', state: 'SCHEDULED', policyVersion: 0, rule: { kind: 'immediate' },
    scheduleOption: 1, transactionTime: at('2022-12-02T16:00:00+05:30'), maxEligibility: at('2022-12-17T16:00:00+05:30'),
    targetEligibility: at('2022-12-02T16:00:00+05:30'), sendAt: at('2022-12-02T16:00:00+05:30'), releaseKey: null,
    appliedEligibility: null, predictedSettlement: null, clamp: null, attempts: [], reason: null, settledAt: null,
    version: 1, updatedAt: at('2022-12-02T16:00:00+05:30'),
  };
  await deps.orders.putRelease(release, null);
  expect(await deps.orders.listDue(at('2022-12-02T16:00:00+05:30'), 10)).toEqual([release]);
  expect((await deps.settings.get()).version).toBe(0);
});

test("every release schedule the composition root creates names the schedules' dead-letter queue from HOLDBACK_SCHEDULE_DEAD_LETTER_ARN", async () => {
  const deadLetterArn = edge.queues.arn('holdback-schedule-dead-letters');
  const config = readRuntimeConfig({
    ...ENV, AWS_ENDPOINT_URL: edge.url,
    HOLDBACK_RELEASE_QUEUE_URL: edge.queues.queueUrl(RELEASE_QUEUE.name), HOLDBACK_RELEASE_QUEUE_ARN: edge.queues.arn(RELEASE_QUEUE.name),
    HOLDBACK_SCHEDULE_DEAD_LETTER_ARN: deadLetterArn,
  });
  const withDeadLetters = buildDependencies(config, { clock: { now: () => Instant.fromDateTime(clock.now()) }, logger: { info: () => undefined, warn: () => undefined, error: () => undefined } });
  await withDeadLetters.scheduler.schedule({ orderId: 'order_1002', vendorId: 'vendor_A', releaseKey: 'rel-dlq-1' }, Instant.fromDateTime(DateTime.fromISO('2022-12-18T15:00:00+05:30')));
  const client = new SchedulerClient({ endpoint: edge.url, region: ENV.AWS_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  try {
    const got = await client.send(new GetScheduleCommand({ Name: 'rel-dlq-1', GroupName: RELEASE_SCHEDULE_GROUP }));
    expect(got.Target?.DeadLetterConfig).toEqual({ Arn: deadLetterArn });
  } finally {
    client.destroy();
  }
});
