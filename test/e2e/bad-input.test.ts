/** Issue 10 (1, 4, 9): bad input through the real interfaces is refused naming its field and listed, never stored half-planned. */
import { createHmac } from 'node:crypto';
import { MAX_HOLIDAYS } from '../../functions/domain/errors';
import { START, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => { h = await startHarness(); });
afterAll(() => h.close());

interface Listed { detailType: string | null; reasons: string[]; detail: unknown }

async function rejected(): Promise<Listed[]> {
  const { status, body } = await h.api('GET', '/rejected-events?limit=500');
  expect(status).toBe(200);
  return body.rejectedEvents as Listed[];
}

/** The listed rejection whose reasons mention `text`. */
async function rejectionMentioning(text: string): Promise<Listed | undefined> {
  return (await rejected()).find((r) => r.reasons.some((reason) => reason.includes(text)));
}

function nested(levels: number): unknown {
  let value: unknown = { leaf: true };
  for (let i = 0; i < levels; i += 1) value = { a: value };
  return value;
}

const paid = (orderId: string, transactionTime: string, amount: unknown = '100.00') => ({
  orderId, transactionTime, vendors: [{ vendorId: 'vendor_a', amount }, { vendorId: 'vendor_b', amount: '50.00' }],
});

describe('times, durations and amounts out of bounds (10.1)', () => {
  it('a transaction time in 9999 is refused and listed, nothing is kept, and the corrected order.paid is planned', async () => {
    await h.send('order.paid', paid('order_far_future', '9999-12-20T10:00:00+05:30'));
    const listed = await rejectionMentioning('detail.transactionTime: is 9999-12-20T10:00:00');
    expect(listed).toBeDefined();
    expect(listed!.reasons.join(' ')).toMatch(/more than a day after Holdback's clock; send a time from 2000-01-01T00:00:00Z to one day \(P1D\)/);
    expect((await h.api('GET', '/orders/order_far_future')).status).toBe(404);

    await h.send('order.paid', paid('order_far_future', START));
    const order = await h.api('GET', '/orders/order_far_future');
    expect(order.status).toBe(200);
    expect(order.body.maxEligibility).toBe('2022-12-17T16:05:00+05:30');
    expect(order.body.vendors.map((v: { vendorId: string; state: string }) => `${v.vendorId}:${v.state}`).sort()).toEqual(['vendor_a:AT_MAX', 'vendor_b:AT_MAX']);
  });

  it('years 0001 and 1999, an openedAt in 2999 and a 30-digit amount are each refused naming the field', async () => {
    await h.send('order.paid', paid('order_year_one', '0001-01-01T00:00:00Z'));
    await h.send('order.paid', paid('order_year_1999', '1999-12-31T23:59:59Z'));
    await h.send('order.dispute_opened', { orderId: 'order_far_future', openedAt: '2999-01-01T00:00:00+05:30' });
    await h.send('order.paid', paid('order_huge_amount', START, '123456789012345678901234567890'));
    expect(await rejectionMentioning('detail.transactionTime: is 0001-01-01')).toBeDefined();
    expect(await rejectionMentioning('detail.transactionTime: is 1999-12-31')).toBeDefined();
    expect(await rejectionMentioning('detail.openedAt: is 2999-01-01')).toBeDefined();
    expect(await rejectionMentioning('detail.vendors[0].amount: has 30 characters')).toBeDefined();
    for (const id of ['order_year_one', 'order_year_1999', 'order_huge_amount']) expect((await h.api('GET', `/orders/${id}`)).status).toBe(404);
    // The dispute in 2999 did not hold anything.
    const order = await h.api('GET', '/orders/order_far_future');
    expect(order.body.vendors.every((v: { state: string }) => v.state === 'AT_MAX')).toBe(true);
  });

  it('releaseLead P100000Y and a policy delay of P99999D answer 400 naming the field and its range', async () => {
    const lead = await h.api('PUT', '/settings', { releaseLead: 'P100000Y' });
    expect(lead.status).toBe(400);
    expect(lead.body.error.issues).toEqual([expect.objectContaining({ field: 'releaseLead', expected: expect.stringContaining('up to P30D') })]);
    const delay = await h.api('PUT', '/vendors/vendor_a/policy', {
      scheduleOption: 1, release: { kind: 'after_payment', delay: 'P99999D' }, actor: 'finance@test', reason: 'bounds',
    });
    expect(delay.status).toBe(400);
    expect(delay.body.error.issues).toEqual([expect.objectContaining({ field: 'release.delay', expected: expect.stringContaining('up to P365D') })]);
    // The bounds themselves are accepted.
    expect((await h.api('PUT', '/vendors/vendor_c/policy', {
      scheduleOption: 1, release: { kind: 'after_payment', delay: 'P365D' }, actor: 'finance@test', reason: 'bounds',
    })).status).toBe(200);
  });
});

describe('vendorIds naming a vendor outside the order (10.1)', () => {
  it('after the payment: refused and listed, the order\'s own vendors untouched', async () => {
    await h.setPolicy('vendor_x', { kind: 'after_delivery', delay: 'P2D' });
    await h.send('order.paid', { orderId: 'order_ghost_after', transactionTime: START, vendors: [{ vendorId: 'vendor_x', amount: '10.00' }] });
    await h.send('order.delivered', { orderId: 'order_ghost_after', deliveredAt: START, vendorIds: ['vendor_x', 'vendor_ghost'] });
    const listed = await rejectionMentioning('names "vendor_ghost", not a vendor of order order_ghost_after');
    expect(listed?.detailType).toBe('order.delivered');
    const order = await h.api('GET', '/orders/order_ghost_after');
    expect(order.body.vendors[0]).toMatchObject({ vendorId: 'vendor_x', state: 'WAITING' });
  });

  it('before the payment: kept, then listed and not applied when the payment arrives', async () => {
    await h.send('order.delivered', { orderId: 'order_ghost_before', deliveredAt: START, vendorIds: ['vendor_x', 'vendor_ghost2'] });
    expect(await rejectionMentioning('vendor_ghost2')).toBeUndefined();
    await h.send('order.paid', { orderId: 'order_ghost_before', transactionTime: START, vendors: [{ vendorId: 'vendor_x', amount: '10.00' }] });
    expect(await rejectionMentioning('names "vendor_ghost2", not a vendor of order order_ghost_before')).toBeDefined();
    const order = await h.api('GET', '/orders/order_ghost_before');
    expect(order.body.vendors[0]).toMatchObject({ vendorId: 'vendor_x', state: 'WAITING' });
  });
});

describe('deeply nested input (10.4)', () => {
  it('an event whose detail nests 2,000 levels is refused and listed (bus, worker thread, handler)', async () => {
    await h.send('order.paid', { ...paid('order_deep', START), extra: nested(2000) });
    const listed = await rejectionMentioning('detail: nests objects and lists more than 32 levels deep');
    expect(listed).toBeDefined();
    expect((await h.api('GET', '/orders/order_deep')).status).toBe(404);
    expect(h.runtime.edge.bus.failures).toEqual([]);
  });

  it('a JSON body nesting 2,000 levels answers 400 naming body, on the API and on the webhook', async () => {
    const settings = await h.api('PUT', '/settings', { deferByDays: 15, extra: nested(2000) });
    expect(settings.status).toBe(400);
    expect(settings.body.error.issues[0]).toMatchObject({ field: 'body', problem: expect.stringContaining('more than 32 levels') });

    const raw = JSON.stringify({ type: 'PAYMENT_SUCCESS_WEBHOOK', event_time: START, data: nested(2000) });
    const webhook = await postWebhook(raw);
    expect(webhook.status).toBe(400);
    expect(webhook.body.error.issues[0]).toMatchObject({ field: 'body', problem: expect.stringContaining('more than 32 levels') });
    // The signed webhook is an event the gateway sent: it is listed too.
    const listed = (await rejected()).find((r) => r.detailType === 'PAYMENT_SUCCESS_WEBHOOK' && r.reasons[0].startsWith('body: nests'));
    expect(listed).toBeDefined();
  });
});

/** Posts a webhook to Holdback's receiver signed with the sandbox's secret, as the gateway does. */
async function postWebhook(raw: string): Promise<{ status: number; body: any }> {
  const timestamp = String(h.runtime.clock.nowMs());
  const signature = createHmac('sha256', h.runtime.sandbox.context.config.clientSecret).update(timestamp + raw).digest('base64');
  const response = await fetch(`${h.runtime.api.url}/webhooks/gateway`, {
    method: 'POST', body: raw,
    headers: { 'content-type': 'application/json', 'x-webhook-timestamp': timestamp, 'x-webhook-signature': signature, 'x-webhook-version': '2023-08-01' },
  });
  return { status: response.status, body: await response.json() };
}

describe('signed webhook splits (10.1)', () => {
  const webhook = (orderId: string, orderAmount: number, splits: object[]) => JSON.stringify({
    type: 'PAYMENT_SUCCESS_WEBHOOK', event_time: START,
    data: {
      order: { order_id: orderId, order_amount: orderAmount, order_currency: 'INR', order_splits: splits },
      payment: { payment_status: 'SUCCESS', payment_time: START },
    },
  });

  it('a split of "10.005" is refused, not rounded', async () => {
    const answer = await postWebhook(webhook('order_split_decimals', 20.01, [{ vendor_id: 'vendor_a', amount: '10.005' }, { vendor_id: 'vendor_b', amount: 10 }]));
    expect(answer.status).toBe(400);
    expect(answer.body.error.issues).toEqual([expect.objectContaining({ field: 'data.order.order_splits[0].amount', problem: expect.stringContaining('3 decimals') })]);
    expect((await h.api('GET', '/orders/order_split_decimals')).status).toBe(404);
    expect(await rejectionMentioning('data.order.order_splits[0].amount: is "10.005", 3 decimals')).toBeDefined();
  });

  it('splits adding up to more than order_amount are refused', async () => {
    const answer = await postWebhook(webhook('order_split_sum', 100, [{ vendor_id: 'vendor_a', amount: 80 }, { vendor_id: 'vendor_b', amount: 30 }]));
    expect(answer.status).toBe(400);
    expect(answer.body.error.issues[0].problem).toBe('split shares add up to 110.00, more than order_amount 100.00');
  });
});

describe('settings too large for a table item (10.9)', () => {
  it('40,000 holidays answer 400 naming holidays and the limit', async () => {
    const holidays = Array.from({ length: 40_000 }, (_, i) => new Date(Date.UTC(2000, 0, 1) + i * 86_400_000).toISOString().slice(0, 10));
    const answer = await h.api('PUT', '/settings', { holidays });
    expect(answer.status).toBe(400);
    expect(answer.body.error.issues).toEqual([{
      field: 'holidays', problem: `has 40000 dates, more than the limit of ${MAX_HOLIDAYS}`, expected: expect.stringContaining(`at most ${MAX_HOLIDAYS}`),
    }]);
    expect((await h.api('PUT', '/settings', { holidays: holidays.slice(0, MAX_HOLIDAYS) })).status).toBe(200);
    expect((await h.api('PUT', '/settings', { holidays: [] })).status).toBe(200);
  });
});
