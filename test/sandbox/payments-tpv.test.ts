/** Bank account check (TPV, 1.4 and section 3): a payment from another account fails and the order stays ACTIVE. */
import { refusal, startHarness, TEST_CARD, type Harness } from './payments-harness';

let h: Harness;
const ASHA = { upi_id: 'asha@okbank', bank_account_number: '11112222333', ifsc: 'SBIN0001234', bank_code: 3044 };
const RAVI = { upi_id: 'ravi@okbank', bank_account_number: '99998888777', ifsc: 'HDFC0004321', bank_code: 3021 };
/** The customer's account given at order creation is Asha's. */
const TPV_CUSTOMER = { customer_bank_account_number: ASHA.bank_account_number, customer_bank_ifsc: ASHA.ifsc, customer_bank_code: ASHA.bank_code };

beforeAll(async () => {
  h = await startHarness();
  expect((await h.control('PUT', '/_sandbox/merchant', { tpvEnabled: true })).status).toBe(200);
  const put = await h.control('PUT', '/_sandbox/test-payers', [ASHA, RAVI]);
  expect(put).toEqual({ status: 200, body: { payers: [ASHA, RAVI] } });
});
afterAll(async () => { await h.close(); });

async function pay(sessionId: string, paymentMethod: unknown): Promise<any> {
  const response = await h.cf.PGPayOrder({ payment_session_id: sessionId, payment_method: paymentMethod as any });
  h.contract.check('post', '/orders/sessions', 200, response.data);
  return response.data;
}

async function approve(url: string, payerAccount?: string): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcome: 'approve', ...(payerAccount ? { payer_account_number: payerAccount } : {}) }) });
  return { status: response.status, ...((await response.json()) as any) };
}

async function orderStatus(orderId: string): Promise<string> {
  return (await h.cf.PGFetchOrder(orderId)).data.order_status as string;
}

it('order creation needs the account and IFSC while TPV is on', async () => {
  const { status, data } = await refusal(h.order(100));
  expect(status).toBe(400);
  expect(data.message).toMatch(/^customer_details\.customer_bank_account_number: is required/);
});

it('UPI collect from a UPI id of another account fails and the order stays ACTIVE; from the customer\'s own id it pays', async () => {
  const order = await h.order(750, TPV_CUSTOMER);
  const wrong = await pay(order.payment_session_id, { upi: { channel: 'collect', upi_id: RAVI.upi_id } });
  const failed = await approve(wrong.data.url);
  expect(failed).toMatchObject({ payment_status: 'FAILED', order_status: 'ACTIVE' });
  expect(failed.payment_message).toMatch(/^Bank account verification \(TPV\) failed: paid from bank account XXXXXXX8777 \(HDFC0004321\), which differs from the account XXXXXXX2333/);
  expect(await orderStatus(order.order_id)).toBe('ACTIVE');
  await h.sandbox.webhooks.idle();
  expect(h.hooks.forPayment(wrong.cf_payment_id).map((w) => [w.type, w.signatureValid])).toEqual([['PAYMENT_FAILED_WEBHOOK', true]]);
  expect(JSON.stringify(h.hooks.forPayment(wrong.cf_payment_id)[0].body)).not.toContain(RAVI.bank_account_number);

  const right = await pay(order.payment_session_id, { upi: { channel: 'collect', upi_id: ASHA.upi_id } });
  expect(await approve(right.data.url)).toMatchObject({ payment_status: 'SUCCESS', order_status: 'PAID' });
  expect(await orderStatus(order.order_id)).toBe('PAID');
});

it('UPI intent: the account chosen in the UPI app is checked (another account fails; the default payer is the first registered)', async () => {
  const order = await h.order(640, TPV_CUSTOMER);
  const first = await pay(order.payment_session_id, { upi: { channel: 'link' } });
  const page = await (await fetch(first.data.url)).text();
  expect(page).toContain(`value="${RAVI.bank_account_number}"`);
  expect(await approve(first.data.url, RAVI.bank_account_number)).toMatchObject({ payment_status: 'FAILED', order_status: 'ACTIVE' });
  const second = await pay(order.payment_session_id, { upi: { channel: 'link' } });
  expect(await approve(second.data.url)).toMatchObject({ payment_status: 'SUCCESS', order_status: 'PAID' });
});

it('UPI intent refuses a paying account that is not a registered test payer', async () => {
  const order = await h.order(640, TPV_CUSTOMER);
  const answer = await pay(order.payment_session_id, { upi: { channel: 'link' } });
  const result = await approve(answer.data.url, '55554444333');
  expect(result).toMatchObject({ status: 400, code: 'payer_account_number_invalid' });
});

it('net banking: paying from another bank or another account fails; the customer\'s bank and account pay', async () => {
  const order = await h.order(910, TPV_CUSTOMER);
  const otherBank = await pay(order.payment_session_id, { netbanking: { channel: 'link', netbanking_bank_code: RAVI.bank_code } });
  const failed = await approve(otherBank.data.url);
  expect(failed).toMatchObject({ payment_status: 'FAILED', order_status: 'ACTIVE' });
  expect(failed.payment_message).toMatch(/net banking bank 3021 differs from the customer's bank 3044/);

  const sameBankOtherAccount = await pay(order.payment_session_id, { netbanking: { channel: 'link', netbanking_bank_code: ASHA.bank_code } });
  expect(await approve(sameBankOtherAccount.data.url, RAVI.bank_account_number)).toMatchObject({ payment_status: 'FAILED', order_status: 'ACTIVE' });

  const right = await pay(order.payment_session_id, { netbanking: { channel: 'link', netbanking_bank_code: ASHA.bank_code } });
  expect(await approve(right.data.url)).toMatchObject({ payment_status: 'SUCCESS', order_status: 'PAID' });
});

it('net banking under TPV needs the order\'s customer_bank_code', async () => {
  const order = await h.order(910, { customer_bank_account_number: ASHA.bank_account_number, customer_bank_ifsc: ASHA.ifsc });
  const { status, data } = await refusal(h.cf.PGPayOrder({ payment_session_id: order.payment_session_id, payment_method: { netbanking: { channel: 'link', netbanking_bank_code: 3044 } } as any }));
  expect(status).toBe(400);
  expect(data.message).toMatch(/^payment_method\.netbanking: .*created without customer_details\.customer_bank_code/);
});

it('methods whose paying account cannot be verified (card EMI, pay later) are refused while TPV is on', async () => {
  const order = await h.order(5000, TPV_CUSTOMER);
  const { data } = await refusal(h.cf.PGPayOrder({ payment_session_id: order.payment_session_id, payment_method: { emi: { channel: 'link', ...TEST_CARD, card_bank_name: 'iss-01', emi_tenure: 3 } } as any }));
  expect(data.message).toMatch(/^payment_method\.emi: is not accepted while the bank account check \(TPV\) is enabled/);
  const later = await refusal(h.cf.PGPayOrder({ payment_session_id: order.payment_session_id, payment_method: { paylater: { channel: 'link', provider: 'pl-2', phone: '9876543210' } } as any }));
  expect(later.data.message).toMatch(/^payment_method\.paylater: is not accepted while the bank account check \(TPV\) is enabled/);
  const cardless = await refusal(h.cf.PGPayOrder({ payment_session_id: order.payment_session_id, payment_method: { cardless_emi: { channel: 'link', provider: 'prov-a', phone: '9876543210' } } as any }));
  expect(cardless.data.message).toMatch(/^payment_method\.cardless_emi: is not accepted while the bank account check \(TPV\) is enabled/);
});

it('without TPV, payments are not checked', async () => {
  await h.control('PUT', '/_sandbox/merchant', { tpvEnabled: false });
  try {
    const order = await h.order(300, TPV_CUSTOMER);
    const answer = await pay(order.payment_session_id, { upi: { channel: 'collect', upi_id: RAVI.upi_id } });
    expect(await approve(answer.data.url)).toMatchObject({ payment_status: 'SUCCESS', order_status: 'PAID' });
  } finally {
    await h.control('PUT', '/_sandbox/merchant', { tpvEnabled: true });
  }
});

it('the test-payer registry refuses malformed entries by name', async () => {
  const bad = await h.control('PUT', '/_sandbox/test-payers', [{ bank_account_number: '123456789', ifsc: 'SBIN1234567' }]);
  expect(bad).toMatchObject({ status: 400, body: { code: 'payers[0].ifsc_invalid' } });
  expect((await h.control('GET', '/_sandbox/test-payers')).body.payers).toEqual([ASHA, RAVI]);
});
