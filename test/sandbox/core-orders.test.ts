/** Sandbox core: orders, vendors and recon through the official SDK, with the gateway's auth, version and field errors. */
import { CLIENT_SECRET, customer, sdkError, startHarness, type Harness } from './core-fixtures';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('2022-12-02T16:00:00+05:30');
});
afterAll(async () => {
  await h.sandbox.close();
});

const vendor = (id: string, extra: Record<string, unknown> = {}) =>
  ({ vendor_id: id, name: `Vendor ${id}`, email: `${id.toLowerCase()}@example.com`, phone: '9876543210', status: 'ACTIVE', schedule_option: 1, kyc_details: {}, ...extra }) as any;

describe('orders', () => {
  it('creates an order with the 2022-09-01 response shape and fetches it', async () => {
    const created = await h.cf.PGCreateOrder({
      order_id: 'ord_shape_1',
      order_amount: 10.15,
      order_currency: 'INR',
      customer_details: customer({ customer_bank_account_number: '1234567890', customer_bank_ifsc: 'SBIN0001234' }),
      order_meta: { notify_url: 'http://127.0.0.1:9/notify' },
      order_note: 'Test order',
      order_tags: { shop: 'north' },
    } as any);
    const o = created.data as any;
    expect(Number.isInteger(o.cf_order_id)).toBe(true);
    expect(o).toMatchObject({
      order_id: 'ord_shape_1',
      entity: 'order',
      order_amount: 10.15,
      order_currency: 'INR',
      order_status: 'ACTIVE',
      order_note: 'Test order',
      order_tags: { shop: 'north' },
      order_splits: [],
      order_meta: { return_url: null, notify_url: 'http://127.0.0.1:9/notify', payment_methods: null },
      created_at: '2022-12-02T16:00:00+05:30',
      order_expiry_time: '2023-01-01T16:00:00+05:30',
    });
    expect(o.customer_details).toEqual({ customer_id: 'cust_001', customer_name: 'Buyer', customer_email: 'buyer@example.com', customer_phone: '9999999999' });
    expect(JSON.stringify(o)).not.toContain('1234567890');
    expect(typeof o.payment_session_id).toBe('string');
    for (const k of ['payments', 'refunds', 'settlements']) expect(o[k].url).toBe(`${h.sandbox.url}/pg/orders/ord_shape_1/${k}`);

    const fetched = await h.cf.PGFetchOrder('ord_shape_1');
    expect(fetched.data).toEqual(o);
  });

  it('generates an order_id when none is sent', async () => {
    const created = await h.cf.PGCreateOrder({ order_amount: 1, order_currency: 'INR', customer_details: customer() } as any);
    expect((created.data as any).order_id).toMatch(/^[A-Za-z0-9_-]{3,45}$/);
  });

  it('answers field errors with code <field>_<problem> and message "<field>: <reason>. Value received: <v>"', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ order_amount: 10.155 }, 'order_amount_invalid', 'order_amount: '],
      [{ order_amount: -5 }, 'order_amount_invalid', 'Value received: -5'],
      [{ order_amount: undefined }, 'order_amount_missing', 'order_amount: '],
      [{ order_currency: 'USD' }, 'order_currency_invalid', 'Value received: USD'],
      [{ order_id: 'ab' }, 'order_id_invalid', 'order_id: '],
      [{ order_id: 'has space here' }, 'order_id_invalid', 'Value received: has space here'],
      [{ customer_details: { customer_id: 'c1' } }, 'customer_details.customer_phone_missing', 'customer_details.customer_phone: '],
      [{ customer_details: { customer_phone: '9999999999' } }, 'customer_details.customer_id_missing', 'customer_details.customer_id: '],
      [{ customer_details: customer({ customer_email: 'not-an-email' }) }, 'customer_details.customer_email_invalid', 'Value received: not-an-email'],
      [{ customer_details: customer({ customer_bank_ifsc: 'SBIN1001234' }) }, 'customer_details.customer_bank_ifsc_invalid', 'Value received: SBIN1001234'],
      [{ customer_details: customer({ customer_bank_code: '3044' }) }, 'customer_details.customer_bank_code_invalid', 'Value received: 3044'],
      [{ order_expiry_time: '2022-12-01T10:00:00+05:30' }, 'order_expiry_time_invalid', 'in the future'],
    ];
    for (const [patch, code, fragment] of cases) {
      const body = { order_amount: 100, order_currency: 'INR', customer_details: customer(), ...patch };
      const { status, data } = await sdkError(h.cf.PGCreateOrder(body as any));
      expect({ status, code: data.code, type: data.type }).toEqual({ status: 400, code, type: 'invalid_request_error' });
      expect(data.message).toContain(fragment);
      expect(data.message).toMatch(/^[^:]+: .+\. Value received: /);
    }
  });

  it('rejects a duplicate order_id with 409 order_already_exists and unknown orders with 404 order_not_found', async () => {
    const body = { order_id: 'ord_dup_1', order_amount: 5, order_currency: 'INR', customer_details: customer() };
    await h.cf.PGCreateOrder(body as any);
    const dup = await sdkError(h.cf.PGCreateOrder(body as any));
    expect(dup).toMatchObject({ status: 409, data: { code: 'order_already_exists', type: 'invalid_request_error' } });
    const missing = await sdkError(h.cf.PGFetchOrder('ord_never_made'));
    expect(missing).toMatchObject({ status: 404, data: { code: 'order_not_found', type: 'invalid_request_error' } });
  });

  it('shows an unpaid order EXPIRED after its expiry time', async () => {
    await h.cf.PGCreateOrder({ order_id: 'ord_expiring', order_amount: 5, order_currency: 'INR', customer_details: customer(), order_expiry_time: '2022-12-02T17:00:00+05:30' } as any);
    expect((await h.cf.PGFetchOrder('ord_expiring')).data.order_status).toBe('ACTIVE');
    const back = h.clock.nowMs();
    await h.clock.set(new Date('2022-12-02T17:00:01+05:30'));
    expect((await h.cf.PGFetchOrder('ord_expiring')).data.order_status).toBe('EXPIRED');
    const pay = await h.call('POST', '/_sandbox/orders/ord_expiring/pay', {});
    expect(pay.status).toBe(400);
    expect(pay.body.code).toBe('order_not_payable');
    await h.clock.set(new Date(back));
  });

  it('requires the bank account and IFSC when the merchant has TPV enabled', async () => {
    await h.call('PUT', '/_sandbox/merchant', { tpvEnabled: true });
    try {
      const noAccount = await sdkError(h.cf.PGCreateOrder({ order_amount: 100, order_currency: 'INR', customer_details: customer() } as any));
      expect(noAccount.data.code).toBe('customer_details.customer_bank_account_number_missing');
      const noIfsc = await sdkError(h.cf.PGCreateOrder({ order_amount: 100, order_currency: 'INR', customer_details: customer({ customer_bank_account_number: '00011020001772' }) } as any));
      expect(noIfsc.data.code).toBe('customer_details.customer_bank_ifsc_missing');
      const ok = await h.cf.PGCreateOrder({
        order_id: 'ord_tpv_1', order_amount: 100, order_currency: 'INR',
        customer_details: customer({ customer_bank_account_number: '00011020001772', customer_bank_ifsc: 'HDFC0000001', customer_bank_code: 3021 }),
      } as any);
      expect(ok.data.customer_details).toEqual({ customer_id: 'cust_001', customer_name: 'Buyer', customer_email: 'buyer@example.com', customer_phone: '9999999999' });
      expect(h.sandbox.state.orders.get('ord_tpv_1')?.customer).toMatchObject({ customer_bank_account_number: '00011020001772', customer_bank_ifsc: 'HDFC0000001', customer_bank_code: 3021 });
    } finally {
      await h.call('PUT', '/_sandbox/merchant', { tpvEnabled: false });
    }
  });
});

describe('authentication and version', () => {
  it('answers 401 authentication_error for missing or wrong credentials, without echoing the secret', async () => {
    const wrong = await h.call('POST', '/pg/orders', { order_amount: 1, order_currency: 'INR', customer_details: customer() }, { 'x-client-id': 'core_test_client', 'x-client-secret': 'guessed-secret-123', 'x-api-version': '2022-09-01' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.type).toBe('authentication_error');
    expect(JSON.stringify(wrong.body)).not.toContain('guessed-secret-123');
    expect(JSON.stringify(wrong.body)).not.toContain(CLIENT_SECRET);
    const missing = await h.call('GET', '/pg/orders/ord_shape_1', undefined, { 'x-api-version': '2022-09-01' });
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ code: 'authentication_failed', type: 'authentication_error' });
    for (const path of ['/pg/easy-split/vendors/V1', '/pg/easy-split/orders/ord_shape_1']) {
      expect((await h.call('GET', path, undefined, { 'x-api-version': '2022-09-01' })).status).toBe(401);
    }
  });

  it('requires x-api-version 2022-09-01 on /pg', async () => {
    const { 'x-api-version': _dropped, ...noVersion } = h.pgHeaders;
    const missing = await h.call('GET', '/pg/orders/ord_shape_1', undefined, noVersion);
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'x-api-version_missing', type: 'invalid_request_error' });
    const old = await h.call('GET', '/pg/orders/ord_shape_1', undefined, { ...noVersion, 'x-api-version': '2021-05-21' });
    expect(old.status).toBe(400);
    expect(old.body.code).toBe('x-api-version_invalid');
    expect(old.body.message).toContain('Value received: 2021-05-21');
  });

  it('says what is wrong with a body that is not JSON', async () => {
    const bad = await h.call('POST', '/pg/orders', '{"order_amount": 1,', h.pgHeaders);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('not valid JSON');
  });
});

describe('easy split vendors, splits and recon', () => {
  it('creates and fetches vendors with their schedule option', async () => {
    const created = await h.cf.PGESCreateVendors(undefined, undefined, vendor('V_ALPHA', { schedule_option: 2 }));
    expect(created.data).toMatchObject({
      vendor_id: 'V_ALPHA', status: 'ACTIVE', name: 'Vendor V_ALPHA',
      schedule_option: { schedule_id: 2, settlement_schedule_message: 'T+2 at 11:00 AM', merchant_default: false },
    });
    const fetched = await h.cf.PGESFetchVendors('V_ALPHA');
    expect(fetched.data).toEqual(created.data);
    const dup = await sdkError(h.cf.PGESCreateVendors(undefined, undefined, vendor('V_ALPHA')));
    expect(dup).toMatchObject({ status: 409, data: { code: 'vendor_already_exists' } });
    const missing = await sdkError(h.cf.PGESFetchVendors('V_NOBODY'));
    expect(missing).toMatchObject({ status: 404, data: { code: 'vendor_not_found' } });
  });

  it('accepts schedule options 1-9 and 11-16 only', async () => {
    for (const bad of [10, 0, 17, 1.5, '1']) {
      const { status, data } = await sdkError(h.cf.PGESCreateVendors(undefined, undefined, vendor(`V_BAD_${String(bad).replace('.', '_')}`, { schedule_option: bad })));
      expect(status).toBe(400);
      expect(data.code).toBe('schedule_option_invalid');
    }
    const ok = await h.cf.PGESCreateVendors(undefined, undefined, vendor('V_SIXTEEN', { schedule_option: 16 }));
    expect(ok.data.schedule_option?.schedule_id).toBe(16);
  });

  it('validates order_splits against vendors and the order amount', async () => {
    await h.cf.PGESCreateVendors(undefined, undefined, vendor('V_BETA'));
    await h.cf.PGESCreateVendors(undefined, undefined, vendor('V_BLOCKED', { status: 'BLOCKED' }));
    const order = (splits: unknown) => ({ order_amount: 1000, order_currency: 'INR', customer_details: customer(), order_splits: splits });
    const cases: Array<[unknown, string]> = [
      [[{ vendor_id: 'V_NOBODY', amount: 10 }], 'does not exist'],
      [[{ vendor_id: 'V_BLOCKED', amount: 10 }], 'BLOCKED'],
      [[{ vendor_id: 'V_ALPHA', amount: 600 }, { vendor_id: 'V_BETA', amount: 400.01 }], 'more than the order amount'],
      [[{ vendor_id: 'V_ALPHA', percentage: 60 }, { vendor_id: 'V_BETA', percentage: 41 }], 'more than 100'],
      [[{ vendor_id: 'V_ALPHA', amount: 10 }, { vendor_id: 'V_BETA', percentage: 10 }], 'all by percentage'],
      [[{ vendor_id: 'V_ALPHA', amount: 10, percentage: 10 }], 'exactly one of amount and percentage'],
    ];
    for (const [splits, fragment] of cases) {
      const { status, data } = await sdkError(h.cf.PGCreateOrder(order(splits) as any));
      expect(status).toBe(400);
      expect(data.code).toMatch(/^order_splits/);
      expect(data.message).toContain(fragment);
    }
  });

  it('shows each split vendor in the recon, with its settlement after payment', async () => {
    const created = await h.cf.PGCreateOrder({
      order_id: 'ord_recon_1', order_amount: 1000.5, order_currency: 'INR', customer_details: customer(),
      order_splits: [{ vendor_id: 'V_ALPHA', percentage: 33.33 }, { vendor_id: 'V_BETA', percentage: 40 }],
    } as any);
    expect(created.data.order_splits).toEqual([{ vendor_id: 'V_ALPHA', percentage: 33.33 }, { vendor_id: 'V_BETA', percentage: 40 }]);
    const before = await h.cf.PGSplitOrderRecon('ord_recon_1');
    expect((before.data as any).vendors).toEqual([
      { vendor_id: 'V_ALPHA', settlement_id: null, settlement_amount: 333.47, settlement_eligibility_date: null, settlement_status: null, settled_at: null },
      { vendor_id: 'V_BETA', settlement_id: null, settlement_amount: 400.2, settlement_eligibility_date: null, settlement_status: null, settled_at: null },
    ]);
    const paid = await h.call('POST', '/_sandbox/orders/ord_recon_1/pay', { payment_time: '2022-12-02T16:00:00+05:30' });
    expect(paid.status).toBe(200);
    expect((await h.cf.PGFetchOrder('ord_recon_1')).data.order_status).toBe('PAID');
    const after = (await h.cf.PGSplitOrderRecon('ord_recon_1')).data as any;
    expect(after).toMatchObject({ order_id: 'ord_recon_1', order_amount: 1000.5, order_status: 'PAID', payment_time: '2022-12-02T16:00:00+05:30' });
    expect(after.vendors.map((v: any) => [v.vendor_id, v.settlement_amount, v.settlement_eligibility_date, v.settlement_status])).toEqual([
      ['V_ALPHA', 333.47, '2022-12-17T16:00:00+05:30', 'PENDING'],
      ['V_BETA', 400.2, '2022-12-17T16:00:00+05:30', 'PENDING'],
    ]);
    const missing = await sdkError(h.cf.PGSplitOrderRecon('ord_never_made'));
    expect(missing).toMatchObject({ status: 404, data: { code: 'order_not_found' } });
  });
});
