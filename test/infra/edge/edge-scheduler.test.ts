/** The edge's EventBridge Scheduler through the real AWS SDK, and schedules firing on the shared clock. */
import {
  ConflictException, CreateScheduleCommand, DeleteScheduleCommand, GetScheduleCommand, ListSchedulesCommand,
  ResourceNotFoundException, SchedulerClient, UpdateScheduleCommand, ValidationException, type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { RELEASE_SCHEDULE_GROUP, SWEEP_SCHEDULE } from '../../../functions/definitions/routing';
import { SharedClock } from '../../../local/clock';
import { localFunctionArn, localSchedulerRoleArn } from '../../../local/edge/edge';
import { credentials, recordingTarget, region, startEdge, START, type TestEdge } from '../local-edge';

/** A one-time release schedule as Holdback's adapter would create it. */
function releaseSchedule(name: string, at: string, input: object, extra: Partial<CreateScheduleCommandInput> = {}): CreateScheduleCommandInput {
  return {
    Name: name,
    GroupName: RELEASE_SCHEDULE_GROUP,
    ScheduleExpression: `at(${at})`,
    ScheduleExpressionTimezone: 'Asia/Kolkata',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    Target: { Arn: localFunctionArn('release'), RoleArn: localSchedulerRoleArn(), Input: JSON.stringify(input) },
    ...extra,
  };
}

describe('Scheduler operations', () => {
  const clock = new SharedClock({ start: new Date(START), frozen: true });
  let local: TestEdge;
  let scheduler: SchedulerClient;

  beforeAll(async () => {
    local = await startEdge({ release: recordingTarget(clock).target }, clock);
    scheduler = new SchedulerClient({ endpoint: local.edge.url, region, credentials });
  });

  afterAll(async () => {
    scheduler.destroy();
    await local.edge.close();
  });

  test('create, get, list and delete a schedule', async () => {
    const created = await scheduler.send(new CreateScheduleCommand(releaseSchedule('rel-a-1', '2022-12-05T09:00:00', { releaseKey: 'rel-a-1' })));
    expect(created.ScheduleArn).toBe(`arn:aws:scheduler:us-east-1:000000000000:schedule/${RELEASE_SCHEDULE_GROUP}/rel-a-1`);

    const got = await scheduler.send(new GetScheduleCommand({ Name: 'rel-a-1', GroupName: RELEASE_SCHEDULE_GROUP }));
    expect(got).toMatchObject({
      Name: 'rel-a-1', GroupName: RELEASE_SCHEDULE_GROUP, Arn: created.ScheduleArn, State: 'ENABLED',
      ScheduleExpression: 'at(2022-12-05T09:00:00)', ScheduleExpressionTimezone: 'Asia/Kolkata', ActionAfterCompletion: 'DELETE',
      Target: { Arn: localFunctionArn('release'), Input: '{"releaseKey":"rel-a-1"}' },
    });
    expect(got.CreationDate).toEqual(new Date(START));

    const listed = await scheduler.send(new ListSchedulesCommand({ GroupName: RELEASE_SCHEDULE_GROUP, NamePrefix: 'rel-a' }));
    expect(listed.Schedules?.map((s) => [s.Name, s.Target?.Arn])).toEqual([['rel-a-1', localFunctionArn('release')]]);
    const armed = (await (await fetch(`${local.edge.url}/_local/schedules`)).json()) as { schedules: Array<{ name: string; dueAt: string }> };
    // 09:00 in Kolkata is 03:30 UTC.
    expect(armed.schedules).toContainEqual(expect.objectContaining({ name: 'rel-a-1', dueAt: '2022-12-05T03:30:00.000Z' }));

    await scheduler.send(new DeleteScheduleCommand({ Name: 'rel-a-1', GroupName: RELEASE_SCHEDULE_GROUP }));
    await expect(scheduler.send(new GetScheduleCommand({ Name: 'rel-a-1', GroupName: RELEASE_SCHEDULE_GROUP })))
      .rejects.toBeInstanceOf(ResourceNotFoundException);
    expect(local.edge.scheduler.list().map((s) => s.name)).not.toContain('rel-a-1');
  });

  test('a taken name in the group is a ConflictException; the same name in another group is not', async () => {
    await scheduler.send(new CreateScheduleCommand(releaseSchedule('rel-b-1', '2022-12-05T09:00:00', {})));
    await expect(scheduler.send(new CreateScheduleCommand(releaseSchedule('rel-b-1', '2022-12-06T09:00:00', {}))))
      .rejects.toBeInstanceOf(ConflictException);
    await scheduler.send(new CreateScheduleCommand(releaseSchedule('rel-b-1', '2022-12-06T09:00:00', {}, { GroupName: 'other' })));
  });

  test('deleting a missing schedule is a ResourceNotFoundException', async () => {
    await expect(scheduler.send(new DeleteScheduleCommand({ Name: 'rel-missing', GroupName: RELEASE_SCHEDULE_GROUP })))
      .rejects.toBeInstanceOf(ResourceNotFoundException);
  });

  test.each([
    ['a name with a space and !', releaseSchedule('bad name!', '2022-12-05T09:00:00', {}), 'Name'],
    ['a name of 65 characters', releaseSchedule('x'.repeat(65), '2022-12-05T09:00:00', {}), 'Name'],
    ['an at() with an offset', releaseSchedule('rel-c-1', '2022-12-05T09:00:00+05:30', {}), 'ScheduleExpression'],
    ['rate(1 minutes)', { ...releaseSchedule('rel-c-2', '2022-12-05T09:00:00', {}), ScheduleExpression: 'rate(1 minutes)' }, 'ScheduleExpression'],
    ['an unknown time zone', releaseSchedule('rel-c-3', '2022-12-05T09:00:00', {}, { ScheduleExpressionTimezone: 'Mars/Olympus' }), 'ScheduleExpressionTimezone'],
    ['a target that is not a local function', releaseSchedule('rel-c-4', '2022-12-05T09:00:00', {}, { Target: { Arn: 'arn:aws:lambda:us-east-1:000000000000:function:nope', RoleArn: 'r' } }), 'Target.Arn'],
  ])('%s is a ValidationException naming the field', async (_label, input, field) => {
    const error = await scheduler.send(new CreateScheduleCommand(input)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationException);
    expect((error as Error).message).toContain(field);
  });

  test('update of a missing schedule is a ResourceNotFoundException', async () => {
    await expect(scheduler.send(new UpdateScheduleCommand(releaseSchedule('rel-none', '2022-12-05T09:00:00', {}))))
      .rejects.toBeInstanceOf(ResourceNotFoundException);
  });
});

describe('Schedules firing on the shared clock', () => {
  let clock: SharedClock;
  let release: ReturnType<typeof recordingTarget>;
  let local: TestEdge;
  let scheduler: SchedulerClient;

  beforeEach(async () => {
    clock = new SharedClock({ start: new Date(START), frozen: true }); // 16:05 in Kolkata
    release = recordingTarget(clock);
    local = await startEdge({ release: release.target }, clock);
    scheduler = new SchedulerClient({ endpoint: local.edge.url, region, credentials });
  });

  afterEach(async () => {
    scheduler.destroy();
    await local.edge.close();
  });

  test('a future schedule fires once, at its own due time, when the clock advances past it, and is then deleted', async () => {
    await scheduler.send(new CreateScheduleCommand(releaseSchedule('rel-d-1', '2022-12-02T18:00:00', { releaseKey: 'rel-d-1' })));
    const noon = await local.setClock({ advance: 'PT1H' });
    expect(noon.body.now).toBe('2022-12-02T11:35:00.000Z');
    expect(release.calls).toEqual([]);

    const answer = await local.setClock({ advance: 'PT6H' });
    expect(answer).toEqual({ status: 200, body: { now: '2022-12-02T17:35:00.000Z' } });
    // 18:00 in Kolkata is 12:30 UTC; the handler gets the Input itself, no envelope.
    expect(release.calls).toEqual([{ at: '2022-12-02T12:30:00.000Z', event: { releaseKey: 'rel-d-1' } }]);
    await expect(scheduler.send(new GetScheduleCommand({ Name: 'rel-d-1', GroupName: RELEASE_SCHEDULE_GROUP })))
      .rejects.toBeInstanceOf(ResourceNotFoundException);

    await local.setClock({ advance: 'P2D' });
    expect(release.calls).toHaveLength(1);
  });

  test('several schedules fire in time order on one advance, each seeing its own time', async () => {
    await scheduler.send(new CreateScheduleCommand(releaseSchedule('rel-e-3', '2022-12-04T10:00:00', { n: 3 })));
    await scheduler.send(new CreateScheduleCommand(releaseSchedule('rel-e-1', '2022-12-02T17:00:00', { n: 1 })));
    await scheduler.send(new CreateScheduleCommand(releaseSchedule('rel-e-2', '2022-12-03T08:15:00', { n: 2 }, { ScheduleExpressionTimezone: 'UTC' })));
    await local.setClock({ now: '2022-12-05T00:00:00+05:30' });
    expect(release.calls).toEqual([
      { at: '2022-12-02T11:30:00.000Z', event: { n: 1 } },
      { at: '2022-12-03T08:15:00.000Z', event: { n: 2 } },
      { at: '2022-12-04T04:30:00.000Z', event: { n: 3 } },
    ]);
  });

  test('a kept one-time schedule (ActionAfterCompletion NONE) stays after firing but never fires again', async () => {
    await scheduler.send(new CreateScheduleCommand(releaseSchedule('rel-f-1', '2022-12-02T17:00:00', {}, { ActionAfterCompletion: 'NONE' })));
    await local.setClock({ advance: 'P1D' });
    await local.setClock({ advance: 'P1D' });
    expect(release.calls).toHaveLength(1);
    const got = await scheduler.send(new GetScheduleCommand({ Name: 'rel-f-1', GroupName: RELEASE_SCHEDULE_GROUP }));
    expect(got.Name).toBe('rel-f-1');
  });

  test('a disabled schedule and a deleted one do not fire; an updated one fires at its new time only', async () => {
    await scheduler.send(new CreateScheduleCommand(releaseSchedule('rel-g-1', '2022-12-02T17:00:00', {}, { State: 'DISABLED' })));
    await scheduler.send(new CreateScheduleCommand(releaseSchedule('rel-g-2', '2022-12-02T17:00:00', {})));
    await scheduler.send(new DeleteScheduleCommand({ Name: 'rel-g-2', GroupName: RELEASE_SCHEDULE_GROUP }));
    await scheduler.send(new CreateScheduleCommand(releaseSchedule('rel-g-3', '2022-12-02T17:00:00', { v: 1 })));
    await scheduler.send(new UpdateScheduleCommand(releaseSchedule('rel-g-3', '2022-12-02T20:00:00', { v: 2 })));
    await local.setClock({ advance: 'P1D' });
    expect(release.calls).toEqual([{ at: '2022-12-02T14:30:00.000Z', event: { v: 2 } }]);
  });

  test('a jump past a rate() schedule\'s EndDate still runs its last period inside the window, then stops', async () => {
    await scheduler.send(new CreateScheduleCommand({
      ...releaseSchedule('rate-end', '2022-12-02T17:00:00', {}),
      ScheduleExpression: 'rate(1 minute)', ActionAfterCompletion: 'NONE', EndDate: new Date('2022-12-02T10:38:30Z'),
    }));
    await local.setClock({ advance: 'PT10M' });
    expect(release.calls.map((c) => c.at)).toEqual(['2022-12-02T10:36:00.000Z', '2022-12-02T10:38:00.000Z']);
    expect(local.edge.scheduler.list()).toContainEqual(expect.objectContaining({ name: 'rate-end', dueAt: null }));
  });

  test('a failing invocation is tried up to three times at its due time', async () => {
    const flakyClock = new SharedClock({ start: new Date(START), frozen: true });
    const flaky = recordingTarget(flakyClock, 2);
    const other = await startEdge({ release: flaky.target }, flakyClock);
    const client = new SchedulerClient({ endpoint: other.edge.url, region, credentials });
    try {
      await client.send(new CreateScheduleCommand(releaseSchedule('rel-h-1', '2022-12-02T17:00:00', { k: 1 })));
      await other.setClock({ advance: 'PT2H' });
      expect(flaky.calls.map((c) => c.at)).toEqual(Array(3).fill('2022-12-02T11:30:00.000Z'));
      expect(other.edge.scheduler.list()).toEqual([]);
    } finally {
      client.destroy();
      await other.edge.close();
    }
  });
});

test('the edge creates the rate(1 minute) sweep; a jump coalesces the minutes it skips into one run at its end', async () => {
  const clock = new SharedClock({ start: new Date(START), frozen: true });
  const sweep = recordingTarget(clock);
  const local = await startEdge({ sweep: sweep.target }, clock);
  const scheduler = new SchedulerClient({ endpoint: local.edge.url, region, credentials });
  try {
    const got = await scheduler.send(new GetScheduleCommand({ Name: SWEEP_SCHEDULE.name }));
    expect(got.ScheduleExpression).toBe('rate(1 minute)');
    await local.setClock({ advance: 'PT5M30S' });
    expect(sweep.calls.map((c) => c.at)).toEqual(['2022-12-02T10:36:00.000Z', '2022-12-02T10:40:00.000Z']);
    expect(local.edge.scheduler.list()).toEqual([expect.objectContaining({ name: SWEEP_SCHEDULE.name, dueAt: '2022-12-02T10:41:00.000Z' })]);
  } finally {
    scheduler.destroy();
    await local.edge.close();
  }
});

test('an at() expression read again gives the same instant in its own zone: New York\'s wall time across daylight saving, India\'s fixed, a date that does not exist refused each time', () => {
  const { parseExpression } = jest.requireActual('../../../local/edge/scheduler') as typeof import('../../../local/edge/scheduler');
  for (let round = 0; round < 2; round += 1) {
    expect(parseExpression('at(2022-12-02T16:05:00)', 'Asia/Kolkata')).toEqual({ kind: 'at', at: Date.parse('2022-12-02T16:05:00+05:30') });
    expect(parseExpression('at(2022-12-02T16:05:00)', 'UTC')).toEqual({ kind: 'at', at: Date.parse('2022-12-02T16:05:00Z') });
    expect(parseExpression('at(2022-07-02T16:05:00)', 'America/New_York')).toEqual({ kind: 'at', at: Date.parse('2022-07-02T16:05:00-04:00') });
    expect(parseExpression('at(2022-12-02T16:05:00)', 'America/New_York')).toEqual({ kind: 'at', at: Date.parse('2022-12-02T16:05:00-05:00') });
    expect(() => parseExpression('at(2022-02-30T16:05:00)', 'Asia/Kolkata')).toThrow(/not a real date and time/);
  }
});
