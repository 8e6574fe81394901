/** The edge's local clock controls (contract section 7) and how fired schedules and event deliveries interleave. */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { CreateScheduleCommand, ListSchedulesCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SharedClock } from '../../../local/clock';
import { localFunctionArn, localSchedulerRoleArn } from '../../../local/edge/edge';
import { credentials, region, startEdge, START, type TestEdge } from '../local-edge';

describe('clock controls', () => {
  let local: TestEdge;

  beforeAll(async () => { local = await startEdge({}); });
  afterAll(async () => { await local.edge.close(); });

  test('GET /_local/clock answers the shared clock\'s now', async () => {
    const res = await fetch(`${local.edge.url}/_local/clock`);
    expect(await res.json()).toEqual({ now: START });
  });

  test('POST {"now"} sets the clock; {"advance"} moves it by an ISO duration', async () => {
    expect((await local.setClock({ now: '2022-12-02T16:05:00+05:30' })).body).toEqual({ now: '2022-12-02T10:35:00.000Z' });
    expect((await local.setClock({ advance: 'P1DT2H' })).body).toEqual({ now: '2022-12-03T12:35:00.000Z' });
    expect(local.clock.now().toISO()).toBe('2022-12-03T12:35:00.000Z');
  });

  test.each([
    [{ advance: '6 hours' }, 'advance'],
    [{ advance: 'PT-6H' }, 'advance'],
    [{ now: '2022-12-02T16:05:00' }, 'now'],
    [{ now: 'yesterday' }, 'now'],
    [{}, 'now'],
    [{ now: '2022-12-02T16:05:00Z', advance: 'PT1H' }, 'advance'],
  ])('%j is a 400 naming the field %s', async (body, field) => {
    const before = local.clock.nowMs();
    const answer = await local.setClock(body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.field).toBe(field);
    expect(answer.body.error.message).toMatch(/send/);
    expect(local.clock.nowMs()).toBe(before);
  });

  test('unknown paths are a 404 that says what the edge serves', async () => {
    const res = await fetch(`${local.edge.url}/nothing-here`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('/_local/clock');
  });
});

test('events a fired schedule puts are delivered before the next schedule fires', async () => {
  const clock = new SharedClock({ start: new Date(START), frozen: true });
  const story: string[] = [];
  let events: EventBridgeClient | undefined;
  const local = await startEdge({
    release: async (input) => {
      const { n } = input as { n: number };
      story.push(`release ${n} at ${clock.now().toISO()}`);
      await events!.send(new PutEventsCommand({ Entries: [{ Source: 'marketplace.orders', DetailType: 'order.delivered', Detail: JSON.stringify({ n }) }] }));
    },
    orderEvents: async (event) => {
      const { detail, time } = event as { detail: { n: number }; time: string };
      // Real I/O before reading the clock: a delivery still running when the next timer fired would see a later time.
      const { now } = (await (await fetch(`${local.edge.url}/_local/clock`)).json()) as { now: string };
      story.push(`delivered ${detail.n} stamped ${time} at ${now}`);
    },
  }, clock);
  events = new EventBridgeClient({ endpoint: local.edge.url, region, credentials });
  const scheduler = new SchedulerClient({ endpoint: local.edge.url, region, credentials });
  try {
    for (const [n, at] of [[1, '2022-12-02T11:00:00'], [2, '2022-12-02T11:01:00']] as const) {
      await scheduler.send(new CreateScheduleCommand({
        Name: `rel-${n}`, ScheduleExpression: `at(${at})`, FlexibleTimeWindow: { Mode: 'OFF' }, ActionAfterCompletion: 'DELETE',
        Target: { Arn: localFunctionArn('release'), RoleArn: localSchedulerRoleArn(), Input: JSON.stringify({ n }) },
      }));
    }
    await local.setClock({ advance: 'PT1H' });
    expect(story).toEqual([
      'release 1 at 2022-12-02T11:00:00.000Z',
      'delivered 1 stamped 2022-12-02T11:00:00Z at 2022-12-02T11:00:00.000Z',
      'release 2 at 2022-12-02T11:01:00.000Z',
      'delivered 2 stamped 2022-12-02T11:01:00Z at 2022-12-02T11:01:00.000Z',
    ]);
  } finally {
    events.destroy();
    scheduler.destroy();
    await local.edge.close();
  }
});

test('a schedule created for a time already past fires at once', async () => {
  const clock = new SharedClock({ start: new Date(START), frozen: true });
  const fired: unknown[] = [];
  const local = await startEdge({ release: async (input) => { fired.push(input); } }, clock);
  const scheduler = new SchedulerClient({ endpoint: local.edge.url, region, credentials });
  try {
    await scheduler.send(new CreateScheduleCommand({
      Name: 'rel-late', ScheduleExpression: 'at(2022-12-01T00:00:00)', FlexibleTimeWindow: { Mode: 'OFF' }, ActionAfterCompletion: 'DELETE',
      Target: { Arn: localFunctionArn('release'), RoleArn: localSchedulerRoleArn(), Input: '{"late":true}' },
    }));
    await local.edge.idle();
    expect(fired).toEqual([{ late: true }]);
    expect(local.edge.scheduler.list()).toEqual([]);
  } finally {
    scheduler.destroy();
    await local.edge.close();
  }
});

test('clock moves called together apply in call order, each from where the one before left the clock', async () => {
  const clock = new SharedClock({ start: new Date(START), frozen: true }); // 10:35 UTC
  const fired: string[] = [];
  clock.at(new Date('2022-12-02T10:55:00Z'), () => { fired.push(clock.now().toISO()!); });
  await Promise.all([
    clock.advance(3_600_000), // to 11:35, firing the 10:55 timer
    clock.set(new Date('2022-12-02T11:05:00Z')), // back to 11:05
    clock.advance(10 * 60_000), // 11:15: ten minutes from 11:05, not from where the clock stood when called
  ]);
  expect(clock.now().toISO()).toBe('2022-12-02T11:15:00.000Z');
  expect(fired).toEqual(['2022-12-02T10:55:00.000Z']);
});

test('timers fire in time order, equal times in the order set, and a cancelled one never fires', async () => {
  const clock = new SharedClock({ start: new Date('2022-12-02T10:30:00Z'), frozen: true });
  const fired: string[] = [];
  const base = clock.nowMs();
  const handles = ['c@3', 'a@1', 'b1@2', 'b2@2', 'b3@2', 'd@4'].map((label) => {
    const minutes = Number(label.split('@')[1]);
    return { label, handle: clock.at(base + minutes * 60_000, () => { fired.push(label); }) };
  });
  handles.find((h) => h.label === 'b2@2')!.handle.cancel();
  handles.find((h) => h.label === 'd@4')!.handle.cancel();
  handles.find((h) => h.label === 'd@4')!.handle.cancel(); // twice is harmless
  await clock.advance(10 * 60_000);
  expect(fired).toEqual(['a@1', 'b1@2', 'b3@2', 'c@3']);
});

describe('a long clock move with hundreds of due schedules (issue 15.5)', () => {
  const COUNT = 300;
  const GATED = 150;
  let local: TestEdge;
  let scheduler: SchedulerClient;
  const fired: string[] = [];
  let open: () => void = () => undefined;
  let gate = Promise.resolve();

  beforeEach(async () => {
    fired.length = 0;
    gate = new Promise<void>((resolve) => { open = resolve; });
    const clock = new SharedClock({ start: new Date(START), frozen: true }); // 10:35 UTC
    local = await startEdge({
      release: async (input) => {
        const { n } = input as { n: number };
        // The 150th schedule's work waits for the test: the move is then under way, half done, for as long as it looks.
        if (n === GATED) await gate;
        fired.push(`${n} at ${clock.now().toISO()}`);
      },
    }, clock);
    scheduler = new SchedulerClient({ endpoint: local.edge.url, region, credentials });
    for (let n = 1; n <= COUNT; n += 1) {
      const at = new Date(Date.parse('2022-12-02T11:00:00Z') + n * 60_000).toISOString().slice(0, 19);
      await scheduler.send(new CreateScheduleCommand({
        Name: `rel-${n}`, ScheduleExpression: `at(${at})`, FlexibleTimeWindow: { Mode: 'OFF' }, ActionAfterCompletion: 'DELETE',
        Target: { Arn: localFunctionArn('release'), RoleArn: localSchedulerRoleArn(), Input: JSON.stringify({ n }) },
      }));
    }
  }, 60_000);
  afterEach(async () => {
    open();
    scheduler.destroy();
    await local.edge.close();
  });

  const schedulesLeft = async () => ((await (await fetch(`${local.edge.url}/_local/schedules`)).json()) as { schedules: unknown[] }).schedules.length;
  const clockNow = async () => (await (await fetch(`${local.edge.url}/_local/clock`)).json()) as { now: string; advancing?: { from: string; to: string; fired: number; pending: number } };
  async function waitForGate() {
    for (;;) {
      const seen = await clockNow();
      if (seen.advancing?.fired === GATED - 1) return seen;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  /** Every schedule fired once, in time order, each seeing the clock at its own due time (contract section 7). */
  const inTimeOrder = () => Array.from({ length: COUNT }, (_, i) => `${i + 1} at ${new Date(Date.parse('2022-12-02T11:00:00Z') + (i + 1) * 60_000).toISOString()}`);

  test('wait=false answers 202 at once; GET /_local/clock shows advancing {from, to, fired, pending} until every due schedule fired in time order', async () => {
    const answer = await fetch(`${local.edge.url}/_local/clock?wait=false`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advance": "PT6H"}' });
    expect(answer.status).toBe(202);
    expect(await answer.json()).toMatchObject({ advancing: { from: START, to: '2022-12-02T16:35:00.000Z' }, message: expect.stringContaining('GET /_local/clock') });
    // Half way, held by the gated schedule: the clock stands at its due time, and says how many are left.
    expect(await waitForGate()).toEqual({
      now: '2022-12-02T13:30:00.000Z',
      advancing: { from: START, to: '2022-12-02T16:35:00.000Z', fired: GATED - 1, pending: COUNT - GATED },
    });
    // Other requests are served meanwhile: the Scheduler API and the edge's schedule list say what is left.
    expect((await scheduler.send(new ListSchedulesCommand({}))).Schedules?.length).toBe(100);
    // The gated one is still listed: a one-time schedule is deleted once its target took it.
    expect(await schedulesLeft()).toBe(COUNT - GATED + 1);
    open();
    for (let seen = await clockNow(); seen.advancing; seen = await clockNow()) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await clockNow()).toEqual({ now: '2022-12-02T16:35:00.000Z' });
    expect(fired).toEqual(inTimeOrder());
  });

  test('wait=true (the default) answers when done, and other requests are served while it runs', async () => {
    let answered = false;
    const move = local.setClock({ advance: 'PT6H' }).finally(() => { answered = true; });
    await waitForGate();
    // The gated one is still listed: a one-time schedule is deleted once its target took it.
    expect(await schedulesLeft()).toBe(COUNT - GATED + 1);
    expect(answered).toBe(false);
    open();
    expect(await move).toEqual({ status: 200, body: { now: '2022-12-02T16:35:00.000Z' } });
    expect(fired).toEqual(inTimeOrder());
  });

  test('wait other than true or false is a 400 naming it, and the clock stays', async () => {
    const answer = await fetch(`${local.edge.url}/_local/clock?wait=later`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advance": "PT6H"}' });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { field: string; message: string } }).error).toMatchObject({ field: 'wait', message: expect.stringContaining('send wait=true') });
    expect(local.clock.now().toISO()).toBe(START);
  });
});
