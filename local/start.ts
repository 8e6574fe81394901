/** `npm start`: the embedded default in the foreground, with its addresses and a copy-paste example. */
import { startLocal } from './runtime';
import { DEFAULT_CLIENT_SECRET } from '../sandbox/app';
import { parseInstant } from '../functions/domain/dates';

export interface StartOptions {
  clock?: string;
  frozen: boolean;
}

/** The example a new user pastes into a second terminal, in this folder (it uses the installed AWS SDK). */
function exampleScript(urls: { api: string; edge: string; sandbox: string }, clientId: string): string {
  // The secret is read in that terminal, never printed here: only the public default is spelled out.
  return `node --input-type=module <<'EOF'
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
const sandbox = '${urls.sandbox}', api = '${urls.api}';
const gw = { 'content-type': 'application/json', 'x-api-version': '2022-09-01',
  'x-client-id': '${clientId}', 'x-client-secret': process.env.SANDBOX_CLIENT_SECRET ?? '${DEFAULT_CLIENT_SECRET}' };
const post = (url, body, headers = gw, method = 'POST') => fetch(url, { method, headers, body: JSON.stringify(body) }).then((r) => r.json());
const orderId = 'order-' + Date.now();
// 1. The marketplace's vendors and checkout at the gateway (sandbox): an order split between two vendors, paid now.
for (const vendor_id of ['vendor-fast', 'vendor-slow'])
  await post(sandbox + '/pg/easy-split/vendors', { vendor_id, name: vendor_id, email: vendor_id + '@example.com', phone: '9999999999', schedule_option: 1, status: 'ACTIVE' });
await post(sandbox + '/pg/orders', { order_id: orderId, order_amount: 1500, order_currency: 'INR',
  customer_details: { customer_id: 'c1', customer_phone: '9999999999' },
  order_splits: [{ vendor_id: 'vendor-fast', amount: 1000 }, { vendor_id: 'vendor-slow', amount: 500 }] });
const { now } = await fetch('${urls.edge}/_local/clock').then((r) => r.json());
await post(sandbox + '/_sandbox/orders/' + orderId + '/pay', { payment_time: now });
// 2. Finance's policies in Holdback: one vendor released at once, the other three days after payment.
const json = { 'content-type': 'application/json' };
await post(api + '/vendors/vendor-fast/policy', { scheduleOption: 1, release: { kind: 'immediate' }, actor: 'you', reason: 'example' }, json, 'PUT');
await post(api + '/vendors/vendor-slow/policy', { scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3D' }, actor: 'you', reason: 'example' }, json, 'PUT');
// 3. The marketplace backend tells Holdback, with its own AWS SDK.
const events = new EventBridgeClient({ endpoint: '${urls.edge}', region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
await events.send(new PutEventsCommand({ Entries: [{ Source: 'marketplace.orders', DetailType: 'order.paid',
  Detail: JSON.stringify({ orderId, transactionTime: now, vendors: [{ vendorId: 'vendor-fast', amount: 1000 }, { vendorId: 'vendor-slow', amount: 500 }] }) }] }));
// 4. What Holdback did, and what the gateway (sandbox) holds now.
await new Promise((r) => setTimeout(r, 1500));
console.log(JSON.stringify(await fetch(api + '/orders/' + orderId).then((r) => r.json()), null, 2));
console.log(JSON.stringify(await fetch(sandbox + '/pg/easy-split/orders/' + orderId, { headers: gw }).then((r) => r.json()), null, 2));
EOF`;
}

export async function runStart(opts: StartOptions): Promise<void> {
  const clockStart = opts.clock === undefined ? undefined : parseInstant(opts.clock, '--clock').toJSDate();
  const runtime = await startLocal({ clockStart, frozen: opts.frozen, log: (line) => console.log(line) });
  const urls = { api: runtime.api.url, edge: runtime.edge.url, sandbox: runtime.sandbox.url };
  const { clientId, clientSecret } = runtime.sandbox.context.config;
  const secretNote = clientSecret === DEFAULT_CLIENT_SECRET
    ? ''
    : '\n(The sandbox\'s client secret comes from SANDBOX_CLIENT_SECRET and is not shown: set it in that terminal too.)';
  console.log(`Holdback is running (embedded default), clock at ${runtime.clock.now().setZone('Asia/Kolkata').toISO()}${opts.frozen ? ' (frozen)' : ''}

  Holdback API      ${urls.api}        (GET /health, /settings, /vendors/{id}/policy, /orders/{id}, POST /predictions ...)
  Local AWS edge    ${urls.edge}        (DynamoDB, EventBridge PutEvents, EventBridge Scheduler, /_local/clock)
  Gateway sandbox   ${urls.sandbox}        (base_url ${urls.sandbox}/pg, vendor_base_url ${urls.sandbox}; client id ${clientId})

Send an order.paid with the AWS SDK: paste this in another terminal, in this folder:${secretNote}

${exampleScript(urls, clientId)}

Move time: curl -s -XPOST ${urls.edge}/_local/clock -d '{"advance":"P3D"}' ; then GET ${urls.api}/orders/<orderId> again.
Ctrl-C stops everything.`);
  const stop = (): void => { void runtime.close().then(() => process.exit(0)); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
