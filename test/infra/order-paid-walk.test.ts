import { Session } from 'node:inspector/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, EventBridgeEvent } from 'aws-lambda';
import { makeOrderEventsHandler } from '../../functions/handlers/order-events';
import { fakeWorld } from '../fakes/dependencies';
import { paid, usePolicy } from '../application/scenario';

const ROOT = join(__dirname, '..', '..');
const envelope = (detail: unknown): EventBridgeEvent<string, unknown> => ({
  version: '0', id: 'evt-walk', 'detail-type': 'order.paid', source: 'marketplace.orders', account: '000000000000',
  time: '2022-12-02T10:30:00Z', region: 'ap-south-1', resources: [], detail,
});

test('walk', async () => {
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  await usePolicy(world, { kind: 'after_payment', delay: 'P3D' });
  const handler = makeOrderEventsHandler(() => world.deps);
  await handler(envelope(paid('order_warm')), {} as Context);
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await session.post('Profiler.takePreciseCoverage');
  const answer = await handler(envelope(paid('order_walk')), {} as Context);
  const { result } = await session.post('Profiler.takePreciseCoverage');
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();
  const files = result.filter((s) => s.functions.some((f) => f.ranges[0].count > 0))
    .map((s) => relative(ROOT, s.url.startsWith('file:') ? fileURLToPath(s.url) : s.url))
    .filter((f) => /^(functions|kit)\//.test(f)).sort();
  console.log(result.filter((s) => /\/(functions|kit)\//.test(s.url)).map((s) => s.url.replace(/.*\/(functions|kit)\//, '$1/') + ': ' + s.functions.filter((f) => f.ranges[0].count > 0).map((f) => f.functionName + '#' + f.ranges[0].count).join(' ')).filter((l) => !l.endsWith(': ')).join('\n'));
});
