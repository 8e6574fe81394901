/** `npx holdback <command>` over the API of a started local stack: tables by default, --json, --csv, errors that say why and exit non-zero. */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollUntil } from '../infra/holdback-process';
import { startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.createVendors([{ id: 'vendor_a', scheduleOption: 1 }, { id: 'vendor_b', scheduleOption: 1 }]);
});
afterAll(() => h?.close());

const cli = (...argv: string[]) => h.cli(...argv);

test('predict: the gateway answer for an eligibility, as a table and as JSON', async () => {
  const table = await cli('predict', '2022-12-06 09:00:00', '1');
  expect(table.code).toBe(0);
  expect(table.out).toBe('settlementAt  2022-12-07T11:00:00+05:30\n');
  const json = await cli('predict', '2022-12-06 09:00:00', '1', '--json');
  expect(JSON.parse(json.out).settlementAt).toBe(table.out.split(/\s+/)[1]);
});

test('policy set, get and history: a new version with its actor and reason', async () => {
  const set = await cli('policy', 'set', 'vendor_a', '--rule', 'after_delivery', '--delay', 'P2D', '--schedule-option', '1', '--actor', 'finance@example.com', '--reason', 'trusted vendor', '--json');
  expect(set.code).toBe(0);
  expect(JSON.parse(set.out)).toMatchObject({ vendorId: 'vendor_a', version: 1, release: { kind: 'after_delivery', delay: 'P2D' }, actor: 'finance@example.com' });
  const got = await cli('policy', 'get', 'vendor_a');
  expect(got.out).toMatch(/^version\s+1$/m);
  expect(got.out).toMatch(/^reason\s+trusted vendor$/m);
  const history = await cli('policy', 'history', 'vendor_a');
  expect(history.out).toMatch(/^versions:\n.*version.*\n.*finance@example\.com/m);
});

test('order, outcomes as CSV, hold and a refused manual release', async () => {
  const transactionTime = await h.createPaidOrder('order_cli_1', [{ vendorId: 'vendor_a', amount: 600 }, { vendorId: 'vendor_b', amount: 400 }]);
  await h.send('order.paid', { orderId: 'order_cli_1', transactionTime, vendors: [{ vendorId: 'vendor_a', amount: 600 }, { vendorId: 'vendor_b', amount: 400 }] });
  const order = await cli('order', 'order_cli_1');
  expect([order.code, order.err]).toEqual([0, '']);
  expect(order.out).toMatch(/vendor_a\s+INR 600\.00\s+WAITING/);
  const csv = await cli('outcomes', '--order', 'order_cli_1', '--csv');
  const lines = csv.out.trim().split(/\r?\n/);
  expect(lines[0]).toBe('order_id,vendor_id,amount,currency,state,policy_version,schedule_option,transaction_time,max_eligibility,target_eligibility,applied_eligibility,predicted_settlement,settled_at,attempts,last_gateway_status,last_gateway_message,reason,hold_reason,manual_actor,manual_reason,settlement_mismatch_minutes');
  expect(lines.slice(1).map((l) => l.split(',').slice(0, 3).join(',')).sort()).toEqual(['order_cli_1,vendor_a,600.00', 'order_cli_1,vendor_b,400.00']);
  const hold = await cli('hold', 'vendor_a', '--actor', 'risk@example.com', '--reason', 'fraud review', '--json');
  expect(hold.code).toBe(0);
  // The CLI waited for the hold's job: the answer shows it ended.
  expect(JSON.parse(hold.out).job).toMatchObject({ kind: 'vendor_hold', state: 'succeeded', total: 1, done: 1 });
  const held = await cli('order', 'order_cli_1', '--json');
  expect(JSON.parse(held.out).vendors.find((v: { vendorId: string }) => v.vendorId === 'vendor_a').state).toBe('HELD');
  const refused = await cli('release', 'order_cli_1', 'vendor_a', '--actor', 'finance@example.com', '--reason', 'pay now');
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(/answered 409: invalid_state: .*HELD/);
  // In the CLI's own words: the flag to add, not the API's body field.
  expect(refused.err).toContain('--override');
  expect(refused.err).not.toContain('"override"');
  // A past --at (a minute before the payment) is refused naming at, and goes with --past-ok.
  const past = new Date(Date.parse(transactionTime) - 60_000).toISOString();
  const pastRefused = await cli('release', 'order_cli_1', 'vendor_b', '--at', past, '--actor', 'finance@example.com', '--reason', 'pay now');
  expect(pastRefused.code).toBe(1);
  expect(pastRefused.err).toMatch(/answered 400: validation_error:\n\s+--at: .*in the past.*\(on the command line: --past-ok\)\n$/);
  const pastOk = await cli('release', 'order_cli_1', 'vendor_b', '--at', past, '--past-ok', '--actor', 'finance@example.com', '--reason', 'pay now', '--json');
  expect(pastOk.code).toBe(0);
  expect(JSON.parse(pastOk.out)).toMatchObject({ vendorId: 'vendor_b', manual: { actor: 'finance@example.com' } });
  // Contract 6.4: vendor_b's share went early, so it is exposure once sent (the release answers before its send, which
  // the release queue does next); a held release shows the day it settles anyway.
  let exposed = await cli('vendors');
  await pollUntil('vendor_b\'s early release counted as exposure', async () => {
    exposed = await cli('vendors');
    return /^Exposure in all: /m.test(exposed.out);
  }, 60_000, 100);
  expect(exposed.out).toMatch(/^vendor_b .*INR 400\.00 \(1\)\s+INR 400\.00 \(1\)$/m);
  expect(exposed.out).toMatch(/^Exposure in all: INR 400\.00 in 1 release$/m);
  expect(exposed.out).toMatch(/^vendor_a .*HELD \(fin/m);
  // The hold was placed by finance (the default source): an unhold by a vendor request is refused naming what to send.
  const weak = await cli('unhold', 'vendor_a', '--actor', 'vendor@example.com', '--reason', 'please', '--source', 'vendor_request');
  expect(weak.code).toBe(1);
  expect(weak.err).toMatch(/answered 409: hold_source: .*held by source "finance".*send "source": "dispute" or "risk" or "finance"/);
  const heldOrder = await cli('order', 'order_cli_1');
  expect(heldOrder.out).toMatch(/vendor_a\s+INR 600\.00\s+HELD .*~\d{4}-\d{2}-\d{2} \d{2}:\d{2} anyway/);
});

test('a USD and an INR order of one vendor: vendors, outcomes and forecast tables show each currency apart, with totals per currency, within 120 columns', async () => {
  await h.setPolicy('vendor_fx', { kind: 'after_delivery', delay: 'P2D' });
  const paidAt = '2022-12-02T16:05:00+05:30';
  await h.send('order.paid', { orderId: 'order_fx_usd', transactionTime: paidAt, vendors: [{ vendorId: 'vendor_fx', amount: '1000' }], currency: 'USD' });
  await h.send('order.paid', { orderId: 'order_fx_inr', transactionTime: paidAt, vendors: [{ vendorId: 'vendor_fx', amount: '100000' }], currency: 'INR' });
  const vendors = await cli('vendors');
  expect(vendors.code).toBe(0);
  expect(vendors.out).toMatch(/vendor_fx .*INR 1,00,000\.00 \(1\); USD 1,000\.00 \(1\)/);
  expect(vendors.out).toMatch(/^Open in all: .*INR .* in \d+ releases?; USD 1,000\.00 in 1 release$/m);
  const outcomes = await cli('outcomes', '--vendor', 'vendor_fx');
  expect(outcomes.out).toMatch(/^Total: INR 1,00,000\.00 in 1 release; USD 1,000\.00 in 1 release$/m);
  // Waiting for a delivery: where the money lands if nothing changes, marked ~ (projected).
  expect(outcomes.out).toMatch(/order_fx_usd\s+vendor_fx\s+USD 1,000\.00\s+WAITING.*~2022-12-19 11:00/);
  const forecast = await cli('forecast', '--vendor', 'vendor_fx', '--from', '2022-12-17', '--to', '2022-12-20');
  expect(forecast.out).toMatch(/^Projected \(not yet sent\): INR 1,00,000\.00 in 1 release; USD 1,000\.00 in 1 release$/m);
  for (const out of [vendors.out, outcomes.out, forecast.out]) {
    for (const line of out.split('\n')) expect(line.length).toBeLessThanOrEqual(120);
  }
  const json = await cli('vendors', '--json');
  expect(JSON.parse(json.out).items.find((v: { vendorId: string }) => v.vendorId === 'vendor_fx').open).toEqual([
    { currency: 'INR', count: 1, amount: '100000.00' }, { currency: 'USD', count: 1, amount: '1000.00' },
  ]);
});

test('vendors --check-gateway warns about a vendor the gateway does not know, and never says it agrees', async () => {
  // vendor_ghost has a policy but was never created at the gateway; vendor_a was (beforeAll).
  await h.setPolicy('vendor_ghost', { kind: 'immediate' });
  await h.setPolicy('vendor_a', { kind: 'at_max' });
  const checked = await cli('vendors', '--check-gateway');
  expect(checked.code).toBe(0);
  expect(checked.out).toMatch(/^vendor_ghost .*WARNING: unknown at the gateway$/m);
  expect(checked.out).toMatch(/^WARNING vendor_ghost: unknown at the gateway: no vendor vendor_ghost in its vendor API/m);
  expect(checked.out).toMatch(/^vendor_a .*agrees$/m);
  const json = JSON.parse((await cli('vendors', '--check-gateway', '--json')).out);
  expect(json.items.find((v: { vendorId: string }) => v.vendorId === 'vendor_ghost').gateway).toMatchObject({ answer: 'vendor_not_found', policyDisagrees: false });
});

test('a policy preview prints the command that applies exactly it, and that command applies it', async () => {
  const preview = await cli('policy', 'preview', 'vendor_fx', '--rule', 'after_payment', '--delay', 'P3D', '--apply-to', 'open_orders');
  expect(preview.code).toBe(0);
  const command = /apply exactly this preview with:\n {2}(npx holdback .*)\n/.exec(preview.out)?.[1];
  expect(command).toMatch(/^npx holdback policy set vendor_fx --rule after_payment --delay P3D --schedule-option 1 --apply-to open_orders --preview-id [0-9a-f]+ --actor <you> --reason <why>$/);
  const argv = command!.replace('<you>', 'finance@example.com').replace('<why>', 'three days').split(' ').slice(2);
  const applied = await cli(...argv, '--json');
  expect(applied.code).toBe(0);
  expect(JSON.parse(applied.out)).toMatchObject({ vendorId: 'vendor_fx', release: { kind: 'after_payment', delay: 'P3D' } });
});

test('a dry-run import that finds errors exits 1 and lists them; an unknown flag exits 2 naming it', async () => {
  const file = join(tmpdir(), `holdback-import-${process.pid}.csv`);
  writeFileSync(file, 'vendorId,scheduleOption,release,delay,reason\nvendor_a,1,after_payment,three days,bad delay\n');
  try {
    const dry = await cli('import', file, '--actor', 'finance@example.com');
    expect(dry.code).toBe(1);
    expect(dry.out).toMatch(/^dry run: 1 rows, 0 valid, 1 error\(s\)$/m);
    expect(dry.out).toMatch(/^Line\s+Field\s+What is wrong$/m);
  } finally {
    rmSync(file, { force: true });
  }
  const unknown = await cli('vendors', '--colour');
  expect(unknown.code).toBe(2);
  expect(unknown.err).toContain("Unknown option '--colour'");
});

test('a wrong command line says what to send and exits 2; a missing actor is named', async () => {
  const unknown = await cli('polcy', 'get', 'vendor_a');
  expect(unknown.code).toBe(2);
  expect(unknown.err).toContain('unknown command "polcy get vendor_a"');
  const noActor = await cli('hold', 'vendor_a', '--reason', 'x');
  expect([noActor.code, noActor.err]).toEqual([2, '--actor is missing; every change records who made it and why\n']);
  const badId = await cli('order', 'bad id!');
  expect(badId.code).toBe(1);
  expect(badId.err).toMatch(/answered 400: validation_error:\n  orderId: is "bad id!"/);
});

test('the packaged entry runs an API command and passes its exit code on', async () => {
  const run = spawn(process.execPath, [join(__dirname, '..', '..', 'bin', 'holdback.js'), 'settings', '--json', '--api-url', h.runtime.api.url], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  run.stdout.on('data', (c: Buffer) => { out += c.toString(); });
  const code = await new Promise<number | null>((resolve) => run.on('close', resolve));
  expect(code).toBe(0);
  expect(JSON.parse(out)).toMatchObject({ deferByDays: 15, timezone: 'Asia/Kolkata' });
});

test('export: waits for the job, downloads the file and checks it; --no-wait prints the job id; jobs lists them', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'holdback-cli-export-'));
  try {
    const file = join(folder, 'outcomes.csv');
    const exported = await cli('export', 'outcomes', '--vendor', 'vendor_b', '--out', file);
    expect(exported.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(await (await fetch(`${h.runtime.api.url}/outcomes?format=csv&vendorId=vendor_b`)).text());
    expect(exported.err).toContain(`wrote 1 rows (${Buffer.byteLength(text)} bytes, SHA-256 ${createHash('sha256').update(text).digest('hex')}) to ${file}`);

    const unhold = await cli('unhold', 'vendor_a', '--actor', 'risk@example.com', '--reason', 'cleared', '--no-wait');
    expect(unhold.code).toBe(0);
    const jobId = /job (job_\d{13}_[0-9a-z]{10}) /.exec(unhold.err)?.[1];
    expect(jobId).toBeDefined();
    const waited = await cli('job', jobId!, '--wait', '--json');
    expect(JSON.parse(waited.out)).toMatchObject({ jobId, kind: 'vendor_unhold', state: 'succeeded' });
    const listed = await cli('jobs', '--kind', 'vendor_unhold');
    expect(listed.out).toContain(jobId!);
    const bad = await cli('export', 'outcomes', '--state', 'DONE');
    expect([bad.code, bad.err]).toEqual([1, expect.stringMatching(/answered 400: validation_error:\n {2}--state: is "DONE"/)]);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
