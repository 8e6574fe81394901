/** Orders pay (4.2) and OTP (4.3) through the official SDK: EMI plan bounds, debit pre-approval, cardless, pay later, UPI, net banking. */
import Decimal from 'decimal.js';
import { CARDLESS_EMI, CREDIT_EMI, DEBIT_EMI, type TableRow } from './payments-interface-tables';
import { refusal, startHarness, TEST_CARD, type Harness } from './payments-harness';

let h: Harness;
beforeAll(async () => { h = await startHarness(); });
afterAll(async () => { await h.close(); });

const SESSIONS = '/orders/sessions';

/** Orders pay through the SDK; the response is checked against the OpenAPI document. */
async function pay(sessionId: string, paymentMethod: unknown): Promise<any> {
  const response = await h.cf.PGPayOrder({ payment_session_id: sessionId, payment_method: paymentMethod as any });
  h.contract.check('post', SESSIONS, 200, response.data);
  return response.data;
}

/** A refused orders pay: a 400 gateway error body, checked against the document. */
async function refused(sessionId: string, paymentMethod: unknown): Promise<{ message: string; code: string; type: string }> {
  const { status, data } = await refusal(h.cf.PGPayOrder({ payment_session_id: sessionId, payment_method: paymentMethod as any }));
  expect(status).toBe(400);
  h.contract.check('post', SESSIONS, 400, data);
  expect(data.type).toBe('invalid_request_error');
  return data;
}

async function otp(cfPaymentId: number, code: string): Promise<any> {
  const response = await h.cf.PGOrderAuthenticatePayment(String(cfPaymentId), { action: 'SUBMIT_OTP' as any, otp: code });
  h.contract.check('post', '/orders/pay/authenticate/{payment_id}', 200, response.data);
  return response.data;
}

async function orderStatus(orderId: string): Promise<string> {
  return (await h.cf.PGFetchOrder(orderId)).data.order_status as string;
}

/** The customer at the bank's or provider's page (data.url of an action-link answer). */
async function atRedirectPage(url: string, outcome: 'approve' | 'decline', extra: Record<string, string> = {}): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcome, ...extra }) });
  expect(response.status).toBe(200);
  return response.json();
}

const credit = (bank: string, tenure: number) => ({ emi: { channel: 'link', ...TEST_CARD, card_bank_name: bank, emi_tenure: tenure } });
const cents = (amount: string, delta: string) => new Decimal(amount).plus(delta).toNumber();

/**
 * Every row of a section-8 table: each tenure accepted at its minimum and refused one paisa below; the maximum accepted
 * and one paisa above refused (no maximum: a very large order is accepted). One order per amount, paid again and again.
 */
async function holdsEveryBound(table: TableRow[], method: (code: string, tenure: number) => unknown): Promise<void> {
  const orders = new Map<number, string>();
  const session = async (amount: number): Promise<string> => {
    if (!orders.has(amount)) orders.set(amount, (await h.order(amount)).payment_session_id);
    return orders.get(amount)!;
  };
  for (const issuer of table) {
    for (const [tenure, [min]] of Object.entries(issuer.plans)) {
      const t = Number(tenure);
      expect((await pay(await session(Number(min)), method(issuer.code, t))).cf_payment_id).toBeGreaterThan(0);
      const error = await refused(await session(cents(min, '-0.01')), method(issuer.code, t));
      expect(error.message).toContain(`minimum order amount ${min} for tenure ${t}`);
    }
    const longest = Math.max(...Object.keys(issuer.plans).map(Number));
    if (issuer.max === null) {
      expect((await pay(await session(10_000_000), method(issuer.code, longest))).cf_payment_id).toBeGreaterThan(0);
    } else {
      expect((await pay(await session(Number(issuer.max)), method(issuer.code, longest))).cf_payment_id).toBeGreaterThan(0);
      expect((await refused(await session(cents(issuer.max, '0.01')), method(issuer.code, longest))).message).toContain(`maximum order amount ${issuer.max}`);
    }
  }
}

describe('credit card EMI (8.1)', () => {
  it('ISS-01 tenure 3 is accepted at its minimum 1000 and answers with a redirect (action link)', async () => {
    const order = await h.order(1000);
    const answer = await pay(order.payment_session_id, credit('iss-01', 3));
    expect(answer).toMatchObject({ payment_method: 'emi', channel: 'link', action: 'link', payment_amount: 1000, data: { payload: null, content_type: null, method: null } });
    expect(Number.isInteger(answer.cf_payment_id)).toBe(true);
    expect(answer.data.url).toBe(`${h.sandbox.url}/_sandbox/pay/${answer.cf_payment_id}`);
    expect((await fetch(answer.data.url)).status).toBe(200);
  });

  it('ISS-01 tenure 3 is refused at 999.99, naming the tenure and the minimum 1000', async () => {
    const order = await h.order(999.99);
    const error = await refused(order.payment_session_id, credit('iss-01', 3));
    expect(error.code).toBe('payment_method.emi.emi_tenure_invalid');
    expect(error.message).toMatch(/^payment_method\.emi\.emi_tenure: .*minimum order amount 1000 for tenure 3/);
  });

  it('ISS-01 tenure 6 needs 3000: refused at 2999.99 (tenure 3 still open), accepted at 3000', async () => {
    const below = await h.order(2999.99);
    const error = await refused(below.payment_session_id, credit('iss-01', 6));
    expect(error.message).toMatch(/minimum order amount 3000 for tenure 6/);
    expect(error.message).toMatch(/open to this amount: 3\b/);
    const at = await h.order(3000);
    expect((await pay(at.payment_session_id, credit('iss-01', 6))).action).toBe('link');
  });

  it('ISS-01 caps the order at 500000: accepted at 500000, refused at 500000.01', async () => {
    expect((await pay((await h.order(500000)).payment_session_id, credit('iss-01', 12))).action).toBe('link');
    const error = await refused((await h.order(500000.01)).payment_session_id, credit('iss-01', 12));
    expect(error.message).toMatch(/maximum order amount 500000/);
  });

  it('refuses a tenure the issuer does not offer, listing the ones it does', async () => {
    const error = await refused((await h.order(5000)).payment_session_id, credit('iss-01', 18));
    expect(error.message).toMatch(/tenure 18 is not offered by "iss-01".*3, 6, 9, 12/);
  });

  it('ISS-06\'s code contains a space: "iss 06" is accepted, "iss-06" is refused', async () => {
    const order = await h.order(2000);
    expect((await pay(order.payment_session_id, credit('iss 06', 3))).action).toBe('link');
    const error = await refused(order.payment_session_id, credit('iss-06', 3));
    expect(error.code).toBe('payment_method.emi.card_bank_name_invalid');
    expect(error.message).toMatch(/"iss 06"/);
  });

  it('holds every 8.1 bound: each tenure accepted at its minimum and refused one paisa below; maxima likewise', async () => {
    await holdsEveryBound(CREDIT_EMI, credit);
  });

  it('refuses missing or malformed card fields by name', async () => {
    const sid = (await h.order(5000)).payment_session_id;
    const base = credit('iss-01', 3).emi;
    expect((await refused(sid, { emi: { ...base, card_expiry_mm: 7 } })).message).toMatch(/^payment_method\.emi\.card_expiry_mm: must be a string/);
    expect((await refused(sid, { emi: { ...base, card_expiry_mm: '7' } })).message).toMatch(/^payment_method\.emi\.card_expiry_mm: must be a two-digit month/);
    expect((await refused(sid, { emi: { ...base, card_number: '4111 1111' } })).message).toMatch(/^payment_method\.emi\.card_number: must be 12 to 19 digits/);
    expect((await refused(sid, { emi: { ...base, card_cvv: undefined } })).code).toBe('payment_method.emi.card_cvv_missing');
  });

  it('never echoes a card number or CVV sent with the wrong type', async () => {
    const sid = (await h.order(5000)).payment_session_id;
    const base = credit('iss-01', 3).emi;
    const number = await refused(sid, { emi: { ...base, card_number: 4111111111111111 } });
    expect(number.message).toMatch(/^payment_method\.emi\.card_number: must be a string/);
    expect(number.message).not.toContain('4111111111111111');
    const cvv = await refused(sid, { emi: { ...base, card_cvv: 987 } });
    expect(cvv.message).toMatch(/^payment_method\.emi\.card_cvv: must be a string/);
    expect(cvv.message).not.toContain('987');
  });

  it('completes at the redirect page: the order is PAID and PAYMENT_SUCCESS_WEBHOOK is signed to notify_url', async () => {
    const order = await h.order(1500);
    const answer = await pay(order.payment_session_id, credit('iss-04', 3));
    expect(await atRedirectPage(answer.data.url, 'approve')).toMatchObject({ payment_status: 'SUCCESS', order_status: 'PAID' });
    expect(await orderStatus(order.order_id)).toBe('PAID');
    await h.sandbox.webhooks.idle();
    const hooks = h.hooks.forPayment(answer.cf_payment_id);
    expect(hooks.map((w) => w.type)).toEqual(['PAYMENT_SUCCESS_WEBHOOK']);
    expect(hooks[0].signatureValid).toBe(true);
    expect(hooks[0].body.data).toMatchObject({ order: { order_id: order.order_id, order_amount: 1500 }, payment: { payment_status: 'SUCCESS', payment_group: 'credit_card_emi' } });
    expect(JSON.stringify(hooks[0].body)).not.toContain(TEST_CARD.card_number);
    expect(JSON.stringify(hooks[0].body)).not.toContain(`"${TEST_CARD.card_cvv}"`);
    const again = await refusal(h.cf.PGPayOrder({ payment_session_id: order.payment_session_id, payment_method: credit('iss-04', 3) as any }));
    expect(again.data.code).toBe('order_not_payable');
  });

  it('a declined payment fails with PAYMENT_FAILED_WEBHOOK and leaves the order ACTIVE', async () => {
    const order = await h.order(1500);
    const answer = await pay(order.payment_session_id, credit('iss-07', 3));
    expect(await atRedirectPage(answer.data.url, 'decline')).toMatchObject({ payment_status: 'FAILED', order_status: 'ACTIVE' });
    await h.sandbox.webhooks.idle();
    expect(h.hooks.forPayment(answer.cf_payment_id).map((w) => [w.type, w.signatureValid])).toEqual([['PAYMENT_FAILED_WEBHOOK', true]]);
  });
});

describe('debit card EMI (8.2): pre-approved customers, OTP', () => {
  const approved = '9876500001';
  const debit = (bank: string, tenure: number, phone: string | number = Number(approved)) => ({ emi: { channel: 'post', ...TEST_CARD, card_holder_name: 'Asha Rao', phone, card_bank_name: bank, emi_tenure: tenure } });

  beforeAll(async () => {
    const put = await h.control('PUT', '/_sandbox/pre-approved-phones', { phones: [approved, '+91 98765 00002'] });
    expect(put).toEqual({ status: 200, body: { phones: [approved, '9876500002'] } });
  });

  it('ISS-01 tenure 3 at 3000 for a pre-approved phone answers action post with the authenticate url', async () => {
    const answer = await pay((await h.order(3000)).payment_session_id, debit('iss-01', 3));
    expect(answer).toMatchObject({ payment_method: 'emi', channel: 'post', action: 'post', data: { url: `${h.sandbox.url}/pg/orders/pay/authenticate/${answer.cf_payment_id}`, payload: null, content_type: 'application/json', method: 'post' } });
  });

  it('refuses a phone that is not pre-approved, saying how to approve it', async () => {
    const error = await refused((await h.order(3000)).payment_session_id, debit('iss-01', 3, '9876509999'));
    expect(error.message).toMatch(/^payment_method\.emi\.phone: customer 9876509999 is not pre-approved for debit card EMI.*PUT \/_sandbox\/pre-approved-phones/);
  });

  it('holds the 8.2 minimums: ISS-01 tenure 6 needs 5000, ISS-03 tenure 9 needs 8000, ISS-03 caps at 200000', async () => {
    expect((await refused((await h.order(4999.99)).payment_session_id, debit('iss-01', 6))).message).toContain('minimum order amount 5000 for tenure 6');
    expect((await refused((await h.order(7999.99)).payment_session_id, debit('iss-03', 9))).message).toContain('minimum order amount 8000 for tenure 9');
    expect((await pay((await h.order(8000)).payment_session_id, debit('iss-03', 9))).action).toBe('post');
    expect((await refused((await h.order(200000.01)).payment_session_id, debit('iss-03', 12))).message).toContain('maximum order amount 200000');
  });

  it('holds every 8.2 bound for a pre-approved customer: each tenure at its minimum and one paisa below; maxima', async () => {
    await holdsEveryBound(DEBIT_EMI, (code, tenure) => debit(code, tenure));
  });

  it('refuses debit EMI from a credit-only issuer and an 8.2 issuer without that tenure', async () => {
    const sid = (await h.order(10000)).payment_session_id;
    expect((await refused(sid, debit('iss-02', 3))).message).toMatch(/"iss-02" offers credit card EMI only/);
    expect((await refused(sid, debit('iss-04', 18))).message).toMatch(/tenure 18 is not offered by "iss-04"/);
  });

  it('ISS-04 has no native OTP: the customer is sent to the bank page (action link)', async () => {
    const answer = await pay((await h.order(5000)).payment_session_id, debit('iss-04', 3));
    expect(answer).toMatchObject({ channel: 'link', action: 'link', data: { content_type: null, method: null } });
    expect(answer.data.url).toContain('/_sandbox/pay/');
    const wrong = await refusal(h.cf.PGOrderAuthenticatePayment(String(answer.cf_payment_id), { action: 'SUBMIT_OTP' as any, otp: '111000' }));
    expect(wrong.data.code).toBe('payment_otp_not_applicable');
  });

  it('a wrong OTP fails the payment (order stays ACTIVE); the test OTP 111000 pays the order', async () => {
    const order = await h.order(3000);
    const first = await pay(order.payment_session_id, debit('iss-01', 3));
    expect(await otp(first.cf_payment_id, '123456')).toEqual({ cf_payment_id: first.cf_payment_id, action: 'SUBMIT_OTP', authenticate_status: 'FAILED', payment_message: 'OTP verification failed: the OTP is incorrect' });
    expect(await orderStatus(order.order_id)).toBe('ACTIVE');
    const twice = await refusal(h.cf.PGOrderAuthenticatePayment(String(first.cf_payment_id), { action: 'SUBMIT_OTP' as any, otp: '111000' }));
    expect(twice).toMatchObject({ status: 400, data: { code: 'payment_not_pending' } });

    const second = await pay(order.payment_session_id, debit('iss-01', 3));
    expect(await otp(second.cf_payment_id, '111000')).toMatchObject({ authenticate_status: 'SUCCESS', payment_message: 'Transaction successful' });
    expect(await orderStatus(order.order_id)).toBe('PAID');
    await h.sandbox.webhooks.idle();
    expect(h.hooks.forPayment(first.cf_payment_id).map((w) => w.type)).toEqual(['PAYMENT_FAILED_WEBHOOK']);
    expect(h.hooks.forPayment(second.cf_payment_id).map((w) => w.type)).toEqual(['PAYMENT_SUCCESS_WEBHOOK']);
  });

  it('the authenticate endpoint refuses a bad action, a missing OTP and an unknown payment', async () => {
    const answer = await pay((await h.order(3000)).payment_session_id, debit('iss-01', 3));
    const badAction = await refusal(h.cf.PGOrderAuthenticatePayment(String(answer.cf_payment_id), { action: 'RESEND' as any, otp: '111000' }));
    expect(badAction).toMatchObject({ status: 400, data: { code: 'action_invalid' } });
    const noOtp = await refusal(h.cf.PGOrderAuthenticatePayment(String(answer.cf_payment_id), { action: 'SUBMIT_OTP' as any } as any));
    expect(noOtp).toMatchObject({ status: 400, data: { code: 'otp_missing' } });
    const unknown = await refusal(h.cf.PGOrderAuthenticatePayment('42', { action: 'SUBMIT_OTP' as any, otp: '111000' }));
    expect(unknown.status).toBe(404);
    h.contract.check('post', '/orders/pay/authenticate/{payment_id}', 404, unknown.data);
  });
});

describe('cardless EMI (2.8, 8.3)', () => {
  const cardless = (provider: string, extra: Record<string, unknown> = {}) => ({ cardless_emi: { channel: 'link', provider, phone: '9876543210', ...extra } });

  it('PROV-A from 500 and PROV-B from 1000; PROV-C has no shown minimum', async () => {
    expect((await pay((await h.order(500)).payment_session_id, cardless('prov-a'))).payment_method).toBe('cardless_emi');
    expect((await refused((await h.order(499.99)).payment_session_id, cardless('prov-a'))).message).toMatch(/^payment_method\.cardless_emi\.provider: .*minimum order amount 500 of cardless EMI provider "prov-a"/);
    expect((await pay((await h.order(1000)).payment_session_id, cardless('prov-b'))).action).toBe('link');
    expect((await refused((await h.order(999.99)).payment_session_id, cardless('prov-b'))).message).toContain('minimum order amount 1000');
    expect((await pay((await h.order(1)).payment_session_id, cardless('prov-c'))).action).toBe('link');
  });

  it('8.3 providers hold their plan bounds: ISS-17 tenure 6 needs 6000, ISS-16 caps at 100000', async () => {
    const iss17 = CARDLESS_EMI.find((r) => r.label === 'ISS-17')!;
    expect(iss17.plans[6][0]).toBe('6000');
    expect((await refused((await h.order(5999.99)).payment_session_id, cardless('iss-17', { emi_tenure: 6 }))).message).toContain('minimum order amount 6000 for tenure 6');
    expect((await pay((await h.order(6000)).payment_session_id, cardless('iss-17', { emi_tenure: 6 }))).action).toBe('link');
    expect((await refused((await h.order(100000.01)).payment_session_id, cardless('iss-16'))).message).toContain('maximum order amount 100000');
    expect((await refused((await h.order(4999.99)).payment_session_id, cardless('iss-18'))).message).toMatch(/fits no cardless plan of "iss-18"/);
  });

  it('holds every 8.3 bound: each tenure at its minimum and one paisa below; maxima', async () => {
    await holdsEveryBound(CARDLESS_EMI, (code, tenure) => cardless(code, { emi_tenure: tenure }));
  });

  it('refuses an unknown provider and a missing phone by name', async () => {
    const sid = (await h.order(5000)).payment_session_id;
    expect((await refused(sid, cardless('pl-2'))).code).toBe('payment_method.cardless_emi.provider_invalid');
    expect((await refused(sid, { cardless_emi: { channel: 'link', provider: 'prov-a' } })).code).toBe('payment_method.cardless_emi.phone_missing');
  });
});

describe('pay later (2.6)', () => {
  const paylater = (provider: string, phone: string) => ({ paylater: { channel: 'link', provider, phone } });

  it('takes the five codes (PL-1 is "prov-b") and refuses others', async () => {
    const sid = (await h.order(2000)).payment_session_id;
    for (const code of ['prov-b', 'pl-2', 'pl-3', 'pl-4', 'pl-5']) expect((await pay(sid, paylater(code, '9876543210'))).payment_method).toBe('paylater');
    expect((await refused(sid, paylater('pl-1', '9876543210'))).message).toMatch(/^payment_method\.paylater\.provider: is not a pay-later provider code/);
  });

  it('PL-4: a new customer is redirected; after a successful payment the same phone gets the OTP (post) flow', async () => {
    const phone = '9876512345';
    const first = await h.order(2500);
    const answer = await pay(first.payment_session_id, paylater('pl-4', phone));
    expect(answer).toMatchObject({ channel: 'link', action: 'link', data: { content_type: null, method: null } });
    expect(answer.data.url).toContain('/_sandbox/pay/');
    expect(await atRedirectPage(answer.data.url, 'approve')).toMatchObject({ payment_status: 'SUCCESS' });

    const repeat = await h.order(1200);
    const again = await pay(repeat.payment_session_id, paylater('pl-4', `+91${phone}`));
    expect(again).toMatchObject({ channel: 'post', action: 'post', data: { url: `${h.sandbox.url}/pg/orders/pay/authenticate/${again.cf_payment_id}`, content_type: 'application/json', method: 'post' } });
    expect(await otp(again.cf_payment_id, '111000')).toMatchObject({ authenticate_status: 'SUCCESS' });
    expect(await orderStatus(repeat.order_id)).toBe('PAID');

    const stranger = await pay((await h.order(1200)).payment_session_id, paylater('pl-4', '9876500077'));
    expect(stranger.action).toBe('link');
    const otherProvider = await pay((await h.order(1200)).payment_session_id, paylater('pl-2', phone));
    expect(otherProvider.action).toBe('link');
  });
});

describe('UPI and net banking (2.4)', () => {
  it('UPI collect needs upi_id; UPI intent (link) goes without it', async () => {
    const sid = (await h.order(100)).payment_session_id;
    expect(await pay(sid, { upi: { channel: 'collect', upi_id: 'asha@okbank' } })).toMatchObject({ payment_method: 'upi', channel: 'collect', action: 'link' });
    expect((await refused(sid, { upi: { channel: 'collect' } })).code).toBe('payment_method.upi.upi_id_missing');
    expect(await pay(sid, { upi: { channel: 'link' } })).toMatchObject({ payment_method: 'upi', channel: 'link', action: 'link' });
    expect((await refused(sid, { upi: { channel: 'link', upi_id: 'asha@okbank' } })).message).toMatch(/^payment_method\.upi\.upi_id: must be left out with channel "link"/);
  });

  it('net banking needs an integer netbanking_bank_code', async () => {
    const sid = (await h.order(100)).payment_session_id;
    expect(await pay(sid, { netbanking: { channel: 'link', netbanking_bank_code: 3044 } })).toMatchObject({ payment_method: 'netbanking', channel: 'link', action: 'link' });
    expect((await refused(sid, { netbanking: { channel: 'link', netbanking_bank_code: '3044' } })).message).toMatch(/^payment_method\.netbanking\.netbanking_bank_code: must be a positive integer/);
  });
});

describe('the sessions request itself', () => {
  it('needs exactly one payment_method key', async () => {
    const sid = (await h.order(100)).payment_session_id;
    expect((await refused(sid, {})).message).toMatch(/^payment_method: must hold exactly one method, none given/);
    expect((await refused(sid, { upi: { channel: 'link' }, netbanking: { channel: 'link', netbanking_bank_code: 3044 } })).message).toMatch(/^payment_method: must hold exactly one method, 2 given/);
    expect((await refused(sid, { card: {} })).message).toMatch(/^payment_method: key "card" is not supported here/);
  });

  it('answers an unknown payment_session_id with the gateway\'s 404 body, without echoing the whole token', async () => {
    const token = `session_${'x'.repeat(60)}`;
    const { status, data } = await refusal(h.cf.PGPayOrder({ payment_session_id: token, payment_method: { upi: { channel: 'link' } } as any }));
    expect(status).toBe(404);
    h.contract.check('post', SESSIONS, 404, data);
    expect(data).toMatchObject({ code: 'payment_session_id_invalid', type: 'invalid_request_error' });
    expect(data.message).not.toContain(token);
  });

  it('takes no client credentials (section 5)', async () => {
    const sid = (await h.order(100)).payment_session_id;
    const response = await fetch(`${h.sandbox.url}/pg/orders/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ payment_session_id: sid, payment_method: { upi: { channel: 'link' } } }) });
    expect(response.status).toBe(200);
  });
});

describe('the OpenAPI check used above', () => {
  it('rejects bodies that break the document, so passing it means something', () => {
    const good = { payment_method: 'upi', channel: 'link', action: 'link', data: { url: 'http://x', payload: null, content_type: null, method: null }, cf_payment_id: 1, payment_amount: 1 };
    expect(() => h.contract.check('post', SESSIONS, 200, good)).not.toThrow();
    expect(() => h.contract.check('post', SESSIONS, 200, { ...good, cf_payment_id: '1' })).toThrow(/cf_payment_id must be integer/);
    expect(() => h.contract.check('post', SESSIONS, 200, { ...good, action: 'redirect' })).toThrow(/action must be equal to one of the allowed values/);
    expect(() => h.contract.check('get', '/links/{link_id}', 200, { cf_link_id: 1, customer_details: {} })).toThrow(/must have required property 'customer_phone'/);
  });
});
