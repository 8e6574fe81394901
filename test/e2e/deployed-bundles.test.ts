/**
 * The bundles that deploy are the ones tested: the CDK app synthesized with bundling on, and an order driven through
 * the local runtime whose order-events, release and sweep handlers are those bundles from the cloud assembly.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { synthesizeBundles, type FunctionBundle } from '../../bench/function-bundles';
import type { FunctionRole } from '../../lib/holdback-stack';
import { startLocal } from '../../local/runtime';
import { startHarness, vendorOf, type Harness } from './harness';

let outdir: string;
let bundles: Record<FunctionRole, FunctionBundle>;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'holdback-assembly-'));
  bundles = synthesizeBundles(outdir);
}, 120_000);

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
});

describe('the deployed bundles', () => {
  let harness: Harness;

  beforeAll(async () => {
    // The bundles read the system clock (their composition root's), so the shared clock runs from the real now.
    harness = await startHarness({
      clockStart: new Date(), frozen: false,
      bundles: { orderEvents: bundles.orderEvents.file, release: bundles.release.file, sweep: bundles.sweep.file },
    });
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('take an order.paid with an immediate policy through the queue to an applied eligibility PUT', async () => {
    await harness.createVendors([{ id: 'bundle-v1', scheduleOption: 1 }]);
    await harness.setPolicy('bundle-v1', { kind: 'immediate' });
    const paymentTime = await harness.createPaidOrder('bundle-order-1', [{ vendorId: 'bundle-v1', amount: 500 }]);
    await harness.send('order.paid', { orderId: 'bundle-order-1', transactionTime: paymentTime, vendors: [{ vendorId: 'bundle-v1', amount: 500 }] });

    // The release bundle takes the command off the queue (the edge's event source mapping) and sends the PUT.
    let order = (await harness.api('GET', '/orders/bundle-order-1')).body;
    for (let round = 0; round < 200 && vendorOf(order, 'bundle-v1').state !== 'APPLIED'; round += 1) {
      await harness.runtime.idle();
      await new Promise((resolve) => setImmediate(resolve));
      order = (await harness.api('GET', '/orders/bundle-order-1')).body;
    }
    const release = vendorOf(order, 'bundle-v1');
    expect(release.state).toBe('APPLIED');
    expect(release.appliedEligibility).not.toBeNull();
    expect(release.attempts.at(-1)?.status).toBe('OK');
    // The gateway applied exactly one eligibility PUT for it.
    expect((await harness.appliedAtGateway()).get('bundle-order-1/bundle-v1')).toBe(1);
    // Both functions ran in the containers, whose handlers are the bundles.
    expect(harness.runtime.lambdaUsage.get('release')?.invocations).toBeGreaterThanOrEqual(1);
    expect(harness.runtime.lambdaUsage.get('orderEvents')?.invocations).toBeGreaterThanOrEqual(1);
  });
});

it('a bundle that exports no handler keeps the runtime from starting (the containers really load the bundle)', async () => {
  const empty = join(outdir, 'no-handler.js');
  writeFileSync(empty, 'exports.notAHandler = 1;\n');
  await expect(startLocal({ apiPort: 0, edgePort: 0, sandboxPort: 0, bundles: { release: empty } }))
    .rejects.toThrow(/exports no handler function/);
});
