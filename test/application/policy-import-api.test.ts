/** POST /policies/import over HTTP (in-memory ports): a dry run naming every bad line and field, all-or-nothing apply, once per file. */
import { VersionConflictError } from '../../functions/application/ports';
import { MAX_IMPORT_ROWS } from '../../functions/application/config/import-policies';
import type { VendorPolicy } from '../../functions/domain/types';
import { usePolicy } from './scenario';
import { serveApiOverFakes } from './live-api';
import { at } from '../times';

const api = serveApiOverFakes();

async function post(csv: string, query = 'actor=finance%40example.com', type = 'text/csv') {
  const response = await fetch(`${api.url}/policies/import?${query}`, { method: 'POST', headers: { 'content-type': type }, body: csv });
  return { status: response.status, body: await response.json() as any };
}

const HEADER = 'vendorId,scheduleOption,release,delay,reason';
const GOOD = [
  HEADER,
  'vendor_a,1,immediate,,trusted vendor',
  'vendor_b,2,after_delivery,P2D,"new vendor, watch deliveries"',
  'vendor_c,15,after_payment,P3D,steady record',
  'vendor_d,1,at_max,,gateway default',
  '',
].join('\n');

const current = (vendorId: string) => api.world.policies.current(vendorId);
const contentOf = (p: VendorPolicy | null) => p && { scheduleOption: p.scheduleOption, release: p.release };

test('a dry run (the default) names every bad line and field and changes nothing', async () => {
  const csv = [
    HEADER,
    'vendor_a,1,immediate,,fine',
    'vendor_b,10,immediate,,no option 10',
    'vendor_c,1,after_payment,,needs a delay',
    'vendor_d,1,at_max,P1D,at_max takes no delay',
    'vendor_e,1,immediate,,"=HYPERLINK(""http://evil.example"",""click"")"',
    'vendor_a,1,immediate,,twice',
    'vendor_f,1,immediate',
    '=cmd|calc,1,immediate,,formula as id',
    'vendor_g,1,soon,,unknown rule',
  ].join('\r\n');
  const { status, body } = await post(csv);
  expect(status).toBe(200);
  expect(body).toMatchObject({ dryRun: true, rows: 9, valid: 1 });
  expect(body.importId).toMatch(/^[0-9a-f]{64}$/);
  expect(body.errors.map((e: { line: number; field: string }) => [e.line, e.field])).toEqual([
    [3, 'scheduleOption'], [4, 'delay'], [5, 'delay'], [6, 'reason'], [7, 'vendorId'], [8, 'line'], [9, 'vendorId'], [10, 'release'],
  ]);
  const message = (line: number) => body.errors.find((e: { line: number }) => e.line === line).message;
  expect(message(3)).toMatch(/is 10, not a schedule option; send one of the gateway's schedule option ids/);
  expect(message(6)).toMatch(/spreadsheet formula; formulas are refused, never run/);
  expect(message(7)).toMatch(/vendor_a is on line 2 already/);
  expect(message(8)).toMatch(/has 3 cells; send 5/);
  expect(message(9)).toMatch(/not a vendor id/);
  expect(await current('vendor_a')).toBeNull();
  expect(api.world.policyImports.items.size).toBe(0);
});

test('apply: all rows as new versions, each carrying the import; the same file again changes nothing', async () => {
  await usePolicy(api.world, { kind: 'at_max' }, 'vendor_a');
  const applied = await post(GOOD, 'dryRun=false&actor=finance%40example.com');
  expect(applied.status).toBe(200);
  expect(applied.body).toMatchObject({ dryRun: false, rows: 4, valid: 4, errors: [], applied: true });
  expect(applied.body.policies).toEqual([
    { vendorId: 'vendor_a', version: 2 }, { vendorId: 'vendor_b', version: 1 }, { vendorId: 'vendor_c', version: 1 }, { vendorId: 'vendor_d', version: 1 },
  ]);
  expect(await current('vendor_b')).toMatchObject({
    version: 1, scheduleOption: 2, release: { kind: 'after_delivery', delay: 'P2D' }, actor: 'finance@example.com',
    reason: 'new vendor, watch deliveries', importId: applied.body.importId,
  });
  const again = await post(GOOD, 'dryRun=false&actor=someone.else%40example.com');
  expect(again.body).toMatchObject({ applied: false, importId: applied.body.importId, policies: [] });
  expect((await current('vendor_a'))?.version).toBe(2);
  expect((await current('vendor_b'))?.version).toBe(1);
});

test("appliedAt is in the settings' timezone, as every time in an answer", async () => {
  await api.world.settings.use({ timezone: 'UTC' });
  try {
    const csv = `${HEADER}\nvendor_tz,1,immediate,,timezone check\n`;
    const applied = await post(csv, 'dryRun=false&actor=finance%40example.com');
    expect(applied.body.appliedAt).toMatch(/(Z|\+00:00)$/);
    const again = await post(csv, 'dryRun=false&actor=finance%40example.com');
    expect(again.body).toMatchObject({ applied: false, appliedAt: applied.body.appliedAt });
  } finally {
    await api.world.settings.use({ timezone: 'Asia/Kolkata' });
  }
});

test('a failure midway leaves nothing of the file in force (the versions it wrote are rolled back)', async () => {
  await usePolicy(api.world, { kind: 'after_payment', delay: 'P5D' }, 'vendor_c', 3);
  const before = await Promise.all(['vendor_a', 'vendor_b', 'vendor_c', 'vendor_d'].map(current));
  const save = api.world.policies.save.bind(api.world.policies);
  let saves = 0;
  // The third write loses a race with another change of that vendor.
  api.world.policies.save = async (policy) => {
    saves += 1;
    if (saves === 3) throw new VersionConflictError(`policy of ${policy.vendorId}: version ${policy.version} exists already`);
    return save(policy);
  };
  const failed = await post(GOOD, 'dryRun=false&actor=finance%40example.com');
  expect(failed.status).toBe(409);
  expect(failed.body.error).toMatchObject({ code: 'import_conflict', message: expect.stringMatching(/nothing of the file is applied/) });
  api.world.policies.save = save;
  const after = await Promise.all(['vendor_a', 'vendor_b', 'vendor_c', 'vendor_d'].map(current));
  // Each vendor's policy in force says what it said before (the default for those that had none).
  after.forEach((policy, i) => {
    expect(policy?.importId).toBeUndefined();
    if (before[i]) expect(contentOf(policy)).toEqual(contentOf(before[i]));
    else if (policy) expect(contentOf(policy)).toEqual({ scheduleOption: 1, release: { kind: 'at_max' } });
  });
  // A vendor the import reached shows both: the imported version, then the rollback that restored the one before.
  expect((await api.world.policies.history('vendor_a')).map((p) => [p.version, p.reason])).toEqual([
    [2, expect.stringMatching(/^import [0-9a-f]{12} rolled back, version 0 restored: policy of vendor_c changed meanwhile/)],
    [1, 'trusted vendor'],
  ]);
  // The import is recorded as rolled back, so the same file can be applied once the conflict is resolved.
  expect([...api.world.policyImports.items.values()]).toEqual([expect.objectContaining({ state: 'rolled_back', reason: expect.stringMatching(/changed meanwhile/) })]);
  const retried = await post(GOOD, 'dryRun=false&actor=finance%40example.com');
  expect(retried.body).toMatchObject({ applied: true });
  expect(contentOf(await current('vendor_c'))).toEqual({ scheduleOption: 15, release: { kind: 'after_payment', delay: 'P3D' } });
});

test('an apply of a file with any error writes nothing', async () => {
  const { status, body } = await post(`${GOOD}vendor_e,10,immediate,,bad option\n`, 'dryRun=false&actor=finance%40example.com');
  expect(status).toBe(400);
  expect(body.error.issues).toEqual([expect.objectContaining({ field: 'line 6: scheduleOption' })]);
  expect(await current('vendor_a')).toBeNull();
});

test(`a file longer than ${MAX_IMPORT_ROWS} rows (e.g. 100,000 lines) is refused before any row is read`, async () => {
  const huge = [HEADER, ...Array.from({ length: 99_999 }, (_, i) => `vendor_${i},1,immediate,,bulk`)].join('\n');
  for (const dryRun of ['true', 'false']) {
    const { status, body } = await post(huge, `dryRun=${dryRun}&actor=finance%40example.com`);
    expect(status).toBe(400);
    expect(body.error.issues[0]).toMatchObject({ field: 'file', problem: 'has 100000 lines' });
  }
  expect(await current('vendor_0')).toBeNull();
});

test('missing actor, a bad dryRun, a wrong header or a JSON body: 400 naming it', async () => {
  const noActor = await post(GOOD, 'dryRun=true');
  expect(noActor).toMatchObject({ status: 400, body: { error: { issues: [expect.objectContaining({ field: 'actor', problem: 'is missing' })] } } });
  expect((await post(GOOD, 'dryRun=yes&actor=a%40b.c')).body.error.issues[0].field).toBe('dryRun');
  const header = await post('vendor,option\nvendor_a,1\n');
  expect(header.body.errors[0]).toMatchObject({ line: 1, field: 'header' });
  const json = await post('{"vendorId": "vendor_a"}', 'actor=a%40b.c', 'application/json');
  expect(json.body.error.issues[0].field).toBe('content-type');
});

describe('the answer stays far below Lambda 6 MB whatever the file holds (issue 15.5)', () => {
  test('an 8.5 MB file of long bad cells: each cell quoted to 200 characters with its full length, the first 1,000 errors listed, the rest counted', async () => {
    // 2,000 rows whose reason is a 4,250-character formula: 8.5 MB, two errors a row (a formula, too long).
    const cell = `=${'A'.repeat(4249)}`;
    const csv = [HEADER, ...Array.from({ length: 2000 }, (_, i) => `vendor_${i + 1000},1,immediate,,${cell}`)].join('\n');
    expect(csv.length).toBeGreaterThan(8_500_000);
    const response = await fetch(`${api.url}/policies/import?actor=finance%40example.com`, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: csv });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text.length).toBeLessThan(1_000_000);
    const body = JSON.parse(text);
    expect(body).toMatchObject({ dryRun: true, rows: 2000, valid: 0, moreErrors: 3000 });
    expect(body.errors).toHaveLength(1000);
    expect(body.errors[0]).toEqual({
      line: 2, field: 'reason',
      message: expect.stringContaining(`is ${JSON.stringify(`${cell.slice(0, 200)}…`)} (cut: 4250 characters in all) (it begins like a spreadsheet formula`),
    });
    expect(body.errors[1]).toMatchObject({ line: 2, field: 'reason', message: expect.stringContaining('has 4250 characters') });
    expect(body.errors[999].line).toBe(501);

    // A refused apply lists the same first errors and counts the rest.
    const apply = await post(csv, 'dryRun=false&actor=finance%40example.com');
    expect(apply.status).toBe(400);
    expect(apply.body.error.issues).toHaveLength(1001);
    expect(apply.body.error.issues[1000]).toMatchObject({ field: 'file', problem: 'has 3000 more errors after line 501, not listed' });
    expect(api.world.policyImports.items.size).toBe(0);
  });

  test('one 8 MB cell (a vendor id, a delay, the header) is quoted cut, with its length', async () => {
    const huge = 'x'.repeat(8_000_000);
    const badId = await post([HEADER, `${huge},1,immediate,,fine`].join('\n'));
    expect(JSON.stringify(badId.body).length).toBeLessThan(2000);
    expect(badId.body.errors[0]).toMatchObject({ line: 2, field: 'vendorId', message: expect.stringContaining(`…" (cut: 8000000 characters in all), not a vendor id`) });
    const badHeader = await post([`${HEADER}${huge}`, 'vendor_a,1,immediate,,fine'].join('\n'));
    expect(JSON.stringify(badHeader.body).length).toBeLessThan(2000);
    expect(badHeader.body.errors[0]).toMatchObject({ line: 1, field: 'header', message: expect.stringContaining('(cut: 8000044 characters in all); send exactly') });
    const badDelay = await post([HEADER, `vendor_a,1,immediate,${huge},fine`].join('\n'));
    expect(JSON.stringify(badDelay.body).length).toBeLessThan(2000);
  });
});

test('an import keeps each vendor\'s maxExposure (contract 6.4): the file has no column for it', async () => {
  await api.world.deps.policies.save({
    vendorId: 'vendor_a', version: 1, scheduleOption: 1, release: { kind: 'at_max' }, maxExposure: { INR: '50000.00' },
    actor: 'finance@example.com', reason: 'cap', at: at('2022-12-02T16:00:00+05:30'),
  });
  expect((await post(GOOD, 'actor=finance%40example.com&dryRun=false')).status).toBe(200);
  expect(await current('vendor_a')).toMatchObject({ version: 2, release: { kind: 'immediate' }, maxExposure: { INR: '50000.00' } });
  expect(await current('vendor_b')).not.toHaveProperty('maxExposure');
});
