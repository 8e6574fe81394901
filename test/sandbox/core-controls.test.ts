/** Sandbox core: controls (merchant, faults, rate limits, stats, reset) and webhook retries. */
import { customer, putEligibility, startHarness, startReceiver, type Harness } from './core-fixtures';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('2022-12-02T16:00:00+05:30');
});
afterAll(async () => {
  await h.sandbox.close();
});

const orderBody = (orderId: string) => ({ order_id: orderId, order_amount: 100, order_currency: 'INR', customer_details: customer() });

describe('merchant settings', () => {
  it('reads defaults, accepts partial updates and names the field of a bad one', async () => {
    await h.call('POST', '/_sandbox/reset');
    expect((await h.call('GET', '/_sandbox/merchant')).body).toEqual({ deferByDays: 15, deferredSettlementEnabled: true, tpvEnabled: false, webhookUrl: null, holidays: [] });
    const updated = await h.call('PUT', '/_sandbox/merchant', { deferByDays: 7, holidays: ['2022-12-25', '2022-12-07'] });
    expect(updated.body).toMatchObject({ deferByDays: 7, deferredSettlementEnabled: true, holidays: ['2022-12-07', '2022-12-25'] });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ deferByDays: -1 }, 'deferByDays_invalid'],
      [{ deferByDays: 2.5 }, 'deferByDays_invalid'],
      [{ tpvEnabled: 'yes' }, 'tpvEnabled_invalid'],
      [{ webhookUrl: 'ftp://x' }, 'webhookUrl_invalid'],
      [{ holidays: ['2022-13-01'] }, 'holidays_invalid'],
      [{ deferBy: 3 }, 'deferBy_unknown'],
    ];
    for (const [body, code] of cases) {
      const answer = await h.call('PUT', '/_sandbox/merchant', body);
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe(code);
      expect(answer.body.message).toContain('Value received');
    }
    expect((await h.call('GET', '/_sandbox/merchant')).body.deferByDays).toBe(7);
  });

  it('makes eligibility the payment time itself when deferred settlement is disabled', async () => {
    await h.call('POST', '/_sandbox/reset');
    await h.cf.PGESCreateVendors(undefined, undefined, { vendor_id: 'VX', name: 'VX', email: 'vx@example.com', phone: '9876543210', status: 'ACTIVE', schedule_option: 1 } as any);
    await h.call('PUT', '/_sandbox/merchant', { deferredSettlementEnabled: false });
    await h.cf.PGCreateOrder({ ...orderBody('ord_nodefer'), order_splits: [{ vendor_id: 'VX', percentage: 100 }] } as any);
    await h.call('POST', '/_sandbox/orders/ord_nodefer/pay', { payment_time: '2022-12-02T16:00:00+05:30' });
    const vendors = ((await h.cf.PGSplitOrderRecon('ord_nodefer')).data as any).vendors;
    expect(vendors[0]).toMatchObject({ vendor_id: 'VX', settlement_eligibility_date: '2022-12-02T16:00:00+05:30', settlement_amount: 100 });
  });

  it('forgets orders and vendors on reset but keeps the credentials', async () => {
    await h.call('POST', '/_sandbox/reset');
    expect(h.sandbox.state.orders.size).toBe(0);
    expect(h.sandbox.state.vendors.size).toBe(0);
    expect((await h.cf.PGCreateOrder(orderBody('ord_after_reset') as any)).status).toBe(200);
  });
});

describe('faults', () => {
  afterEach(async () => {
    await h.call('DELETE', '/_sandbox/faults');
  });

  it('validates the fault settings', async () => {
    for (const [body, code] of [[{ rate: 1.5, kinds: ['5xx'] }, 'rate_invalid'], [{ rate: 1, kinds: ['boom'] }, 'kinds_invalid'], [{ rate: 1, kinds: [] }, 'kinds_invalid']] as const) {
      const answer = await h.call('POST', '/_sandbox/faults', body);
      expect(answer.status).toBe(400);
      expect(answer.body.code).toBe(code);
    }
  });

  it('answers 5xx with api_error before processing: a faulted order creation stores nothing', async () => {
    await h.call('POST', '/_sandbox/faults', { rate: 1, kinds: ['5xx'], seed: 7 });
    const answer = await h.call('POST', '/pg/orders', orderBody('ord_faulted_5xx'), h.pgHeaders);
    expect([500, 502]).toContain(answer.status);
    expect(answer.body.type).toBe('api_error');
    // The sandbox controls are not gateway endpoints and stay reachable.
    expect((await h.call('GET', '/_sandbox/merchant')).status).toBe(200);
    await h.call('DELETE', '/_sandbox/faults');
    expect(h.sandbox.state.orders.has('ord_faulted_5xx')).toBe(false);
    expect((await h.call('GET', '/pg/orders/ord_faulted_5xx', undefined, h.pgHeaders)).status).toBe(404);
  });

  it('answers 429 with x-ratelimit headers', async () => {
    await h.call('POST', '/_sandbox/faults', { rate: 1, kinds: ['429'] });
    const answer = await h.call('POST', '/pg/orders', orderBody('ord_faulted_429'), h.pgHeaders);
    expect(answer.status).toBe(429);
    expect(answer.body.type).toBe('rate_limit_error');
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(answer.headers.get('x-ratelimit-retry'))).toBeGreaterThan(0);
    expect(answer.headers.get('x-ratelimit-type')).toBe('app_id');
    expect(h.sandbox.state.orders.has('ord_faulted_429')).toBe(false);
  });

  it('resets the connection, or holds it for timeoutMs and then drops it, without changing state', async () => {
    for (const kinds of [['reset'], ['timeout']]) {
      await h.call('POST', '/_sandbox/faults', { rate: 1, kinds, timeoutMs: 50 });
      const id = `ord_faulted_${kinds[0]}`;
      await expect(h.call('POST', '/pg/orders', orderBody(id), h.pgHeaders)).rejects.toThrow();
      expect(h.sandbox.state.orders.has(id)).toBe(false);
    }
    const stats = (await h.call('GET', '/_sandbox/stats')).body;
    expect(stats.faultsInjected.reset).toBeGreaterThanOrEqual(1);
    expect(stats.faultsInjected.timeout).toBeGreaterThanOrEqual(1);
  });

  it('faults the eligibility PUT too, leaving the eligibility, the log and counters untouched', async () => {
    await h.cf.PGESCreateVendors(undefined, undefined, { vendor_id: 'VF', name: 'VF', email: 'vf@example.com', phone: '9876543210', status: 'ACTIVE', schedule_option: 1 } as any);
    await h.cf.PGCreateOrder({ ...orderBody('ord_faulted_put'), order_splits: [{ vendor_id: 'VF', percentage: 100 }] } as any);
    await h.call('POST', '/_sandbox/orders/ord_faulted_put/pay', {});
    const eligibility = async () => ((await h.cf.PGSplitOrderRecon('ord_faulted_put')).data as any).vendors[0].settlement_eligibility_date;
    const untouched = await eligibility();
    const logged = h.sandbox.state.eligibilityLog.length;
    const counted = (await h.call('GET', '/_sandbox/stats')).body.eligibilityPut.total;
    for (const kinds of [['5xx'], ['429'], ['reset']]) {
      await h.call('POST', '/_sandbox/faults', { rate: 1, kinds });
      const put = putEligibility(h, 'ord_faulted_put', 'VF', '2022-12-06 09:00:00');
      if (kinds[0] === 'reset') await expect(put).rejects.toThrow();
      else expect((await put).status).toBeGreaterThanOrEqual(429);
    }
    await h.call('DELETE', '/_sandbox/faults');
    expect(await eligibility()).toBe(untouched);
    expect(h.sandbox.state.eligibilityLog.length).toBe(logged);
    expect((await h.call('GET', '/_sandbox/stats')).body.eligibilityPut.total).toBe(counted);
    // The same PUT without a fault does change the eligibility.
    expect((await putEligibility(h, 'ord_faulted_put', 'VF', '2022-12-06 09:00:00')).body.status).toBe('OK');
    expect(await eligibility()).toBe('2022-12-06T09:00:00+05:30');
  });

  it('hang_after_apply applies the eligibility PUT, then never answers it; other requests are not faulted', async () => {
    await h.cf.PGESCreateVendors(undefined, undefined, { vendor_id: 'VH', name: 'VH', email: 'vh@example.com', phone: '9876543210', status: 'ACTIVE', schedule_option: 1 } as any);
    await h.cf.PGCreateOrder({ ...orderBody('ord_hang_put'), order_splits: [{ vendor_id: 'VH', percentage: 100 }] } as any);
    await h.call('POST', '/_sandbox/orders/ord_hang_put/pay', {});
    const before = (await h.call('GET', '/_sandbox/stats')).body;
    await h.call('POST', '/_sandbox/faults', { rate: 1, kinds: ['hang_after_apply'], timeoutMs: 50 });
    // Any answer, even an error, would resolve the fetch: it rejects only because the connection was dropped unanswered.
    await expect(putEligibility(h, 'ord_hang_put', 'VH', '2022-12-06 09:00:00')).rejects.toThrow();
    // The gateway's other endpoints are not faulted by this kind: the recon answers, showing the applied date.
    const recon = await h.call('GET', '/pg/easy-split/orders/ord_hang_put', undefined, h.pgHeaders);
    expect(recon.status).toBe(200);
    expect(recon.body.vendors[0].settlement_eligibility_date).toBe('2022-12-06T09:00:00+05:30');
    const applied = (await h.call('GET', '/_sandbox/eligibility-updates')).body.applied;
    expect(applied).toContainEqual({ order_id: 'ord_hang_put', vendor_id: 'VH', applied: 1 });
    const after = (await h.call('GET', '/_sandbox/stats')).body;
    expect(after.faultsInjected.hang_after_apply).toBe(before.faultsInjected.hang_after_apply + 1);
    expect(after.eligibilityPut.total).toBe(before.eligibilityPut.total + 1);
    expect((await h.call('GET', '/_sandbox/faults')).body.faults.kinds).toEqual(['hang_after_apply']);
  });

  it('with a seed, a fractional rate faults the same requests every time', async () => {
    const run = async (): Promise<number[]> => {
      await h.call('POST', '/_sandbox/faults', { rate: 0.5, kinds: ['5xx'], seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await h.call('GET', '/pg/orders/ord_after_reset', undefined, h.pgHeaders)).status);
      return statuses;
    };
    const first = await run();
    expect(first).toContain(200);
    expect(first.some((s) => s >= 500)).toBe(true);
    expect(await run()).toEqual(first);
  });
});

describe('eligibility rate limit', () => {
  afterEach(async () => {
    await h.call('PUT', '/_sandbox/rate-limits', { eligibilityPerMinute: null });
  });

  it('answers 429 past the per-minute limit with the rate-limit headers and counts usage', async () => {
    // The window is real time: earlier tests' PUTs of the last minute would count, so start from a fresh state.
    await h.call('POST', '/_sandbox/reset');
    expect((await h.call('PUT', '/_sandbox/rate-limits', { eligibilityPerMinute: 0 })).body.code).toBe('eligibilityPerMinute_invalid');
    await h.call('PUT', '/_sandbox/rate-limits', { eligibilityPerMinute: 3 });
    const before = (await h.call('GET', '/_sandbox/stats')).body.eligibilityPut;
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await putEligibility(h, 'ord_after_reset', 'V1', '2022-12-06 09:00:00'));
    // Served within the limit: the answer is the gateway's own (the order is unpaid), with the remaining budget.
    expect(answers.slice(0, 3).map((a) => [a.status, a.headers.get('x-ratelimit-remaining')])).toEqual([[400, '2'], [400, '1'], [400, '0']]);
    expect(answers[0].body.message).toBe('Order ID does not exist');
    const limited = answers[3];
    expect(limited.status).toBe(429);
    expect(limited.body.type).toBe('rate_limit_error');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-type')).toBe('app_id');
    const retry = Number(limited.headers.get('x-ratelimit-retry'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    const after = (await h.call('GET', '/_sandbox/stats')).body.eligibilityPut;
    expect(after.total - before.total).toBe(4);
    expect(after.servedWithinLimit - before.servedWithinLimit).toBe(3);
    expect(after.rateLimited - before.rateLimited).toBe(1);
  });
});

describe('webhook deliveries', () => {
  it('retries a failing receiver and records each delivery with its status', async () => {
    await h.call('POST', '/_sandbox/reset');
    const flaky = await startReceiver(2);
    try {
      await h.cf.PGCreateOrder({ ...orderBody('ord_hook_retry'), order_meta: { notify_url: flaky.url } } as any);
      await h.call('POST', '/_sandbox/orders/ord_hook_retry/pay', {});
      await h.sandbox.webhooks.idle();
      expect(flaky.received).toHaveLength(3);
      const [delivery] = (await h.call('GET', '/_sandbox/webhooks')).body.deliveries;
      expect(delivery).toMatchObject({ type: 'PAYMENT_SUCCESS_WEBHOOK', url: flaky.url, status: 'DELIVERED', attempts: 3, last_status_code: 200 });
    } finally {
      await flaky.close();
    }
  });

  it('gives up after three attempts and marks the delivery FAILED', async () => {
    const down = await startReceiver(10);
    try {
      await h.cf.PGCreateOrder({ ...orderBody('ord_hook_down'), order_meta: { notify_url: down.url } } as any);
      await h.call('POST', '/_sandbox/orders/ord_hook_down/pay', {});
      await h.sandbox.webhooks.idle();
      const delivery = (await h.call('GET', '/_sandbox/webhooks')).body.deliveries.find((d: any) => d.url === down.url);
      expect(delivery).toMatchObject({ status: 'FAILED', attempts: 3, last_status_code: 500 });
    } finally {
      await down.close();
    }
  });
});
