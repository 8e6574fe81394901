/**
 * Contract 6.3: a job survives a kill of the embedded default and carries on. `holdback start --data` as a child
 * process is killed hard (SIGKILL of its whole process group) while a hold's job, an apply's job, an export's job, an
 * audit export's job and an audit verification's job run; started again on the same folder, each job ends
 * `succeeded`, every release done exactly once. Exports and verifications take steps of 20 rows
 * (HOLDBACK_EXPORT_PART_ROWS), so the kill lands after some of its steps and the file (or the answer) is still whole.
 */
import { createHash } from 'node:crypto';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { call, holdbacksOnDataFolder, readUntil, type HoldbackProcess } from './holdback-process';

jest.setTimeout(420_000);

const T0 = '2022-12-02T16:05:00+05:30';
const VENDOR = 'vendor_big';
/** Four pages of a walk: a kill lands while pages remain. */
const ORDERS = 400;

/** Rows an export writes a step here: twenty parts for the 400 orders. */
const EXPORT_PART_ROWS = '20';

const data = holdbacksOnDataFolder('holdback-jobs-', 'file', { HOLDBACK_EXPORT_PART_ROWS: EXPORT_PART_ROWS });
const start = data.start;

type Job = { jobId: string; state: string; total: number; done: number; failed: number; result: { url: string; rows: number; bytes: number; sha256: string } | null };

/** The jobs here walk 400 orders on a busy machine: each wait is sized for it. */
const until = <T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> => readUntil(what, read, ok, 240_000);

const job = (holdback: HoldbackProcess, jobId: string) => call<Job>(`${holdback.api}/jobs/${jobId}`);

async function releases(holdback: HoldbackProcess): Promise<{ state: string; policyVersion: number }[]> {
  const page = await call<{ items: { state: string; policyVersion: number }[] }>(`${holdback.api}/outcomes?vendorId=${VENDOR}&limit=1000`);
  return page.items;
}

/** Kills the process once the job has counted work but not finished it, and says how far it was. */
async function killWhileRunning(holdback: HoldbackProcess, jobId: string): Promise<Job> {
  const seen = await until('the job to start', () => job(holdback, jobId), (j) => j.total > 0 || j.state !== 'queued');
  await holdback.killHard();
  return seen;
}

test('a hold, an apply and an export each survive a kill in the middle and carry on after the restart', async () => {
  let holdback = await start(['--data', data.folder(), '--clock', T0, '--frozen']);
  await call(`${holdback.api}/vendors/${VENDOR}/policy`, { method: 'PUT', body: JSON.stringify({ scheduleOption: 1, release: { kind: 'after_payment', delay: 'P1D' }, actor: 'finance@test', reason: 'setup' }) });
  const events = new EventBridgeClient({ endpoint: holdback.edge, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  for (let i = 0; i < ORDERS; i += 10) {
    const answer = await events.send(new PutEventsCommand({ Entries: Array.from({ length: 10 }, (_, n) => ({
      Source: 'marketplace.orders', DetailType: 'order.paid',
      Detail: JSON.stringify({ orderId: `ord_${String(i + n).padStart(5, '0')}`, transactionTime: T0, vendors: [{ vendorId: VENDOR, amount: '100.00' }] }),
    })) }));
    expect(answer.FailedEntryCount).toBe(0);
  }
  events.destroy();
  await until('every order planned', () => releases(holdback), (r) => r.length === ORDERS && r.every((x) => x.state === 'SCHEDULED'));

  // The hold: killed while its job runs, carried on after the restart.
  const hold = await call<{ job: Job }>(`${holdback.api}/vendors/${VENDOR}/hold`, { method: 'POST', body: JSON.stringify({ actor: 'risk@test', reason: 'review' }) });
  const atKill = await killWhileRunning(holdback, hold.job.jobId);
  expect(atKill.done).toBeLessThan(ORDERS);
  holdback = await start(['--data', data.folder()]);
  expect(await until('the hold job', () => job(holdback, hold.job.jobId), (j) => j.state !== 'queued' && j.state !== 'running'))
    .toMatchObject({ state: 'succeeded', total: ORDERS, done: ORDERS, failed: 0 });
  expect(new Set((await releases(holdback)).map((r) => r.state))).toEqual(new Set(['HELD']));

  // The apply to open orders, the same way.
  const apply = await call<{ job: Job }>(`${holdback.api}/vendors/${VENDOR}/policy`, { method: 'PUT', body: JSON.stringify({
    scheduleOption: 1, release: { kind: 'after_payment', delay: 'P3D' }, actor: 'finance@test', reason: 'slower', applyTo: 'open_orders',
  }) });
  expect((await killWhileRunning(holdback, apply.job.jobId)).done).toBeLessThan(ORDERS);
  holdback = await start(['--data', data.folder()]);
  expect(await until('the apply job', () => job(holdback, apply.job.jobId), (j) => j.state !== 'queued' && j.state !== 'running'))
    .toMatchObject({ state: 'succeeded', total: ORDERS, done: ORDERS, failed: 0 });
  expect(new Set((await releases(holdback)).map((r) => `${r.state} v${r.policyVersion}`))).toEqual(new Set(['HELD v2']));

  // The export: killed once some of its parts are written; after the restart it carries on from its cursor, and the
  // file is written whole, once.
  const exported = await call<{ job: Job }>(`${holdback.api}/exports`, { method: 'POST', body: JSON.stringify({ kind: 'outcomes', format: 'csv', filters: { vendorId: VENDOR } }) }, 202);
  const exportAtKill = await until('a part of the export', () => job(holdback, exported.job.jobId), (j) => j.done > 0 || j.state !== 'queued');
  await holdback.killHard();
  expect(exportAtKill.done).toBeLessThan(ORDERS);
  holdback = await start(['--data', data.folder()]);
  const done = await until('the export job', () => job(holdback, exported.job.jobId), (j) => j.state !== 'queued' && j.state !== 'running');
  expect(done).toMatchObject({ state: 'succeeded', total: ORDERS, done: ORDERS, result: { rows: ORDERS } });
  // This test starts each process on a new port: the link keeps its path and token, served by whichever process runs now.
  const link = new URL(done.result!.url);
  const file = Buffer.from(await (await fetch(new URL(`${link.pathname}${link.search}`, holdback.api))).arrayBuffer());
  expect(file.length).toBe(done.result!.bytes);
  expect(createHash('sha256').update(file).digest('hex')).toBe(done.result!.sha256);
  expect(file.toString('utf8').trim().split('\r\n')).toHaveLength(ORDERS + 1);

  // The audit export, in parts of 20 lines, killed after some: the file is GET /audit/export's, each line once.
  const audit = await call<{ job: Job }>(`${holdback.api}/exports`, { method: 'POST', body: JSON.stringify({ kind: 'audit' }) }, 202);
  const auditAtKill = await killWhileStepped(holdback, audit.job.jobId);
  expect(auditAtKill.state).toBe('running');
  holdback = await start(['--data', data.folder()]);
  const auditDone = await until('the audit export job', () => job(holdback, audit.job.jobId), (j) => j.state !== 'queued' && j.state !== 'running');
  expect(auditDone).toMatchObject({ state: 'succeeded', failed: 0 });
  const auditLink = new URL(auditDone.result!.url);
  const auditFile = await (await fetch(new URL(`${auditLink.pathname}${auditLink.search}`, holdback.api))).text();
  const lines = auditFile.trim().split('\n');
  expect(lines.length).toBe(auditDone.result!.rows);
  expect(lines.length).toBeGreaterThan(auditAtKill.done);
  expect(new Set(lines).size).toBe(lines.length);
  expect(createHash('sha256').update(auditFile).digest('hex')).toBe(auditDone.result!.sha256);
  expect(auditFile).toBe(await (await fetch(`${holdback.api}/audit/export`)).text());

  // The audit verification, in steps of 20 records, killed after some: its answer is GET /audit/verify's.
  const verification = await call<{ job: Job }>(`${holdback.api}/audit/verifications`, { method: 'POST', body: JSON.stringify({ actor: 'auditor@test' }) }, 202);
  const verifyAtKill = await killWhileStepped(holdback, verification.job.jobId);
  expect(verifyAtKill.state).toBe('running');
  holdback = await start(['--data', data.folder()]);
  const verified = await until('the verification job', () => job(holdback, verification.job.jobId), (j) => j.state !== 'queued' && j.state !== 'running');
  expect(verified).toMatchObject({ state: 'succeeded', failed: 0, result: { ok: true, firstBroken: null } });
  expect(verified.result).toEqual(await call(`${holdback.api}/audit/verify`));
  expect([verified.total, verified.done]).toEqual([(verified.result as unknown as { records: number }).records, (verified.result as unknown as { records: number }).records]);
});

/** Kills the process once a job of steps has finished a step and not all of them, and says how far it was. */
async function killWhileStepped(holdback: HoldbackProcess, jobId: string): Promise<Job> {
  const seen = await until('a step of the job', () => job(holdback, jobId), (j) => j.done > 0 || (j.state !== 'queued' && j.state !== 'running'));
  await holdback.killHard();
  return seen;
}
