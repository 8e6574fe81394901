/** The data folder in process: what a restart keeps, `--fresh`, the lock, refused ports, and the durable files themselves. */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { startLocal, type LocalRuntime } from '../../local/runtime';
import { AUDIT_KEY_FILE, DataFolderInUse, dataFolderPaths, openDataFolder } from '../../local/data-folder';
import { RecordJournal, SnapshotFile } from '../../kit/durable-file';
import { JournaledQueueStore } from '../../local/edge/queue-store';
import { FETCH_BLOCKED_PORTS } from '../../local/ports';
import { startLogger } from '../../local/start';
import { createSandbox } from '../../sandbox/app';
import { runtimesOnDataFolders } from './local-runtimes';

jest.setTimeout(60_000);

const T0 = new Date('2022-12-02T10:35:00Z');
const local = runtimesOnDataFolders('holdback-folder-');
const folder = local.folder;
const stop = local.stop;
const start = (dataDir: string, opts: { fresh?: boolean; clockStart?: Date; frozen?: boolean } = {}): Promise<LocalRuntime> => local.start({ dataDir, ...opts });

const policy = (runtime: LocalRuntime, vendorId: string) =>
  fetch(`${runtime.api.url}/vendors/${vendorId}/policy`).then((r) => r.json() as Promise<{ version: number }>);

test('a clean restart keeps the tables, the sandbox, the schedules and the frozen clock; --fresh empties the folder', async () => {
  const dir = folder();
  const first = await start(dir, { clockStart: T0, frozen: true });
  const put = await fetch(`${first.api.url}/vendors/vendor-kept/policy`, {
    method: 'PUT', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ scheduleOption: 1, release: { kind: 'immediate' }, actor: 'test', reason: 'kept' }),
  });
  expect(put.status).toBe(200);
  const json = { 'content-type': 'application/json' };
  expect((await fetch(`${first.sandbox.url}/_sandbox/merchant`, { method: 'PUT', headers: json, body: JSON.stringify({ deferByDays: 7 }) })).status).toBe(200);
  expect((await fetch(`${first.edge.url}/_local/clock`, { method: 'POST', headers: json, body: JSON.stringify({ advance: 'PT6H' }) })).status).toBe(200);
  await stop(first);

  // No --clock: the clock resumes from its stored instant, frozen as it was.
  const second = await start(dir);
  expect(second.clock.now().toISO()).toBe('2022-12-02T16:35:00.000Z');
  expect(second.clock.frozen).toBe(true);
  expect((await policy(second, 'vendor-kept')).version).toBe(1);
  expect(second.sandbox.state.merchant.deferByDays).toBe(7);
  expect(second.edge.scheduler.list().map((s) => s.name)).toContain('holdback-sweep');
  await stop(second);

  // --clock wins over the stored instant; a running clock resumes from where it stood, and runs on.
  const third = await start(dir, { clockStart: T0 });
  expect(Math.abs(third.clock.nowMs() - T0.getTime())).toBeLessThan(60_000);
  expect(third.clock.frozen).toBe(false);
  await stop(third);
  const fourth = await start(dir);
  expect(Math.abs(fourth.clock.nowMs() - T0.getTime())).toBeLessThan(60_000);
  expect(fourth.clock.frozen).toBe(false);
  await stop(fourth);

  const fresh = await start(dir, { fresh: true, clockStart: T0, frozen: true });
  expect((await policy(fresh, 'vendor-kept')).version).toBe(0);
  expect(fresh.sandbox.state.merchant.deferByDays).toBe(15);
});

test('without a data folder nothing is written and the runtime starts as before (tests, demo, bench)', async () => {
  const runtime = await startLocal({ apiPort: 0, edgePort: 0, sandboxPort: 0, containers: 1, clockStart: T0, frozen: true });
  local.keep(runtime);
  expect(runtime.dataFolder).toBeNull();
});

test('a folder another live process holds is refused, naming that process; a lock of a dead process is taken over', () => {
  const dir = folder();
  writeFileSync(join(dir, 'lock'), String(process.ppid));
  expect(() => openDataFolder(dir)).toThrow(DataFolderInUse);
  expect(() => openDataFolder(dir)).toThrow(`in use by process ${process.ppid}`);
  writeFileSync(join(dir, 'lock'), '999999999');
  const { folder: paths, release } = openDataFolder(dir);
  expect(readFileSync(join(dir, 'lock'), 'utf8')).toBe(String(process.pid));
  // The audit log's key has a documented place in the folder.
  expect(paths.auditKey).toBe(join(dir, AUDIT_KEY_FILE));
  release();
  expect(existsSync(join(dir, 'lock'))).toBe(false);
});

test('a journal replays puts and deletes, ignores a line torn by a kill, and is compacted at open', async () => {
  const path = join(folder(), 'records.jsonl');
  const journal = new RecordJournal<{ n: number }>(path);
  journal.put('a', { n: 1 });
  journal.put('b', { n: 2 });
  journal.put('a', { n: 3 });
  journal.delete('b');
  await journal.flush();
  await journal.close();
  writeFileSync(path, `${readFileSync(path, 'utf8')}{"k":"c","v":{"n"`); // the kill's half line
  const reopened = new RecordJournal<{ n: number }>(path);
  expect([...reopened.loaded()]).toEqual([['a', { n: 3 }]]);
  // Rewritten as its live records after a line with the last number, each line with its checksum.
  expect(readFileSync(path, 'utf8').split('\n').map((line) => line.slice(9))).toEqual(['{"n":4}', '{"k":"a","v":{"n":3}}', '']);
  await reopened.close();
});

test('a snapshot file writes a changed snapshot and leaves the file alone when nothing changed', async () => {
  const path = join(folder(), 'snapshot.json');
  let text = 'one';
  const file = new SnapshotFile(path, () => text);
  await file.save();
  expect(readFileSync(path, 'utf8')).toBe('one');
  const written = statSync(path).ino;
  await file.save(); // unchanged: not rewritten (a rewrite renames a new file over it, a new inode)
  expect(statSync(path).ino).toBe(written);
  text = 'two';
  await file.save();
  expect(readFileSync(path, 'utf8')).toBe('two');
  expect(statSync(path).ino).not.toBe(written);
});

test('queued messages survive in the journaled queue store, oldest first', async () => {
  const dir = dataFolderPaths(folder()).root;
  const store = new JournaledQueueStore(dir);
  store.defineQueue({ name: 'q', visibilityTimeout: 30, delaySeconds: 0, receiveMessageWaitTimeSeconds: 0, messageRetentionPeriod: 60, redrivePolicy: null, createdAt: 0 });
  const message = (id: string, sentAt: number) => ({ messageId: id, body: id, md5OfBody: '', sentAt, visibleAt: sentAt, receiveCount: 0, firstReceivedAt: null, receipt: null });
  store.put('q', message('m2', 2));
  store.put('q', message('m1', 1));
  store.put('q', message('m3', 3));
  store.remove('q', 'm3');
  await store.flush();
  await store.close();
  const again = new JournaledQueueStore(dir);
  expect(again.queues().map((q) => q.name)).toEqual(['q']);
  expect([...again.messages('q')].map((m) => m.messageId)).toEqual(['m1', 'm2']);
  await again.close();
});

test.each([['HOLDBACK_API_PORT', 6000], ['HOLDBACK_EDGE_PORT', 6566], ['SANDBOX_PORT', 6665]])(
  'a port fetch refuses (%s=%d) is refused at start, naming the variable, and nothing is left listening',
  async (variable, port) => {
    // The premise: fetch will not connect to it ("bad port"), so the sandbox's webhooks and users' scripts would fail.
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({ cause: { message: 'bad port' } });
    const saved = process.env[variable];
    process.env[variable] = String(port);
    try {
      await expect(startLocal({})).rejects.toThrow(new RegExp(`^${variable} is ${port}, a port fetch refuses`));
    } finally {
      if (saved === undefined) delete process.env[variable];
      else process.env[variable] = saved;
    }
  },
);

test('the refused list is the one fetch applies', async () => {
  // Every listed port is refused by fetch before any connection; a port next to them is not.
  const outcomes = await Promise.all([...FETCH_BLOCKED_PORTS].map((port) =>
    fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2_000) }).then(() => 'answered', (error: { cause?: { message?: string } }) => error.cause?.message ?? 'failed')));
  expect(new Set(outcomes)).toEqual(new Set(['bad port']));
});

test("the embedded default's log shows a server error (500) on stderr as a JSON line, its secrets scrubbed", async () => {
  const lines: string[] = [];
  const secret = 'the-sandbox-secret-value';
  const runtime = await startLocal({ apiPort: 0, edgePort: 0, sandboxPort: 0, containers: 1, clockStart: T0, frozen: true, logger: startLogger([secret], (line) => lines.push(line)) });
  local.keep(runtime);
  // A fault inside the API's use case (as a table write too large for DynamoDB would be): the answer is a bare 500.
  runtime.deps.settings.get = () => Promise.reject(new Error(`settings table unreachable with key ${secret}`));
  const answer = await fetch(`${runtime.api.url}/settings`);
  expect(answer.status).toBe(500);
  expect(await answer.text()).not.toContain(secret);
  const logged = lines.map((line) => JSON.parse(line) as { level: string; message: string });
  expect(logged).toEqual(expect.arrayContaining([expect.objectContaining({ level: 'error', message: 'request failed' })]));
  expect(lines.join('\n')).toContain('settings table unreachable with key [redacted]');
  expect(lines.join('\n')).not.toContain(secret);
});

test('the sandbox delivers webhooks to a receiver on a port fetch refuses', async () => {
  // One of fetch's blocked ports that is free here (they are reserved names, rarely in use on a test machine).
  const received: string[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
    req.on('end', () => { received.push(body); res.writeHead(200).end('ok'); });
  });
  let port: number | null = null;
  for (const candidate of [6665, 6666, 6667, 6668, 6669, 6679, 6697, 6000, 6566]) {
    const bound = await new Promise<boolean>((resolve) => {
      receiver.once('error', () => resolve(false));
      receiver.listen(candidate, '127.0.0.1', () => resolve(true));
    });
    if (bound) { port = candidate; break; }
  }
  if (port === null) return console.warn('no port of fetch\'s blocked list is free here: skipped');
  const sandbox = await createSandbox({ port: 0, webhooks: { retryDelaysMs: [] } });
  try {
    const delivery = await sandbox.webhooks.send(`http://127.0.0.1:${port}/hook`, 'VENDOR_SETTLEMENT_SUCCESS', { settlement: { order_id: 'o-1' } });
    expect(delivery).toMatchObject({ status: 'DELIVERED', last_status_code: 200 });
    expect(JSON.parse(received[0])).toMatchObject({ type: 'VENDOR_SETTLEMENT_SUCCESS', data: { settlement: { order_id: 'o-1' } } });
  } finally {
    await sandbox.close();
    await new Promise((resolve) => receiver.close(resolve));
  }
});
