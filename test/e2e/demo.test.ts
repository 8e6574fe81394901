/** End to end: the demo's marketplace week, its outcomes checked against Holdback's API and the gateway sandbox's own records. */
import { DateTime } from 'luxon';
import type { LocalRuntime } from '../../local/runtime';
import { CANCELLED, DEMO_ORDERS, DISPUTED, formatTable, playMarketplaceWeek, startDemoRuntime, type DemoResult } from '../../local/demo';

let runtime: LocalRuntime;
let week: DemoResult;

const gatewayHeaders = (): Record<string, string> => {
  const { clientId, clientSecret } = runtime.sandbox.context.config;
  return { 'x-client-id': clientId, 'x-client-secret': clientSecret, 'x-api-version': '2022-09-01' };
};
const getJson = async (url: string, headers: Record<string, string> = {}): Promise<any> => {
  const response = await fetch(url, { headers });
  expect(response.status).toBe(200);
  return response.json();
};
const millis = (iso: string): number => DateTime.fromISO(iso, { setZone: true }).toMillis();

interface HoldbackRelease {
  vendorId: string;
  state: string;
  targetEligibility: string | null;
  appliedEligibility: string | null;
  predictedSettlement: string | null;
  attempts: { at: string; status: string }[];
}

beforeAll(async () => {
  runtime = await startDemoRuntime();
  week = await playMarketplaceWeek(runtime);
}, 60_000);
afterAll(async () => { await runtime?.close(); });

describe('the demo week', () => {
  it('covers every release rule, and every release that is neither cancelled nor at max is APPLIED or SETTLED', () => {
    expect(new Set(week.rows.map((r) => r.rule))).toEqual(new Set(['immediate', 'after_payment P3D', 'after_delivery P2D', 'at_max']));
    const released = week.rows.filter((r) => r.rule !== 'at_max' && !(r.order === CANCELLED.orderId && r.vendor === CANCELLED.vendorId));
    expect(released.length).toBeGreaterThanOrEqual(8);
    for (const row of released) {
      expect({ vendor: row.vendor, order: row.order, state: row.state }).toEqual({ vendor: row.vendor, order: row.order, state: expect.stringMatching(/^(APPLIED|SETTLED)$/) });
      expect(row.applied).not.toBeNull();
    }
    expect(week.summary.failed).toBe(0);
  });

  it('settles every release the gateway settled exactly at the settlement Holdback predicted', async () => {
    let settled = 0;
    for (const order of DEMO_ORDERS) {
      const holdback = await getJson(`${runtime.api.url}/orders/${order.id}`);
      const recon = await getJson(`${runtime.sandbox.url}/pg/easy-split/orders/${order.id}`, gatewayHeaders());
      for (const split of recon.vendors as { vendor_id: string; settlement_status: string; settled_at: string | null }[]) {
        const release = (holdback.vendors as HoldbackRelease[]).find((v) => v.vendorId === split.vendor_id)!;
        if (order.id === CANCELLED.orderId && split.vendor_id === CANCELLED.vendorId) {
          expect(split.settled_at).toBeNull();
          continue;
        }
        // The week runs past every predicted settlement, the at-max ones included: each really happened.
        expect({ order: order.id, vendor: split.vendor_id, status: split.settlement_status }).toEqual({ order: order.id, vendor: split.vendor_id, status: 'SETTLED' });
        expect(release.state).toBe('SETTLED');
        expect(release.predictedSettlement).not.toBeNull();
        expect({ order: order.id, vendor: split.vendor_id, at: millis(release.predictedSettlement!) })
          .toEqual({ order: order.id, vendor: split.vendor_id, at: millis(split.settled_at!) });
        settled += 1;
      }
    }
    expect(settled).toBe(week.rows.length - 1);
    expect(week.summary.predictedMismatches).toBe(0);
  });

  it('keeps the cancelled release CANCELLED, and the gateway never received an eligibility update for it', async () => {
    const holdback = await getJson(`${runtime.api.url}/orders/${CANCELLED.orderId}`);
    const release = (holdback.vendors as HoldbackRelease[]).find((v) => v.vendorId === CANCELLED.vendorId)!;
    expect(release.state).toBe('CANCELLED');
    expect(release.attempts).toEqual([]);
    const updates = await getJson(`${runtime.sandbox.url}/_sandbox/eligibility-updates`);
    const isCancelled = (u: { order_id: string; vendor_id: string }): boolean => u.order_id === CANCELLED.orderId && u.vendor_id === CANCELLED.vendorId;
    expect(updates.updates.filter(isCancelled)).toEqual([]);
    expect(updates.applied.filter(isCancelled)).toEqual([]);
    // The other vendor of the same order was released as usual: the cancellation named only this one.
    expect(updates.applied.some((u: { order_id: string }) => u.order_id === CANCELLED.orderId)).toBe(true);
  });

  it('holds the disputed release while the dispute is open and releases it only after the close', async () => {
    expect(week.dispute.stateWhileOpen).toBe('HELD');
    const closedAt = millis(week.dispute.closedAt);
    const holdback = await getJson(`${runtime.api.url}/orders/${DISPUTED.orderId}`);
    const release = (holdback.vendors as HoldbackRelease[]).find((v) => v.vendorId === DISPUTED.vendorId)!;
    // Without the dispute it would have gone before the close: its target (delivery + 2 days) lies inside the dispute.
    expect(millis(release.targetEligibility!)).toBeGreaterThan(millis(week.dispute.openedAt));
    expect(millis(release.targetEligibility!)).toBeLessThan(closedAt);
    expect(millis(release.appliedEligibility!)).toBeGreaterThan(closedAt);
    for (const attempt of release.attempts) expect(millis(attempt.at)).toBeGreaterThanOrEqual(closedAt);
    const updates = await getJson(`${runtime.sandbox.url}/_sandbox/eligibility-updates`);
    const atGateway = (updates.updates as { order_id: string; vendor_id: string; at: string }[])
      .filter((u) => u.order_id === DISPUTED.orderId && u.vendor_id === DISPUTED.vendorId);
    expect(atGateway.length).toBeGreaterThan(0);
    for (const update of atGateway) expect(millis(update.at)).toBeGreaterThanOrEqual(closedAt);
  });

  it('pays through real checkouts: the gateway\'s signed payment webhooks reached Holdback or the marketplace backend', async () => {
    const { deliveries } = await getJson(`${runtime.sandbox.url}/_sandbox/webhooks`);
    for (const order of DEMO_ORDERS) {
      const paid = (deliveries as { type: string; url: string; body: string; status: string }[])
        .filter((d) => d.type === 'PAYMENT_SUCCESS_WEBHOOK' && JSON.parse(d.body).data.order.order_id === order.id);
      expect(paid).toHaveLength(1);
      expect(paid[0].status).toBe('DELIVERED');
      expect(paid[0].url.endsWith('/webhooks/gateway')).toBe(order.reportedBy === 'gateway webhook');
    }
  });

  it('ran under injected gateway faults, cleared before the end', async () => {
    expect(week.summary.faultsInjected).toBeGreaterThan(0);
    expect(await getJson(`${runtime.sandbox.url}/_sandbox/faults`)).toEqual({ faults: null });
    expect(formatTable(week.rows).split('\n')[0]).toMatch(/^vendor\s+rule\s+opt\s+order\s+state\s+target\s+applied eligibility\s+predicted settlement\s+actual settlement\s+match$/);
  });
});
