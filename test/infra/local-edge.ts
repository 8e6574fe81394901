/** Starts a local edge on an ephemeral port with recording targets, for the infra tests. */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { HandlerName } from '../../functions/definitions/routing';
import { SharedClock } from '../../local/clock';
import { createEdge, type Edge, type EdgeOptions } from '../../local/edge/edge';

export const START = '2022-12-02T10:35:00.000Z';
export const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
export const region = 'us-east-1';

/** One call a target received, with the shared clock's time when it ran. */
export interface Received {
  event: unknown;
  at: string;
}

/** A target that records what it receives; `failFirst` calls throw before it starts succeeding. */
export function recordingTarget(clock: SharedClock, failFirst = 0) {
  const calls: Received[] = [];
  let failuresLeft = failFirst;
  const target = async (event: unknown): Promise<unknown> => {
    calls.push({ event, at: clock.now().toISO()! });
    if (failuresLeft > 0) {
      failuresLeft -= 1;
      throw new Error('target refused the invocation');
    }
    return undefined;
  };
  return { calls, target };
}

export interface TestEdge {
  edge: Edge;
  clock: SharedClock;
  logs: string[];
  /** POST /_local/clock with the given body; the parsed answer and status. */
  setClock(body: unknown): Promise<{ status: number; body: any }>;
}

export async function startEdge(
  targets: Partial<Record<HandlerName, (event: unknown) => Promise<unknown>>>,
  clock = new SharedClock({ start: new Date(START), frozen: true }),
  extra: Partial<EdgeOptions> = {},
): Promise<TestEdge> {
  const logs: string[] = [];
  const edge = await createEdge({ port: 0, clock, tables: [], targets, log: (line) => logs.push(line), ...extra });
  const setClock = async (body: unknown) => {
    const res = await fetch(`${edge.url}/_local/clock`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    return { status: res.status, body: await res.json() };
  };
  return { edge, clock, logs, setClock };
}

/**
 * Registers a describe block's (or file's) hooks: an edge on a frozen clock whose order-events target records what it
 * gets, and an EventBridge client to it; `fixture` is filled in before the first test.
 */
export function edgeWithBus(): { clock: SharedClock; orderEvents: ReturnType<typeof recordingTarget>; fixture: { local: TestEdge; events: EventBridgeClient } } {
  const clock = new SharedClock({ start: new Date(START), frozen: true });
  const orderEvents = recordingTarget(clock);
  const fixture = {} as { local: TestEdge; events: EventBridgeClient };
  beforeAll(async () => {
    fixture.local = await startEdge({ orderEvents: orderEvents.target }, clock);
    fixture.events = new EventBridgeClient({ endpoint: fixture.local.edge.url, region, credentials });
  });
  afterAll(async () => {
    fixture.events.destroy();
    await fixture.local.edge.close();
  });
  return { clock, orderEvents, fixture };
}
