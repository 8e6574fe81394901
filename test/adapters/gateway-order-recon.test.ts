/**
 * The order recon (`GET /pg/easy-split/orders/{order_id}`) over real HTTP against the sandbox, and the release
 * function using it: a send whose sender was killed after the sandbox applied it is not sent a second time.
 */
import { SharedClock } from '../../local/clock';
import { createSandbox, type Sandbox } from '../../sandbox/app';
import { HttpEligibilityGateway } from '../../functions/adapters/gateway/http-eligibility-gateway';
import { GatewayOrderLookupError, HttpGatewayOrders } from '../../functions/adapters/gateway/http-gateway-orders';
import { handleOrderEvent } from '../../functions/application/releases/handle-order-event';
import type { Dependencies } from '../../functions/application/ports';
import { releaseVendor } from '../../functions/application/releases/release-vendor';
import { sweep } from '../../functions/application/releases/sweep';
import { fakeWorld } from '../fakes/dependencies';
import { paid, release, usePolicy } from '../application/scenario';
import { answer, startScriptedServer, type ScriptedServer } from './scripted-http-server';
import { Instant } from '../../functions/domain/instant';

const CLIENT_ID = 'recon_test_client';
const CLIENT_SECRET = 'recon_test_secret_8c1d';
let sandbox: Sandbox;
let scripted: ScriptedServer;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-client-id': CLIENT_ID, 'x-client-secret': CLIENT_SECRET, 'x-api-version': '2022-09-01' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

function recon(pgBaseUrl = `${sandbox.url}/pg`): HttpGatewayOrders {
  return new HttpGatewayOrders({ pgBaseUrl, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, maxTries: 2, sleep: async () => {} });
}

function eligibilityGateway(clock: SharedClock): HttpEligibilityGateway {
  return new HttpEligibilityGateway({ vendorBaseUrl: sandbox.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, now: () => Instant.fromDateTime(clock.now()), sleep: async () => {} });
}

/** A paid order at the sandbox with one vendor, paid at 16:00 India time on 2 Dec 2022 (the interface's example). */
async function paidOrder(orderId: string, vendorId: string): Promise<void> {
  expect((await call('POST', '/pg/easy-split/vendors', {
    vendor_id: vendorId, name: vendorId, email: `${vendorId}@example.com`, phone: '9876543210', status: 'ACTIVE', schedule_option: 1,
  })).status).toBeLessThan(300);
  expect((await call('POST', '/pg/orders', {
    order_id: orderId, order_amount: 1250.5, order_currency: 'INR',
    customer_details: { customer_id: 'cust_001', customer_phone: '9999999999' },
    order_splits: [{ vendor_id: vendorId, amount: 1250.5 }],
  })).status).toBe(200);
  expect((await call('POST', `/_sandbox/orders/${orderId}/pay`, { payment_time: '2022-12-02T16:00:00+05:30' })).status).toBe(200);
}

let clock: SharedClock;

beforeAll(async () => {
  clock = new SharedClock({ start: new Date('2022-12-02T16:05:00+05:30'), frozen: true });
  sandbox = await createSandbox({ port: 0, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, clock });
  scripted = await startScriptedServer(() => answer(500, { message: 'unscripted', code: 'internal_error', type: 'api_error' }));
  expect((await call('PUT', '/_sandbox/merchant', { deferByDays: 15, deferredSettlementEnabled: true, webhookUrl: null })).status).toBe(200);
});
afterAll(async () => {
  await sandbox.close();
  await scripted.close();
});

test('the recon shows the eligibility a PUT applied, as ISO 8601 in India time', async () => {
  await paidOrder('ord_recon_1', 'V_recon_1');
  const applied = await eligibilityGateway(clock).updateEligibility('ord_recon_1', 'V_recon_1', '2022-12-06 09:00:00');
  expect(applied.final).toMatchObject({ status: 'OK' });
  expect(await recon().fetchEligibility('ord_recon_1', 'V_recon_1')).toEqual('2022-12-06T09:00:00+05:30');
  // A vendor the order does not list has no eligibility there; an order unknown to the gateway cannot be reconciled.
  expect(await recon().fetchEligibility('ord_recon_1', 'V_not_in_order')).toBeNull();
  const error = await recon().fetchEligibility('ord_never_made', 'V_recon_1').then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(GatewayOrderLookupError);
  expect((error as Error).message).toContain('HTTP 404');
});

test('ids are validated before anything is sent, and encoded in the path', async () => {
  await expect(recon().fetchEligibility('ord/../x', 'V_recon_1')).rejects.toThrow('orderId: is "ord/../x", not a valid id');
  await expect(recon().fetchEligibility('ord_recon_1', 'V recon')).rejects.toThrow('vendorId: is "V recon", not a valid id');
  scripted.script(answer(200, { order_id: 'ord-A_1', vendors: [{ vendor_id: 'V_a', settlement_eligibility_date: '2022-12-06 09:00:00' }] }));
  const before = scripted.requests.length;
  // The gateway's own form ("YYYY-MM-DD HH:MM:SS", India time) is read too.
  expect(await recon(`${scripted.url}/pg`).fetchEligibility('ord-A_1', 'V_a')).toEqual('2022-12-06T09:00:00+05:30');
  expect(scripted.requests[before]).toMatchObject({ method: 'GET', path: '/pg/easy-split/orders/ord-A_1' });
});

test("the vendor lookup reads the schedule option the gateway settles by; the gateway's own not-found is null, a fault throws", async () => {
  expect((await call('POST', '/pg/easy-split/vendors', {
    vendor_id: 'V_lookup_7', name: 'V_lookup_7', email: 'v7@example.com', phone: '9876543210', status: 'ACTIVE', schedule_option: 7,
  })).status).toBeLessThan(300);
  expect(await recon().fetchVendor('V_lookup_7')).toEqual({ scheduleOption: 7 });
  expect(await recon().fetchVendor('V_never_added')).toBeNull();
  // A bare 404 (not the gateway's vendor_not_found) and a 5xx are faults, named, never "no such vendor".
  scripted.script(answer(404, { message: 'no route', code: 'not_found', type: 'invalid_request_error' }));
  await expect(recon(`${scripted.url}/pg`).fetchVendor('V_lookup_7')).rejects.toThrow('vendor V_lookup_7 could not be read from the gateway (1 try): HTTP 404 not_found: no route');
  scripted.script(answer(503, { message: 'down', code: 'api_error', type: 'api_error' }), answer(503, { message: 'down', code: 'api_error', type: 'api_error' }));
  await expect(recon(`${scripted.url}/pg`).fetchVendor('V_lookup_7')).rejects.toThrow('vendor V_lookup_7 could not be read from the gateway (2 tries): HTTP 503 api_error: down');
});

test('a sender killed after the sandbox applied its PUT: the take-over reads the recon and sends nothing more', async () => {
  await paidOrder('ord_recon_kill', 'V_recon_kill');
  const world = fakeWorld('2022-12-02T16:05:00+05:30');
  const gateway = eligibilityGateway(clock);
  const deps: Dependencies = { ...world.deps, gateway, gatewayOrders: recon() };
  await usePolicy(world, { kind: 'immediate' }, 'V_recon_kill');
  await handleOrderEvent(deps, 'order.paid', paid('ord_recon_kill', [{ vendorId: 'V_recon_kill', amount: '1250.50' }]));
  const [command] = world.queue.take();

  const dying: Dependencies = {
    ...deps,
    gateway: {
      async updateEligibility(orderId, vendorId, eligibility, beforePut) {
        expect((await gateway.updateEligibility(orderId, vendorId, eligibility, beforePut)).final).toMatchObject({ status: 'OK' });
        throw new Error('process killed before the answer was recorded');
      },
    },
  };
  await expect(releaseVendor(dying, command)).rejects.toThrow('process killed');
  expect((await release(world, 'ord_recon_kill', 'V_recon_kill')).state).toBe('APPLYING');

  world.clock.advance({ minutes: 3 });
  await sweep(deps);
  for (const redriven of world.queue.take()) await releaseVendor(deps, redriven);

  expect(await release(world, 'ord_recon_kill', 'V_recon_kill')).toMatchObject({ state: 'APPLIED', appliedEligibility: '2022-12-02T16:06:00+05:30' });
  const updates = await call('GET', '/_sandbox/eligibility-updates') as { body: { applied: Array<{ order_id: string; applied: number }> } };
  expect(updates.body.applied.filter((a) => a.order_id === 'ord_recon_kill')).toEqual([{ order_id: 'ord_recon_kill', vendor_id: 'V_recon_kill', applied: 1 }]);
  expect(world.audit.entries.filter((e) => e.detail.phase === 'confirmed_from_recon')).toHaveLength(1);
});
