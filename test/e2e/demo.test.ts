/** End to end: the demo's marketplace week, its outcomes checked against Holdback's API and the gateway sandbox's own records. */
import Decimal from 'decimal.js';
import { DateTime } from 'luxon';
import type { LocalRuntime } from '../../local/runtime';
import {
  CANCELLED, DEMO_ORDERS, DISPUTED, FORECAST_RANGE, PREVIEWED, formatFinance, formatTable, playMarketplaceWeek, startDemoRuntime,
  type DemoResult, type OpenRelease,
} from '../../bin/demo';

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

/**
 * The demo week's budget, sized from measurement: the whole week (checkouts, a fortnight of clock, injected gateway
 * faults and their retries) took 243 s beside a load of about 22 on this 2-core machine (91 s at a load of 8, issue 19).
 * 600 s is two and a half times the slowest measured.
 */
const DEMO_WEEK_BUDGET_MS = 600_000;

beforeAll(async () => {
  runtime = await startDemoRuntime();
  week = await playMarketplaceWeek(runtime);
}, DEMO_WEEK_BUDGET_MS);
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

describe("the demo's finance and audit story, read through the API", () => {
  const sum = (amounts: string[]): string => amounts.reduce((total, a) => total.plus(a), new Decimal(0)).toFixed(2);
  const indiaDate = (iso: string): string => DateTime.fromISO(iso, { setZone: true }).setZone('Asia/Kolkata').toISODate()!;
  const DAY_MS = 86_400_000;

  it('previews a faster release for one vendor over its unsent releases, and changes nothing', async () => {
    const { preview, openAtForecast } = week.finance;
    const unsent = openAtForecast.filter((r) => r.vendorId === PREVIEWED.vendorId && r.state === 'SCHEDULED');
    expect(unsent.length).toBe(2);
    expect(preview).toMatchObject({ vendorId: PREVIEWED.vendorId, fromVersion: 1, covered: unsent.length, moved: unsent.length, omitted: 0 });
    expect(preview.previewId).toEqual(expect.any(String));
    for (const open of unsent) {
      const shown = preview.releases.find((r) => r.orderId === open.orderId)!;
      expect({ order: open.orderId, state: shown.state, amount: shown.amount, moves: shown.moves }).toEqual({ order: open.orderId, state: open.state, amount: open.amount, moves: true });
      expect(millis(shown.current.targetEligibility!)).toBe(millis(open.targetEligibility!));
      // after_payment P3D becomes P1D: the same payment, two days sooner.
      expect(millis(shown.current.targetEligibility!) - millis(shown.candidate.targetEligibility!)).toBe(2 * DAY_MS);
      // Nothing changed, so the current side came true: the gateway settled it at that minute.
      const settled = week.rows.find((r) => r.order === open.orderId && r.vendor === PREVIEWED.vendorId)!;
      expect(millis(shown.current.predictedSettlement!)).toBe(millis(settled.actual!));
    }
    const byDay = (side: 'current' | 'candidate'): Record<string, number> => Object.fromEntries(preview.perDay.filter((d) => d[side].count > 0).map((d) => [d.date, d[side].count]));
    expect(byDay('current')).toEqual(countBy(preview.releases.map((r) => indiaDate(r.current.predictedSettlement!))));
    expect(byDay('candidate')).toEqual(countBy(preview.releases.map((r) => indiaDate(r.candidate.predictedSettlement!))));
    expect(sum(preview.perDay.map((d) => d.candidate.amount))).toBe(sum(unsent.map((r) => r.amount)));
    expect(sum(preview.perDay.map((d) => d.current.amount))).toBe(sum(unsent.map((r) => r.amount)));
    // A preview changes nothing: the vendor is still on its own rule, version 1, and its releases went at P3D.
    const policy = await getJson(`${runtime.api.url}/vendors/${PREVIEWED.vendorId}/policy`);
    expect({ version: policy.version, release: policy.release }).toEqual({ version: 1, release: { kind: 'after_payment', delay: 'P3D' } });
    expect(week.finance.previewFrom).toBe('after_payment P3D');
  });

  it('forecasts every open release once: firm what was applied at its predicted day, projected the rest, in INR', () => {
    const { forecast, openAtForecast } = week.finance;
    expect({ from: forecast.from, to: forecast.to }).toEqual(FORECAST_RANGE);
    expect(forecast.days.every((d) => d.currency === 'INR')).toBe(true);
    // Friday evening nothing has settled or been cancelled yet: every release of the week is open.
    expect(openAtForecast).toHaveLength(week.rows.length);
    const applied = openAtForecast.filter((r) => r.state === 'APPLIED');
    const unsent: OpenRelease[] = openAtForecast.filter((r) => r.state !== 'APPLIED');
    expect(applied.length).toBeGreaterThan(0);
    const firmDays = Object.fromEntries(forecast.days.filter((d) => d.firm.count > 0).map((d) => [d.date, d.firm.count]));
    expect(firmDays).toEqual(countBy(applied.map((r) => indiaDate(r.predictedSettlement!))));
    expect(sum(forecast.days.map((d) => d.firm.amount))).toBe(sum(applied.map((r) => r.amount)));
    expect(forecast.days.reduce((n, d) => n + d.projected.count, 0)).toBe(unsent.length);
    expect(sum(forecast.days.map((d) => d.projected.amount))).toBe(sum(unsent.map((r) => r.amount)));
    expect(sum(forecast.days.flatMap((d) => [d.firm.amount, d.projected.amount])))
      .toBe(sum(DEMO_ORDERS.flatMap((o) => o.splits.map((s) => s.amount))));
  });

  it('reports prediction accuracy per schedule option exactly as the week settled', () => {
    type Row = { scheduleOption: number; settled: number; asPredicted: number; maxDifferenceMinutes: number; predicted: number; unpredicted: number; unpredictedReasons: unknown[] };
    const expected = new Map<number, Row>();
    // Every release the week settled was applied or left at max when planned: each had its prediction before it settled.
    for (const row of week.rows.filter((r) => r.actual !== null)) {
      const entry = expected.get(row.scheduleOption) ?? { scheduleOption: row.scheduleOption, settled: 0, asPredicted: 0, maxDifferenceMinutes: 0, predicted: 0, unpredicted: 0, unpredictedReasons: [] };
      entry.settled += 1;
      entry.predicted += 1;
      if (row.match === 'yes') entry.asPredicted += 1;
      expected.set(row.scheduleOption, entry);
    }
    expect(week.finance.accuracy.scheduleOptions).toEqual([...expected.values()].sort((a, b) => a.scheduleOption - b.scheduleOption));
    expect(week.finance.accuracy.scheduleOptions.reduce((n, a) => n + a.settled, 0)).toBe(week.summary.settled);
  });

  it('verifies the audit log: every chain and checkpoint holds', () => {
    const { verification } = week.finance;
    expect(verification).toMatchObject({ ok: true, firstBroken: null });
    // At least one gateway attempt per applied release, and the settings and every policy change, are recorded.
    expect(verification.records).toBeGreaterThanOrEqual(week.summary.applied + 1 + 9);
    expect(verification.streams).toBeGreaterThan(1);
    expect(verification.checkpoints).toBeGreaterThan(0);
  });

  it('prints each view as a table that says its units and time zone', () => {
    const text = formatFinance(week.finance);
    expect(text).toMatch(/Policy preview for v-p3d-1: after_payment P3D \(version 1\) -> after_payment P1D on schedule option 1/);
    expect(text).toMatch(/2 of 2 unsent releases would move \(times India time\)/);
    expect(text).toMatch(/Per India-time day of predicted settlement \(amounts in INR\)/);
    expect(text).toMatch(/date\s+currency\s+firm count\s+firm amount\s+projected count\s+projected amount/);
    expect(text).toMatch(/schedule option\s+settled\s+as predicted\s+largest difference \(minutes\)\s+not predicted before settling/);
    expect(text).toMatch(/\n\s+true\s+\d+\s+\d+\s+\d+\s+none$/);
  });
});

function countBy(keys: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const key of keys) counts[key] = (counts[key] ?? 0) + 1;
  return counts;
}
