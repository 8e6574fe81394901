/**
 * The order.paid walk (README "The code's shape"): the files of Holdback's own code (functions/ and kit/) that one
 * `order.paid` enters, from the order-events handler to the stored plan, read off V8's precise coverage (a file counts
 * when one of its functions runs). It fails when the walk grows back past MAX_WALK files, and says which files it took.
 *
 * The ports are the in-memory fakes, except the audit log, which records the entries it is handed: what an audit store
 * does with them (sealing hash chains) is the store's inside, not the path of an order.
 */
import { Session } from 'node:inspector/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { makeOrderEventsHandler } from '../../functions/handlers/order-events';
import type { AuditEntry, Dependencies } from '../../functions/application/ports';
import { fakeWorld } from '../fakes/dependencies';
import { paid, usePolicy } from '../application/scenario';

const ROOT = join(__dirname, '..', '..');
/** The bound: fewer than 12 files. */
const MAX_WALK = 11;

const envelope = (detail: unknown): EventBridgeEvent<string, unknown> => ({
  version: '0', id: `evt-${(detail as { orderId: string }).orderId}`, 'detail-type': 'order.paid', source: 'marketplace.orders',
  account: '000000000000', time: '2022-12-02T10:30:00Z', region: 'ap-south-1', resources: [], detail,
});

/** The files of functions/ and kit/ whose functions ran during `work`, and what `work` answered. */
async function filesEntered<T>(work: () => Promise<T>): Promise<{ files: string[]; answer: T }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    // Taking the coverage resets its counts: what came before (the module loads, the fakes' setup) is not counted.
    await session.post('Profiler.takePreciseCoverage');
    const answer = await work();
    const { result } = await session.post('Profiler.takePreciseCoverage');
    await session.post('Profiler.stopPreciseCoverage');
    const files = result
      .filter((script) => script.functions.some((f) => f.ranges[0].count > 0))
      .map((script) => relative(ROOT, script.url.startsWith('file:') ? fileURLToPath(script.url) : script.url))
      .filter((file) => /^(functions|kit)\//.test(file))
      .sort();
    return { files, answer };
  } finally {
    session.disconnect();
  }
}

async function paidWalk(): Promise<{ files: string[]; answer: unknown; appended: AuditEntry[] }> {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_payment', delay: 'P3D' });
  const appended: AuditEntry[] = [];
  const deps: Dependencies = { ...world.deps, audit: { ...world.deps.audit, append: async (entries) => { appended.push(...entries); } } };
  const handler = makeOrderEventsHandler(() => deps);
  // A first payment warms every lazy piece up (dependencies built once per container, as on Lambda).
  await handler(envelope(paid('order_warm')), {} as Context);
  appended.length = 0;
  const { files, answer } = await filesEntered(() => handler(envelope(paid('order_walk')), {} as Context));
  return { files, answer, appended };
}

test(`an order.paid walks at most ${MAX_WALK} files of functions/ and kit/ from its handler to the stored plan`, async () => {
  const { files, answer, appended } = await paidWalk();

  // The walk measured is a real one: the payment was planned, and the plan stored and audited.
  expect(answer).toEqual({ outcome: 'accepted', orderId: 'order_walk', duplicate: false, states: { vendor_a: 'SCHEDULED' } });
  expect(appended.map((e) => e.kind)).toContain('planned');
  expect(files).toEqual(expect.arrayContaining([
    'functions/handlers/order-events.ts', 'functions/application/releases/handle-order-event.ts', 'functions/application/release-store.ts',
    'functions/domain/release/plan.ts',
  ]));
  if (files.length > MAX_WALK) throw new Error(`order.paid walks ${files.length} files (at most ${MAX_WALK}):\n${files.join('\n')}`);
});
