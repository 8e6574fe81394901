/**
 * Acknowledged means kept until done (issue 15): the local bus keeps an accepted event until a target took it, waits
 * for a target that is not ready without counting it, retries a failing one with backoff and, after its last try,
 * lists it instead of dropping it; its journal carries it across a restart. The schedules and the release queue's
 * mapping wait for a target that is not ready the same way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBus, type DeliveryPolicy, type EventEnvelope, type KeptEvent, type UndeliverableEvent } from '../../../local/edge/bus';
import { SharedClock } from '../../../local/clock';
import { RecordJournal, readJournal, type RecordStore } from '../../../kit/durable-file';
import { TargetNotReady } from '../../../local/edge/in-flight';
import { LocalQueues } from '../../../local/edge/queue';
import { JournaledQueueStore } from '../../../local/edge/queue-store';
import { QueueEventSource } from '../../../local/lambda/queue-event-source';
import { LocalScheduler, localFunctionArn, localSchedulerRoleArn } from '../../../local/edge/scheduler';
import { START } from '../local-edge';
import { pollUntil as until } from '../holdback-process';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** The keys a journal file holds (its lines replayed), as the next start reads them. */
function liveKeys(path: string): string[] {
  return [...readJournal(path).records.keys()];
}

/** A record store in memory that shows what it holds right now (the journal's live records). */
class VisibleRecords<T> implements RecordStore<T> {
  readonly live = new Map<string, T>();
  constructor(private readonly kept = new Map<string, T>()) {}
  loaded(): Map<string, T> { return new Map(this.kept); }
  put(key: string, record: T): void { this.live.set(key, record); }
  delete(key: string): void { this.live.delete(key); }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

/** A target that is not ready for its first `notReadyFor` calls, then throws `failing` times, then takes the event. */
function target(opts: { notReadyFor?: number; failing?: number } = {}) {
  const calls: Array<'not-ready' | 'failed' | 'taken'> = [];
  let notReady = opts.notReadyFor ?? 0;
  let failing = opts.failing ?? 0;
  const taken: EventEnvelope[] = [];
  return {
    calls,
    taken,
    /** From now on it is ready. */
    ready: () => { notReady = 0; },
    invoke: async (event: unknown): Promise<unknown> => {
      if (notReady > 0) {
        notReady -= 1;
        calls.push('not-ready');
        throw new TargetNotReady('the local runtime is still starting');
      }
      if (failing > 0) {
        failing -= 1;
        calls.push('failed');
        throw new Error('the order store is down');
      }
      calls.push('taken');
      taken.push(event as EventEnvelope);
      return undefined;
    },
  };
}

function bus(opts: {
  invoke: (event: unknown) => Promise<unknown>;
  delivery?: Partial<DeliveryPolicy>;
  store?: RecordStore<KeptEvent | EventEnvelope>;
  onUndeliverable?: (event: UndeliverableEvent) => Promise<void>;
}) {
  const logs: string[] = [];
  const local = new LocalBus({
    clock: new SharedClock({ start: new Date(START), frozen: true }),
    targets: { orderEvents: opts.invoke },
    region: 'us-east-1',
    accountId: '000000000000',
    log: (line) => logs.push(line),
    delivery: opts.delivery,
    store: opts.store,
    onUndeliverable: opts.onUndeliverable,
  });
  return { local, logs };
}

const paid = (orderId: string) => ({
  Entries: [{ Source: 'marketplace.orders', DetailType: 'order.paid', Detail: JSON.stringify({ orderId, transactionTime: START, vendors: [{ vendorId: 'v1', amount: '10.00' }] }) }],
});

function put(local: LocalBus, orderId: string): string {
  const answer = local.putEvents(paid(orderId));
  expect(answer.FailedEntryCount).toBe(0);
  return (answer.Entries[0] as { EventId: string }).EventId;
}

describe('the local bus', () => {
  test('a target that is not ready is waited for and never counted: one try in all still delivers after 40 not-ready answers', async () => {
    const t = target({ notReadyFor: 40 });
    const listed: UndeliverableEvent[] = [];
    const store = new VisibleRecords<KeptEvent | EventEnvelope>();
    const { local } = bus({ invoke: t.invoke, store, delivery: { maximumAttempts: 1, notReadyMs: 1, maxNotReadyMs: 2 }, onUndeliverable: async (e) => { listed.push(e); } });
    const id = put(local, 'o-starting');
    expect(store.live.has(id)).toBe(true);
    await until('the event taken', () => t.taken.length === 1);
    expect(t.calls.filter((c) => c === 'not-ready')).toHaveLength(40);
    expect(t.taken[0].id).toBe(id);
    expect(local.failures).toEqual([]);
    expect(listed).toEqual([]);
    await until('the journal emptied', () => !store.live.has(id));
    local.close();
  });

  test('restore (the runtime is up) ends the wait for a target that was not ready at once', async () => {
    const t = target({ notReadyFor: Infinity });
    // A wait of a minute before each new look: only the wake can deliver it within the test.
    const { local } = bus({ invoke: t.invoke, delivery: { notReadyMs: 60_000, maxNotReadyMs: 60_000 } });
    put(local, 'o-woken');
    await until('the first not-ready answer', () => t.calls.length === 1);
    await local.inFlight.idle();
    expect(local.waitingDeliveries).toBe(1);
    t.ready();
    local.restore();
    await until('the event taken', () => t.taken.length === 1, 10_000);
    expect(local.waitingDeliveries).toBe(0);
    local.close();
  });

  test('a failing target is tried with backoff until its last try, then listed with its reason, then leaves the journal', async () => {
    const t = target({ failing: Infinity });
    const listed: UndeliverableEvent[] = [];
    const store = new VisibleRecords<KeptEvent | EventEnvelope>();
    const { local, logs } = bus({
      invoke: t.invoke, store,
      delivery: { quickAttempts: 2, retryDelayMs: 1, backoffMs: 5, maxBackoffMs: 10, maximumAttempts: 6 },
      onUndeliverable: async (e) => { listed.push(e); },
    });
    const id = put(local, 'o-failing');
    await until('the event listed', () => listed.length === 1);
    expect(t.calls).toEqual(Array(6).fill('failed'));
    expect(listed[0]).toMatchObject({ eventId: id, target: 'orderEvents', attempts: 6, message: 'the order store is down', envelope: { id, 'detail-type': 'order.paid' } });
    expect(listed[0].triedForMs).toBeGreaterThanOrEqual(0);
    expect(local.failures).toEqual([expect.objectContaining({ eventId: id, attempts: 6 })]);
    expect(logs.join('\n')).toContain('kept and tried again with backoff');
    await until('the journal emptied', () => !store.live.has(id));
    local.close();
  });

  test('a target failing past EventBridge\'s 24 hours (the event\'s age) is listed, even with tries left', async () => {
    const t = target({ failing: Infinity });
    const listed: UndeliverableEvent[] = [];
    const kept = new Map<string, KeptEvent>();
    const envelope: EventEnvelope = {
      version: '0', id: 'old-event', 'detail-type': 'order.paid', source: 'marketplace.orders', account: '000000000000',
      time: START, region: 'us-east-1', resources: [], detail: { orderId: 'o-old' },
    };
    // Accepted 25 hours ago, before a restart: its first try after the restart is its last.
    kept.set(envelope.id, { envelope, acceptedAt: Date.now() - 25 * 3_600_000 });
    const { local } = bus({ invoke: t.invoke, store: new VisibleRecords(kept), onUndeliverable: async (e) => { listed.push(e); } });
    expect(local.restore()).toBe(1);
    await until('the old event listed', () => listed.length === 1);
    expect(t.calls).toEqual(['failed']);
    expect(listed[0].triedForMs).toBeGreaterThan(24 * 3_600_000);
    local.close();
  });

  test('between its later tries a failing event does not hold idle(), and waits in the journal', async () => {
    const t = target({ failing: Infinity });
    const store = new VisibleRecords<KeptEvent | EventEnvelope>();
    const { local } = bus({ invoke: t.invoke, store, delivery: { quickAttempts: 3, retryDelayMs: 1, backoffMs: 60_000 } });
    const id = put(local, 'o-waiting');
    await until('the quick tries made', () => t.calls.length === 3);
    await local.inFlight.idle();
    expect(local.waitingDeliveries).toBe(1);
    expect(store.live.has(id)).toBe(true);
    expect(local.failures).toEqual([]);
    local.close();
  });

  test('a listing that fails keeps the event in the journal and is tried again', async () => {
    const t = target({ failing: Infinity });
    let refusals = 1;
    const listed: UndeliverableEvent[] = [];
    const store = new VisibleRecords<KeptEvent | EventEnvelope>();
    const { local, logs } = bus({
      invoke: t.invoke, store,
      delivery: { quickAttempts: 1, maximumAttempts: 1, backoffMs: 400, maxBackoffMs: 400 },
      onUndeliverable: async (e) => {
        if (refusals > 0) {
          refusals -= 1;
          throw new Error('the rejected-events table is unreachable');
        }
        listed.push(e);
      },
    });
    const id = put(local, 'o-listing');
    await until('the listing refused once', () => logs.some((l) => l.includes('listing undeliverable event')));
    expect(store.live.has(id)).toBe(true);
    await until('the event listed', () => listed.length === 1);
    expect(t.calls).toEqual(['failed']);
    await until('the journal emptied', () => !store.live.has(id));
    local.close();
  });

  test('the journal on disk carries an acknowledged event across a restart; the next start delivers it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'holdback-bus-'));
    folders.push(folder);
    const path = join(folder, 'events.jsonl');
    const starting = target({ notReadyFor: Infinity });
    const firstJournal = new RecordJournal<KeptEvent | EventEnvelope>(path);
    const first = bus({ invoke: starting.invoke, store: firstJournal, delivery: { notReadyMs: 5, maxNotReadyMs: 10 } });
    const id = put(first.local, 'o-restart');
    await first.local.persisted();
    await until('tried while not ready', () => starting.calls.length >= 3);
    // A stop while the target is still not ready: nothing was taken, nothing counted, the event stays on disk.
    first.local.close();
    await firstJournal.close();
    expect(liveKeys(path)).toEqual([id]);
    expect(starting.taken).toEqual([]);
    expect(first.local.failures).toEqual([]);

    const ready = target();
    const journal = new RecordJournal<KeptEvent | EventEnvelope>(path);
    const second = bus({ invoke: ready.invoke, store: journal });
    expect(second.local.restore()).toBe(1);
    await until('the kept event taken', () => ready.taken.length === 1);
    expect(ready.taken[0]).toMatchObject({ id, detail: { orderId: 'o-restart' } });
    await second.local.inFlight.idle();
    await journal.flush();
    expect(liveKeys(path)).toEqual([]);
    second.local.close();
    await journal.close();
  });
});

test('a due schedule whose function is not ready is kept and invoked once it is, with no try counted', async () => {
  const clock = new SharedClock({ start: new Date(START), frozen: true });
  const t = target({ notReadyFor: 5 });
  const logs: string[] = [];
  const scheduler = new LocalScheduler({ clock, targets: { sweep: t.invoke }, region: 'us-east-1', accountId: '000000000000', log: (l) => logs.push(l) });
  scheduler.create('one-sweep', {
    ScheduleExpression: 'at(2022-12-02T10:35:00)', FlexibleTimeWindow: { Mode: 'OFF' }, ActionAfterCompletion: 'DELETE',
    // No retries at all: only a try that is not counted can let it through.
    Target: { Arn: localFunctionArn('sweep'), RoleArn: localSchedulerRoleArn(), Input: '{}', RetryPolicy: { MaximumRetryAttempts: 0 } },
  });
  await until('the schedule invoked', () => t.taken.length === 1);
  await scheduler.inFlight.idle();
  expect(t.calls.filter((c) => c === 'not-ready')).toHaveLength(5);
  expect(scheduler.list()).toEqual([]);
  expect(logs.join('\n')).not.toContain('failed');
  scheduler.close();
  clock.stop();
});

test('a queued message whose function is not ready is given back uncounted: it never reaches the dead-letter queue for it', async () => {
  const clock = new SharedClock({ start: new Date(START), frozen: true });
  const queues = new LocalQueues({ clock, region: 'us-east-1', accountId: '000000000000', url: () => 'http://127.0.0.1:1', log: () => undefined });
  const dlq = queues.define('dlq');
  const queue = queues.define('work', { redrivePolicy: { deadLetterTargetArn: queues.arn(dlq.name), maxReceiveCount: 1 } });
  const t = target({ notReadyFor: 6 });
  const mapping = new QueueEventSource({ queues, queue: 'work', target: t.invoke, batchSize: 10, maximumConcurrency: 2, region: 'us-east-1', log: () => undefined });
  queues.send(queue, '{"orderId":"o-queued"}', undefined);
  await until('the message taken', () => t.taken.length === 1);
  const records = (t.taken[0] as unknown as { Records: Array<{ body: string; attributes: Record<string, string> }> }).Records;
  expect(records.map((r) => r.body)).toEqual(['{"orderId":"o-queued"}']);
  // Six batches went back while the function was not ready; the one it took is the message's first counted receive.
  expect(records[0].attributes.ApproximateReceiveCount).toBe('1');
  expect(t.calls.filter((c) => c === 'not-ready')).toHaveLength(6);
  await mapping.inFlight.idle();
  expect(queues.counts(queue)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  expect(queues.counts(dlq).visible).toBe(0);
  mapping.close();
  queues.close();
  clock.stop();
});

test('a message in flight when the process was killed is visible at the next start, its receive not counted, though the clock stands still', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'holdback-queue-'));
  folders.push(folder);
  const clock = new SharedClock({ start: new Date(START), frozen: true });
  const options = { clock, region: 'us-east-1', accountId: '000000000000', url: () => 'http://127.0.0.1:1', log: () => undefined };
  const firstStore = new JournaledQueueStore(folder);
  const first = new LocalQueues({ ...options, store: firstStore });
  const queue = first.define('work', { visibilityTimeout: 360 });
  first.send(queue, '{"orderId":"o-inflight"}', undefined);
  // Received by a consumer that the kill ends: 360 s of visibility on a frozen clock would never run out.
  expect(first.receive(queue, 10, null)).toHaveLength(1);
  await firstStore.flush();
  first.close();
  await firstStore.close();

  const secondStore = new JournaledQueueStore(folder);
  const second = new LocalQueues({ ...options, store: secondStore });
  const again = second.receive(second.byName('work'), 10, null);
  expect(again.map((r) => r.message.body)).toEqual(['{"orderId":"o-inflight"}']);
  expect(again[0].message.receiveCount).toBe(1);
  second.close();
  await secondStore.close();
  clock.stop();
});
