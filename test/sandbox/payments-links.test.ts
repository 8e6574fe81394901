/** Payment links (4.4, 2.10) through the SDK, the link page, and the bulk CSV upload (2.11) with per-row results. */
import { refusal, startHarness, CLIENT_ID, CLIENT_SECRET, type Harness } from './payments-harness';

let h: Harness;
const ACCOUNT = { upi_id: 'meera@okbank', bank_account_number: '50100200300', ifsc: 'ICIC0001122', bank_code: 3022 };
const OFFSET_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30$/;

beforeAll(async () => {
  h = await startHarness();
  await h.control('PUT', '/_sandbox/merchant', { tpvEnabled: true });
  await h.control('PUT', '/_sandbox/test-payers', [ACCOUNT]);
});
afterAll(async () => { await h.close(); });

function linkRequest(linkId: string, extra: Record<string, unknown> = {}): any {
  return {
    link_id: linkId,
    link_amount: 1000,
    link_currency: 'INR',
    link_purpose: 'Invoice 42',
    customer_details: {
      customer_phone: '9876543210',
      customer_email: 'meera@example.com',
      customer_name: 'Meera',
      customer_bank_account_number: ACCOUNT.bank_account_number,
      customer_bank_ifsc: ACCOUNT.ifsc,
      customer_bank_code: String(ACCOUNT.bank_code),
    },
    link_notify: { send_sms: true },
    link_meta: { notify_url: h.hooks.url },
    ...extra,
  };
}

async function createLink(body: any): Promise<any> {
  const response = await h.cf.PGCreateLink(body);
  h.contract.check('post', '/links', 200, response.data);
  return response.data;
}

async function fetchLink(linkId: string): Promise<any> {
  const response = await h.cf.PGFetchLink(linkId);
  h.contract.check('get', '/links/{link_id}', 200, response.data);
  return response.data;
}

async function refusedLink(body: any): Promise<{ status: number; data: any }> {
  const answer = await refusal(h.cf.PGCreateLink(body));
  h.contract.check('post', '/links', answer.status, answer.data);
  return answer;
}

/** The customer opens the link, which creates an order, then pays it by UPI collect from the right account. */
async function payLink(link: any, amount?: number): Promise<string> {
  const opened = await fetch(link.link_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(amount === undefined ? {} : { amount: String(amount) }) });
  expect(opened.status).toBe(200);
  const { order_id, payment_session_id }: any = await opened.json();
  const answer: any = (await h.cf.PGPayOrder({ payment_session_id, payment_method: { upi: { channel: 'collect', upi_id: ACCOUNT.upi_id } } as any })).data;
  const done = await fetch(answer.data.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ outcome: 'approve' }) });
  expect(await done.json()).toMatchObject({ payment_status: 'SUCCESS', order_status: 'PAID' });
  return order_id;
}

describe('POST /pg/links and GET /pg/links/{link_id}', () => {
  it('answers with every field of 2.10, the TPV fields in link_notes', async () => {
    const link = await createLink(linkRequest('link_tpv_1'));
    expect(Object.keys(link).sort()).toEqual([
      'cf_link_id', 'customer_details', 'link_amount', 'link_amount_paid', 'link_auto_reminders', 'link_created_at', 'link_currency',
      'link_expiry_time', 'link_id', 'link_meta', 'link_minimum_partial_amount', 'link_notes', 'link_notify', 'link_partial_payments',
      'link_purpose', 'link_status', 'link_url',
    ]);
    expect(link).toMatchObject({
      link_id: 'link_tpv_1', link_status: 'ACTIVE', link_currency: 'INR', link_amount: 1000, link_amount_paid: 0,
      link_partial_payments: false, link_minimum_partial_amount: null, link_purpose: 'Invoice 42', link_auto_reminders: false,
      customer_details: { customer_name: 'Meera', country_code: '+91', customer_phone: '9876543210', customer_email: 'meera@example.com' },
      link_meta: { payment_methods: '', upi_intent: 'false', notify_url: h.hooks.url },
      link_notes: { customer_bank_account_number: '50100200300', customer_bank_code: '3022', customer_bank_ifsc: 'ICIC0001122' },
      link_notify: { send_email: false, send_sms: true },
    });
    expect(Number.isInteger(link.cf_link_id)).toBe(true);
    expect(link.link_created_at).toMatch(OFFSET_TIME);
    expect(link.link_expiry_time).toMatch(OFFSET_TIME);
    expect((await fetch(link.link_url)).status).toBe(200);
    expect(await fetchLink('link_tpv_1')).toEqual(link);
  });

  it('needs the account number and IFSC while TPV is on', async () => {
    const body = linkRequest('link_tpv_2');
    delete body.customer_details.customer_bank_ifsc;
    const { status, data } = await refusedLink(body);
    expect(status).toBe(400);
    expect(data).toMatchObject({ code: 'customer_details.customer_bank_ifsc_missing' });
  });

  it.each([
    ['link_id over 50 characters', { link_id: 'x'.repeat(51) }, 'link_id_invalid', /^link_id: must be at most 50 characters/],
    ['link_purpose over 500 characters', { link_purpose: 'p'.repeat(501) }, 'link_purpose_invalid', /^link_purpose: must be at most 500 characters \(501 given\)/],
    ['a zero amount', { link_amount: 0 }, 'link_amount_invalid', /^link_amount: must be greater than zero/],
    ['a minimum partial amount without partial payments', { link_minimum_partial_amount: 100 }, 'link_minimum_partial_amount_invalid', /applies only to partial payments/],
    ['a minimum partial amount above the link amount', { link_partial_payments: true, link_minimum_partial_amount: 1000.01 }, 'link_minimum_partial_amount_invalid', /must not exceed link_amount 1000\.00/],
    ['another currency', { link_currency: 'USD' }, 'link_currency_invalid', /only INR/],
    ['no customer phone', { customer_details: { customer_name: 'X', customer_bank_account_number: '50100200300', customer_bank_ifsc: 'ICIC0001122' } }, 'customer_details.customer_phone_missing', /customer_phone: is required/],
    ['an IFSC not of the form four letters, a zero, six characters (2.2)', { customer_details: { customer_phone: '9876543210', customer_bank_account_number: '50100200300', customer_bank_ifsc: 'ICIC1001122' } }, 'customer_details.customer_bank_ifsc_invalid', /^customer_details\.customer_bank_ifsc: must be 11 characters/],
    ['a bank code sent as an integer (a string in the link request, 2.2)', { customer_details: { customer_phone: '9876543210', customer_bank_account_number: '50100200300', customer_bank_ifsc: 'ICIC0001122', customer_bank_code: 3022 } }, 'customer_details.customer_bank_code_invalid', /as a string of digits/],
    ['a malformed e-mail', { customer_details: { customer_phone: '9876543210', customer_email: 'meera', customer_bank_account_number: '50100200300', customer_bank_ifsc: 'ICIC0001122' } }, 'customer_details.customer_email_invalid', /e-mail address/],
    ['a notify_url that is not http(s)', { link_meta: { notify_url: 'ftp://merchant.example.com/hook' } }, 'link_meta.notify_url_invalid', /^link_meta\.notify_url: must be an absolute http\(s\) URL/],
  ])('refuses %s, naming the field', async (_what, change, code, message) => {
    const { status, data } = await refusedLink({ ...linkRequest('link_bad'), ...change });
    expect(status).toBe(400);
    expect(data.code).toBe(code);
    expect(data.message).toMatch(message);
  });

  it('refuses a repeated link_id (409) and answers an unknown one with 404', async () => {
    await createLink(linkRequest('link_once'));
    expect((await refusedLink(linkRequest('link_once'))).status).toBe(409);
    const missing = await refusal(h.cf.PGFetchLink('link_never_made'));
    expect(missing.status).toBe(404);
    h.contract.check('get', '/links/{link_id}', 404, missing.data);
  });

  it('needs client credentials', async () => {
    const response = await fetch(`${h.sandbox.url}/pg/links`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-version': '2022-09-01' }, body: JSON.stringify(linkRequest('link_anon')) });
    expect(response.status).toBe(401);
  });

  it('the link page creates an order with the TPV account; paying it makes the link PAID', async () => {
    const link = await createLink(linkRequest('link_pay_full', { link_meta: { upi_intent: true } }));
    expect(link.link_meta.upi_intent).toBe('true');
    const orderId = await payLink(link);
    expect((await h.cf.PGFetchOrder(orderId)).data.order_amount).toBe(1000);
    expect(await fetchLink('link_pay_full')).toMatchObject({ link_status: 'PAID', link_amount_paid: 1000 });
  });

  it('a partial payment above the minimum leaves the link PARTIALLY_PAID', async () => {
    const link = await createLink(linkRequest('link_partial', { link_partial_payments: true, link_minimum_partial_amount: 250 }));
    expect(link.link_minimum_partial_amount).toBe(250);
    await payLink(link, 400);
    expect(await fetchLink('link_partial')).toMatchObject({ link_status: 'PARTIALLY_PAID', link_amount_paid: 400 });
    const tooSmall = await fetch(link.link_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ amount: '100' }) });
    expect(tooSmall.status).toBe(400);
    expect(((await tooSmall.json()) as any).message).toMatch(/^amount: must be at least the minimum partial amount 250\.00/);
  });
});

describe('POST /pg/links/bulk (CSV, 2.11)', () => {
  const HEADER = 'Link Id,Expiry Time,Currency,Amount,Min Amount,Description,Customer Name,Customer Phone,Customer Email,Note 1 Title,Note 1 Description,Note 2 Title,Note 2 Description,Note 3 Title,Note 3 Description,Webhook URL';
  const credentials = { 'x-client-id': CLIENT_ID, 'x-client-secret': CLIENT_SECRET, 'x-api-version': '2022-09-01' };

  async function upload(body: string | FormData, contentType?: string): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = { ...credentials, ...(contentType ? { 'content-type': contentType } : {}) };
    const response = await fetch(`${h.sandbox.url}/pg/links/bulk`, { method: 'POST', headers, body });
    return { status: response.status, body: await response.json() };
  }

  it('creates a link per row, maps the TPV note titles from any slot and reports refused rows by line number', async () => {
    const csv = [
      HEADER,
      'bulk_1,2099-12-31,INR,1500,,Rent for March,Meera,9876543210,meera@example.com,customer_bank_ifsc,ICIC0001122,customer_bank_code,3022,customer_bank_account_number,50100200300,https://merchant.example.com/hook-1',
      'bulk_2,2099-12-31,INR,abc,,Bad amount,Meera,9876543210,meera@example.com,customer_bank_code,3022,customer_bank_account_number,50100200300,customer_bank_ifsc,ICIC0001122,',
      '',
      'bulk_3,31-12-2099,INR,2500,500,"Two-line',
      'description",Ravi,9876500011,ravi@example.com,customer_bank_code,3022,customer_bank_account_number,50100200300,customer_bank_ifsc,ICIC0001122,',
      'bulk_4,2099-12-31,INR,700,,No account for TPV,Ravi,9876500011,,invoice,INV-9,,,,,',
    ].join('\n');
    const { status, body } = await upload(csv, 'text/csv');
    expect(status).toBe(200);
    expect(body).toMatchObject({ rows: 4, created: 2, refused: 2 });
    expect(body.results.map((r: any) => [r.line, r.link_id, r.status])).toEqual([
      [2, 'bulk_1', 'CREATED'], [3, 'bulk_2', 'REFUSED'], [5, 'bulk_3', 'CREATED'], [7, 'bulk_4', 'REFUSED'],
    ]);
    expect(body.results[1]).toMatchObject({ column: 'Amount', code: 'link_amount_invalid' });
    expect(body.results[1].reason).toMatch(/^link_amount: must be a number/);
    expect(body.results[3]).toMatchObject({ column: 'Note (TPV bank field)', code: 'customer_details.customer_bank_account_number_missing' });

    const first = await fetchLink('bulk_1');
    expect(first).toMatchObject({
      link_amount: 1500, link_partial_payments: false, link_expiry_time: '2099-12-31T23:59:59+05:30',
      link_notes: { customer_bank_account_number: '50100200300', customer_bank_code: '3022', customer_bank_ifsc: 'ICIC0001122' },
      link_meta: { notify_url: 'https://merchant.example.com/hook-1' },
    });
    expect(await fetchLink('bulk_3')).toMatchObject({ link_purpose: 'Two-line\ndescription', link_partial_payments: true, link_minimum_partial_amount: 500 });
  });

  it('accepts the file as a multipart upload', async () => {
    const form = new FormData();
    form.append('file', new Blob([`${HEADER}\nbulk_mp,,INR,99.50,,Multipart,Asha,9876500012,asha@example.com,customer_bank_code,3022,customer_bank_account_number,50100200300,customer_bank_ifsc,ICIC0001122,\n`], { type: 'text/csv' }), 'links.csv');
    const { status, body } = await upload(form);
    expect(status).toBe(200);
    expect(body.results).toEqual([expect.objectContaining({ line: 2, link_id: 'bulk_mp', status: 'CREATED' })]);
  });

  it('checks the header by name and order', async () => {
    const swapped = HEADER.replace('Currency,Amount', 'Amount,Currency');
    const { status, body } = await upload(`${swapped}\nx,,INR,1,,d,n,9876500013,,,,,,,,\n`, 'text/csv');
    expect(status).toBe(400);
    expect(body.message).toMatch(/^file: header column 3 must be "Currency"; found "Amount"/);
    const short = await upload('Link Id,Expiry Time\n', 'text/csv');
    expect(short.body.message).toMatch(/header column 3 must be "Currency"; found nothing/);
  });

  it('needs credentials and a CSV body', async () => {
    const anonymous = await fetch(`${h.sandbox.url}/pg/links/bulk`, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: HEADER });
    expect(anonymous.status).toBe(401);
    expect((await upload('{}', 'application/json')).status).toBe(415);
  });
});
