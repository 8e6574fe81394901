/**
 * The Scheduler and EventBridge adapters as the AWS wire sees them (aws-wire.md): a loopback server records the
 * requests of the functions' senders (scheduler-requests.ts, eventbridge-requests.ts) and answers as AWS would, including the error answers the adapters must absorb or report.
 */
import { DateTime } from 'luxon';
import { SchedulerRequests } from '../../functions/adapters/scheduler/scheduler-requests';
import { EventBridgeRequests } from '../../functions/adapters/eventbridge/eventbridge-requests';
import { atExpression, EventBridgeReleaseScheduler } from '../../functions/adapters/scheduler/eventbridge-release-scheduler';
import { EventBridgePublisher } from '../../functions/adapters/eventbridge/eventbridge-publisher';
import type { HoldbackEvent } from '../../functions/domain/types';
import { answer, startScriptedServer, type ScriptedServer } from './gateway/scripted-http-server';
import { at } from '../times';
import { Instant } from '../../functions/domain/instant';

const QUEUE_ARN = 'arn:aws:sqs:ap-south-1:123456789012:holdback-releases';
const ROLE_ARN = 'arn:aws:iam::123456789012:role/holdback-scheduler';
/** The functions' senders without SDK clients (adapters/aws-http/signed-request.ts), as the functions build them. */
const sdk = (endpoint: string) => ({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer(() => answer(200, {}));
});
afterEach(async () => {
  await server.close();
});

describe('atExpression', () => {
  test('India wall time, rounded up to the whole minute so a release never fires early', () => {
    const at = (iso: string) => atExpression(Instant.parse(iso, 'at'), 'Asia/Kolkata');
    expect(at('2022-12-17T15:00:00+05:30')).toBe('at(2022-12-17T15:00:00)');
    expect(at('2022-12-17T09:30:00Z')).toBe('at(2022-12-17T15:00:00)');
    expect(at('2022-12-17T09:30:00.001Z')).toBe('at(2022-12-17T15:01:00)');
    expect(at('2022-12-17T18:29:30Z')).toBe('at(2022-12-18T00:00:00)');
    expect(atExpression(Instant.parse('2022-12-17T09:30:00Z', 'at'), 'UTC')).toBe('at(2022-12-17T09:30:00)');
  });

  test('on the number, the same wall time luxon gives, across daylight saving and offsets of 30 and 45 minutes', () => {
    const byLuxon = (ms: number, zone: string) => {
      const local = DateTime.fromMillis(ms, { zone });
      const minute = local.startOf('minute');
      return `at(${(minute < local ? minute.plus({ minutes: 1 }) : minute).toFormat("yyyy-MM-dd'T'HH:mm:ss")})`;
    };
    const zones = ['Asia/Kolkata', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham'];
    // Each hour and a few odd seconds around the 2022 changes of daylight saving in the northern and southern zones.
    const starts = ['2022-03-13T00:00:00Z', '2022-03-27T00:00:00Z', '2022-04-02T12:00:00Z', '2022-10-01T12:00:00Z', '2022-10-30T00:00:00Z', '2022-11-06T00:00:00Z'];
    let compared = 0;
    for (const zone of zones) {
      for (const start of starts) {
        for (let step = 0; step < 12 * 60; step += 7) {
          const ms = Date.parse(start) + step * 60_000 + (step % 3) * 20_001;
          expect([zone, ms, atExpression(Instant.at(ms, 'UTC'), zone)]).toEqual([zone, ms, byLuxon(ms, zone)]);
          compared += 1;
        }
      }
    }
    expect(compared).toBe(zones.length * starts.length * Math.ceil((12 * 60) / 7));
  });

  test('India time and UTC are written without asking Intl (a CreateSchedule of every release at ingest); a zone with daylight saving asks it', () => {
    const formatToParts = jest.spyOn(Intl.DateTimeFormat.prototype, 'formatToParts');
    try {
      // Distinct minutes, so that nothing the zone or luxon keeps can answer in place of the offset's computation.
      for (let minute = 0; minute < 25; minute++) {
        const at = Instant.at(Date.parse('2022-12-17T09:30:00Z') + minute * 60_000 + 1, 'UTC');
        expect(atExpression(at, 'Asia/Kolkata')).toBe(`at(2022-12-17T15:${String(minute + 1).padStart(2, '0')}:00)`);
        expect(atExpression(at, 'UTC')).toBe(`at(2022-12-17T09:${String(minute + 31).padStart(2, '0')}:00)`);
      }
      expect(formatToParts).not.toHaveBeenCalled();
      expect(atExpression(Instant.parse('2022-07-01T09:30:00Z', 'at'), 'Europe/London')).toBe('at(2022-07-01T10:30:00)');
      expect(formatToParts).toHaveBeenCalled();
    } finally {
      formatToParts.mockRestore();
    }
  });
});

describe('EventBridgeReleaseScheduler', () => {
  const command = { orderId: 'order_1001', vendorId: 'vendor_A', releaseKey: 'rel-0123456789abcdef-1' };

  test('CreateSchedule: one-time, exact, deleted after completion, targeting the release queue with the command as the message body', async () => {
    server.script(answer(200, { ScheduleArn: 'arn:aws:scheduler:local:1:schedule/holdback-releases/rel-0123456789abcdef-1' }));
    const scheduler = new EventBridgeReleaseScheduler(new SchedulerRequests(sdk(server.url)), {
      releaseQueueArn: QUEUE_ARN, schedulerRoleArn: ROLE_ARN,
    });
    await scheduler.schedule(command, Instant.fromDateTime(DateTime.fromISO('2022-12-17T15:00:20+05:30', { setZone: true })));
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/schedules/rel-0123456789abcdef-1');
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({
      GroupName: 'holdback-releases',
      ScheduleExpression: 'at(2022-12-17T15:01:00)',
      ScheduleExpressionTimezone: 'Asia/Kolkata',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      State: 'ENABLED',
      Target: {
        Arn: QUEUE_ARN,
        RoleArn: ROLE_ARN,
        RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 },
      },
    });
    expect(JSON.parse(body.Target.Input)).toEqual(command);
  });

  test('a name that exists already (409 ConflictException) is success; other errors are not', async () => {
    const scheduler = new EventBridgeReleaseScheduler(new SchedulerRequests(sdk(server.url)), {
      releaseQueueArn: QUEUE_ARN, schedulerRoleArn: ROLE_ARN, groupName: 'custom-group',
    });
    server.script(
      answer(409, { Message: 'Schedule rel-0123456789abcdef-1 already exists.' }, { 'x-amzn-ErrorType': 'ConflictException' }),
      answer(400, { Message: 'Invalid RoleArn' }, { 'x-amzn-ErrorType': 'ValidationException' }),
    );
    await expect(scheduler.schedule(command, Instant.fromDateTime(DateTime.fromISO('2022-12-17T15:00:00+05:30')))).resolves.toBeUndefined();
    await expect(scheduler.schedule(command, Instant.fromDateTime(DateTime.fromISO('2022-12-17T15:00:00+05:30')))).rejects.toMatchObject({ name: 'ValidationException' });
    expect(JSON.parse(server.requests[0].body).GroupName).toBe('custom-group');
  });

  // What Scheduler answers for a role created moments ago whose trust IAM has not yet propagated.
  const notYetAssumable = () => answer(400, { Message: 'The execution role you provide must allow AWS EventBridge Scheduler to assume the role.' }, { 'x-amzn-ErrorType': 'ValidationException' });

  test('right after deploy, "the execution role cannot be assumed" is retried with backoff: two refusals then one schedule', async () => {
    const waits: number[] = [];
    const scheduler = new EventBridgeReleaseScheduler(new SchedulerRequests(sdk(server.url)), {
      releaseQueueArn: QUEUE_ARN, schedulerRoleArn: ROLE_ARN, sleep: async (ms) => { waits.push(ms); },
    });
    server.script(notYetAssumable(), notYetAssumable(), answer(200, { ScheduleArn: 'arn:aws:scheduler:local:1:schedule/holdback-releases/rel-0123456789abcdef-1' }));
    await expect(scheduler.schedule(command, Instant.fromDateTime(DateTime.fromISO('2022-12-17T15:00:00+05:30')))).resolves.toBeUndefined();
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((r) => r.path)).toEqual(Array(3).fill('/schedules/rel-0123456789abcdef-1'));
    expect(waits).toEqual([500, 1000]);
  });

  test('the propagation refusal is given about 30 s in all (one budget for every schedule of the container), then reported; any other ValidationException is not retried', async () => {
    const waits: number[] = [];
    const scheduler = new EventBridgeReleaseScheduler(new SchedulerRequests(sdk(server.url)), {
      releaseQueueArn: QUEUE_ARN, schedulerRoleArn: ROLE_ARN, sleep: async (ms) => { waits.push(ms); },
    });
    server.script(...Array.from({ length: 8 }, notYetAssumable));
    await expect(scheduler.schedule(command, Instant.fromDateTime(DateTime.fromISO('2022-12-17T15:00:00+05:30')))).rejects.toMatchObject({ name: 'ValidationException' });
    expect(waits.reduce((a, b) => a + b, 0)).toBe(30_000);
    expect(server.requests).toHaveLength(waits.length + 1);

    // One budget for the container, not one per schedule: the next release refused so is reported without a wait.
    waits.length = 0;
    server.script(notYetAssumable());
    await expect(scheduler.schedule(command, Instant.fromDateTime(DateTime.fromISO('2022-12-17T15:00:00+05:30')))).rejects.toMatchObject({ name: 'ValidationException' });
    expect(waits).toEqual([]);

    const before = server.requests.length;
    server.script(answer(400, { Message: 'Invalid RoleArn' }, { 'x-amzn-ErrorType': 'ValidationException' }));
    await expect(scheduler.schedule(command, Instant.fromDateTime(DateTime.fromISO('2022-12-17T15:00:00+05:30')))).rejects.toMatchObject({ name: 'ValidationException', message: 'Invalid RoleArn' });
    expect(server.requests.length - before).toBe(1);
    expect(waits).toEqual([]);
  });

  test('DeleteSchedule in the group; a missing schedule (404) is success', async () => {
    const scheduler = new EventBridgeReleaseScheduler(new SchedulerRequests(sdk(server.url)), {
      releaseQueueArn: QUEUE_ARN, schedulerRoleArn: ROLE_ARN,
    });
    server.script(
      answer(200, {}),
      answer(404, { Message: 'Schedule not found' }, { 'x-amzn-ErrorType': 'ResourceNotFoundException' }),
    );
    await scheduler.cancel('rel-0123456789abcdef-1');
    await scheduler.cancel('rel-0123456789abcdef-1');
    expect(server.requests.map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
    const url = new URL(server.requests[0].path, 'http://x');
    expect(url.pathname).toBe('/schedules/rel-0123456789abcdef-1');
    expect(url.searchParams.get('groupName')).toBe('holdback-releases');
  });

  test('a release key that is not a schedule name is refused before any request', async () => {
    const scheduler = new EventBridgeReleaseScheduler(new SchedulerRequests(sdk(server.url)), {
      releaseQueueArn: QUEUE_ARN, schedulerRoleArn: ROLE_ARN,
    });
    await expect(scheduler.cancel('rel/../x')).rejects.toThrow(/^releaseKey: .*send 1 to 64 characters/);
    await expect(scheduler.schedule({ ...command, releaseKey: 'r'.repeat(65) }, Instant.fromDateTime(DateTime.now()))).rejects.toThrow(/^releaseKey: /);
    expect(server.requests).toHaveLength(0);
  });
});

describe('EventBridgePublisher', () => {
  const applied = (i: number): HoldbackEvent => ({
    type: 'vendor.release_applied',
    detail: { orderId: `order_${i}`, vendorId: 'vendor_A', eligibility: at('2022-12-06T09:00:00+05:30'), predictedSettlement: at('2022-12-07T11:00:00+05:30') },
  });
  const accepted = (count: number) => ({ FailedEntryCount: 0, Entries: Array.from({ length: count }, (_, i) => ({ EventId: `e${i}` })) });
  const publisher = (now?: () => DateTime) =>
    new EventBridgePublisher(new EventBridgeRequests(sdk(server.url)).putEvents, { eventBusName: 'holdback-bus', orderEventSource: 'shop.orders', now: now && (() => Instant.fromDateTime(now())) });

  test('PutEvents with source holdback, the event type as detail-type, in batches of at most 10', async () => {
    server.fallback = (request) => answer(200, accepted(JSON.parse(request.body).Entries.length));
    const events = Array.from({ length: 23 }, (_, i) => applied(i));
    await publisher(() => DateTime.fromISO('2022-12-06T03:30:00Z')).publish(events);
    expect(server.requests.map((r) => JSON.parse(r.body).Entries.length)).toEqual([10, 10, 3]);
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/');
    expect(request.headers['x-amz-target']).toBe('AWSEvents.PutEvents');
    expect(request.headers['content-type']).toBe('application/x-amz-json-1.1');
    const entry = JSON.parse(request.body).Entries[0];
    expect(entry).toMatchObject({ Source: 'holdback', DetailType: 'vendor.release_applied', EventBusName: 'holdback-bus' });
    expect(JSON.parse(entry.Detail)).toEqual(events[0].detail);
    expect(entry.Time).toBe(DateTime.fromISO('2022-12-06T03:30:00Z').toSeconds());
  });

  test('entries that failed alone are sent once more, and only they', async () => {
    server.script(
      answer(200, { FailedEntryCount: 1, Entries: [{ EventId: 'a' }, { ErrorCode: 'InternalFailure', ErrorMessage: 'try again' }, { EventId: 'c' }] }),
      answer(200, accepted(1)),
    );
    await publisher().publish([applied(1), applied(2), applied(3)]);
    expect(server.requests).toHaveLength(2);
    const retried = JSON.parse(server.requests[1].body).Entries;
    expect(retried).toHaveLength(1);
    expect(JSON.parse(retried[0].Detail).orderId).toBe('order_2');
  });

  test('entries failing twice are reported with their error codes', async () => {
    const failing = { FailedEntryCount: 1, Entries: [{ ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' }] };
    server.script(answer(200, failing), answer(200, failing));
    await expect(publisher().publish([applied(1)])).rejects.toThrow(
      'EventBridge rejected 1 of 1 events after a retry: vendor.release_applied: ThrottlingException (Rate exceeded)',
    );
  });

  test('an order event on behalf of the marketplace carries the marketplace source', async () => {
    server.fallback = () => answer(200, accepted(1));
    const detail = { orderId: 'order_1001', transactionTime: '2022-12-02T16:00:00+05:30', vendors: [{ vendorId: 'vendor_A', amount: '100.00' }] };
    await publisher().publishOrderEvent('order.paid', detail);
    const [entry] = JSON.parse(server.requests[0].body).Entries;
    expect(entry).toMatchObject({ Source: 'shop.orders', DetailType: 'order.paid', EventBusName: 'holdback-bus' });
    expect(JSON.parse(entry.Detail)).toEqual(detail);
    expect(entry.Time).toBeUndefined();
  });

  test('with a linger, publishes of separate turns within it share one PutEvents; without, the first turn goes alone', async () => {
    server.fallback = (request) => answer(200, accepted(JSON.parse(request.body).Entries.length));
    const turns = async (target: EventBridgePublisher) => {
      const sent: Promise<void>[] = [];
      for (let i = 0; i < 4; i++) {
        sent.push(target.publish([applied(i)]));
        // A later turn of the event loop, well within the linger.
        await new Promise((resolve) => setImmediate(resolve));
      }
      await Promise.all(sent);
    };
    await turns(publisher());
    const sizes = server.requests.map((r) => JSON.parse(r.body).Entries.length);
    expect(sizes[0]).toBe(1);
    expect(sizes.reduce((a, b) => a + b)).toBe(4);
    server.requests.length = 0;
    const lingering = new EventBridgePublisher(new EventBridgeRequests(sdk(server.url)).putEvents, { eventBusName: 'holdback-bus', lingerMs: 200 });
    await turns(lingering);
    expect(server.requests.map((r) => JSON.parse(r.body).Entries.length)).toEqual([4]);
  });

  test('nothing to publish sends nothing', async () => {
    await publisher().publish([]);
    expect(server.requests).toHaveLength(0);
  });
});
