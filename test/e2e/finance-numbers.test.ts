/**
 * Numbers finance can trust (issue 19), end to end through HTTP: every total per currency, one projection shared by
 * previews and the forecast (disputes and cancellations included), accuracy that counts only predictions made before
 * the settlement, and the auditor's CSV columns of contract 6.1.
 */
import { startHarness, type Harness } from './harness';

type Day = { date: string; currency: string; firm: { count: number; amount: string }; projected: { count: number; amount: string } };
type PreviewDay = { date: string; currency: string; current: { count: number; amount: string }; candidate: { count: number; amount: string } };

/** Non-empty days of a forecast as "date currency" -> "count amount" (firm and projected together: money landing that day). */
function forecastDays(days: Day[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of days) {
    const count = d.firm.count + d.projected.count;
    if (count > 0) out[`${d.date} ${d.currency}`] = `${count} ${(Number(d.firm.amount) * 100 + Number(d.projected.amount) * 100) / 100}`;
  }
  return out;
}

function previewDays(days: PreviewDay[], side: 'current' | 'candidate'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of days) if (d[side].count > 0) out[`${d.date} ${d.currency}`] = `${d[side].count} ${Number(d[side].amount)}`;
  return out;
}

describe('numbers finance can trust', () => {
  let h: Harness;
  // Paid 2 Dec 16:05 IST; the window (Defer by Days 15) ends 17 Dec 16:05; option 1 settles the next working day 11:00.
  const paidAt = '2022-12-02T16:05:00+05:30';

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  test('a USD order of 1000 and an INR order of 100 for one vendor: every total of the API and the CSV per currency', async () => {
    // After delivery: nothing is sent (no delivery yet), so the USD order needs no gateway order.
    await h.setPolicy('v-fx', { kind: 'after_delivery', delay: 'P2D' });
    await h.send('order.paid', { orderId: 'fx-usd', transactionTime: paidAt, vendors: [{ vendorId: 'v-fx', amount: '1000' }], currency: 'USD' });
    await h.send('order.paid', { orderId: 'fx-inr', transactionTime: paidAt, vendors: [{ vendorId: 'v-fx', amount: '100' }], currency: 'INR' });

    const vendors = await h.api('GET', '/vendors');
    const fx = vendors.body.items.find((v: { vendorId: string }) => v.vendorId === 'v-fx');
    expect(fx.open).toEqual([{ currency: 'INR', count: 1, amount: '100.00' }, { currency: 'USD', count: 1, amount: '1000.00' }]);

    // Waiting for a delivery: both land at the settlement after their max eligibility (19 Dec is a Monday).
    const forecast = await h.api('GET', '/vendors/v-fx/forecast?from=2022-12-17&to=2022-12-20');
    expect(forecast.status).toBe(200);
    expect(forecast.body.days.filter((d: Day) => d.projected.count > 0)).toEqual([
      { date: '2022-12-19', currency: 'INR', firm: { count: 0, amount: '0.00' }, projected: { count: 1, amount: '100.00' } },
      { date: '2022-12-19', currency: 'USD', firm: { count: 0, amount: '0.00' }, projected: { count: 1, amount: '1000.00' } },
    ]);

    const preview = await h.api('POST', '/vendors/v-fx/policy/preview', { scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3D' } });
    expect(preview.status).toBe(200);
    // 5 Dec 16:05 (Monday) settles Tuesday 6 Dec 11:00; each currency its own entry.
    expect(preview.body.perDay).toEqual([
      { date: '2022-12-06', currency: 'INR', current: { count: 0, amount: '0.00' }, candidate: { count: 1, amount: '100.00' } },
      { date: '2022-12-06', currency: 'USD', current: { count: 0, amount: '0.00' }, candidate: { count: 1, amount: '1000.00' } },
      { date: '2022-12-19', currency: 'INR', current: { count: 1, amount: '100.00' }, candidate: { count: 0, amount: '0.00' } },
      { date: '2022-12-19', currency: 'USD', current: { count: 1, amount: '1000.00' }, candidate: { count: 0, amount: '0.00' } },
    ]);

    const outcomes = await h.api('GET', '/outcomes?vendorId=v-fx');
    expect(outcomes.body.items.map((i: { orderId: string; currency: string; amount: string }) => `${i.orderId} ${i.amount} ${i.currency}`).sort())
      .toEqual(['fx-inr 100.00 INR', 'fx-usd 1000.00 USD']);
    // Held or waiting, the order view shows where the money lands, marked as projected.
    const order = await h.api('GET', '/orders/fx-usd');
    expect(order.body.vendors[0]).toMatchObject({ state: 'WAITING', predictedSettlement: null, projectedSettlement: '2022-12-19T11:00:00+05:30', settlementProjected: true });

    const csv = await (await fetch(`${h.runtime.api.url}/outcomes?format=csv&vendorId=v-fx`)).text();
    const rows = csv.split('\r\n').slice(1, -1).map((line) => line.split(','));
    expect(rows.map((r) => `${r[0]} ${r[2]} ${r[3]}`).sort()).toEqual(['fx-inr 100.00 INR', 'fx-usd 1000.00 USD']);
  });

  test('a preview applied and the forecast after it agree day by day and currency by currency, a dispute and a cancellation included', async () => {
    // Default policy (at_max): every release stays AT_MAX whatever happens to its order.
    await h.send('order.paid', { orderId: 'mix-plain', transactionTime: paidAt, vendors: [{ vendorId: 'v-mix', amount: '300' }], currency: 'INR' });
    await h.send('order.paid', { orderId: 'mix-usd', transactionTime: paidAt, vendors: [{ vendorId: 'v-mix', amount: '50.50' }], currency: 'USD' });
    await h.send('order.paid', { orderId: 'mix-disputed', transactionTime: paidAt, vendors: [{ vendorId: 'v-mix', amount: '200' }], currency: 'INR' });
    await h.send('order.dispute_opened', { orderId: 'mix-disputed', openedAt: paidAt });
    await h.send('order.paid', { orderId: 'mix-cancelled', transactionTime: paidAt, vendors: [{ vendorId: 'v-mix', amount: '70' }], currency: 'INR' });
    await h.send('order.cancelled', { orderId: 'mix-cancelled', cancelledAt: paidAt });

    const range = '?from=2022-12-02&to=2022-12-31';
    const before = await h.api('GET', `/vendors/v-mix/forecast${range}`);
    const candidate = { scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3D' }, applyTo: 'open_orders' };
    const preview = await h.api('POST', '/vendors/v-mix/policy/preview', candidate);
    expect(preview.status).toBe(200);
    // What the preview calls current is what the forecast says now.
    expect(previewDays(preview.body.perDay, 'current')).toEqual(forecastDays(before.body.days));
    // The cancelled order is dropped, not moved; the disputed one stays where the gateway settles it anyway.
    const byOrder = Object.fromEntries(preview.body.releases.map((r: { orderId: string }) => [r.orderId, r]));
    expect(byOrder['mix-cancelled']).toMatchObject({ moves: false, dropped: true, candidate: { predictedSettlement: null } });
    expect(byOrder['mix-disputed'].candidate.predictedSettlement).toBe('2022-12-19T11:00:00+05:30');
    expect(byOrder['mix-plain']).toMatchObject({ moves: true, candidate: { predictedSettlement: '2022-12-06T11:00:00+05:30' } });
    // Moved: the two that go early, and the disputed one (its target is the rule's now, held until the dispute closes).
    expect({ moved: preview.body.moved, dropped: preview.body.dropped }).toEqual({ moved: 3, dropped: 1 });
    expect(previewDays(preview.body.perDay, 'candidate')).toEqual({
      '2022-12-06 INR': '1 300', '2022-12-06 USD': '1 50.5', '2022-12-19 INR': '1 200',
    });

    const applied = await h.api('PUT', '/vendors/v-mix/policy', { ...candidate, actor: 'finance@test', reason: 'e2e: preview then apply', previewId: preview.body.previewId });
    expect(applied.status).toBe(200);
    await h.runtime.idle();
    const after = await h.api('GET', `/vendors/v-mix/forecast${range}`);
    expect(forecastDays(after.body.days)).toEqual(previewDays(preview.body.perDay, 'candidate'));
    // The order view projects the same landing.
    const disputed = await h.api('GET', '/orders/mix-disputed');
    expect(disputed.body.vendors[0]).toMatchObject({ state: 'HELD', holdReason: 'dispute', projectedSettlement: '2022-12-19T11:00:00+05:30', settlementProjected: true });
  });

  test('accuracy counts only predictions made before the settlement; the CSV says why, who released by hand, and the mismatch', async () => {
    await h.createVendors([{ id: 'v-acc', scheduleOption: 1 }]);
    await h.setPolicy('v-acc', { kind: 'after_delivery', delay: 'P1D' });
    // Three orders at the gateway: one cancelled (the gateway settles it anyway), one waiting for a delivery that
    // never comes, one released by hand.
    for (const id of ['acc-cancelled', 'acc-waiting', 'acc-manual']) {
      const at = await h.createPaidOrder(id, [{ vendorId: 'v-acc', amount: 500 }]);
      await h.send('order.paid', { orderId: id, transactionTime: at, vendors: [{ vendorId: 'v-acc', amount: 500 }] });
    }
    await h.send('order.cancelled', { orderId: 'acc-cancelled', cancelledAt: paidAt });
    const manual = await h.api('POST', '/orders/acc-manual/vendors/v-acc/release', { actor: 'ops@test', reason: 'vendor in good standing' });
    expect(manual.status).toBe(200);
    await h.advance('P20D');

    const accuracy = await h.api('GET', '/reports/prediction-accuracy?from=2022-12-01&to=2022-12-31');
    const row = accuracy.body.scheduleOptions.find((r: { scheduleOption: number }) => r.scheduleOption === 1);
    // Only the manual release was predicted (when it was applied); the other two settled with no prediction.
    expect(row).toMatchObject({ settled: 3, predicted: 1, asPredicted: 1, unpredicted: 2 });
    expect(row.unpredictedReasons.map((r: { reason: string }) => r.reason).sort()).toEqual([
      expect.stringMatching(/^settled although its order was cancelled/),
      expect.stringMatching(/^settled while waiting for an event/),
    ]);

    const csv = await (await fetch(`${h.runtime.api.url}/outcomes?format=csv&vendorId=v-acc`)).text();
    const [header, ...lines] = csv.split('\r\n').filter(Boolean);
    expect(header.split(',').slice(-5)).toEqual(['reason', 'hold_reason', 'manual_actor', 'manual_reason', 'settlement_mismatch_minutes']);
    const cell = (orderId: string, column: string) => {
      const line = lines.find((l) => l.startsWith(`${orderId},`))!;
      const cells = line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"'));
      return cells[header.split(',').indexOf(column)];
    };
    expect(cell('acc-cancelled', 'state')).toBe('SETTLED');
    expect(cell('acc-cancelled', 'reason')).toMatch(/although the order was cancelled \(was CANCELLED/);
    expect(cell('acc-manual', 'manual_actor')).toBe('ops@test');
    expect(cell('acc-manual', 'manual_reason')).toBe('vendor in good standing');
    // Predicted and settled as predicted: empty; never predicted: empty too (nothing to compare with).
    expect(cell('acc-manual', 'settlement_mismatch_minutes')).toBe('');
    expect(cell('acc-waiting', 'settlement_mismatch_minutes')).toBe('');
    // The JSON items carry the same facts.
    const items = (await h.api('GET', '/outcomes?vendorId=v-acc')).body.items;
    const manualItem = items.find((i: { orderId: string }) => i.orderId === 'acc-manual');
    expect(manualItem.manual).toMatchObject({ actor: 'ops@test', reason: 'vendor in good standing' });
  // Over jest's 60 s default at a load of about 50 on 2 cores (issue 19's full run), under it at 45: three times that.
  }, 180_000);
});
