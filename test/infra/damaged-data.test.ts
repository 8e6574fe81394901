/**
 * A damaged data folder: each kind of file in it cut in half, emptied, overwritten with garbage or deleted, then the
 * real start. It is refused, naming the file, what is wrong and the remedies (restore, --repair, --fresh), and the
 * folder is left as found (a second start is refused too: nothing was rolled back); or, with --repair, it starts and
 * prints what was lost. A kill during writes is not damage: the restart reports nothing and loses nothing acknowledged.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, openSync, writeSync, closeSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { ClassicLevel } from 'classic-level';
import type { LocalRuntime } from '../../local/runtime';
import { dataFolderPaths } from '../../local/data-folder';
import { killStillRunning, startHoldback, type HoldbackProcess } from './holdback-process';
import { runtimesOnDataFolders } from './local-runtimes';

jest.setTimeout(180_000);

const T0 = new Date('2022-12-02T10:35:00Z');
const children: HoldbackProcess[] = [];
const local = runtimesOnDataFolders('holdback-damage-', () => killStillRunning(children));
const folder = local.folder;
const stop = local.stop;

function start(dataDir: string, opts: { repair?: boolean; fresh?: boolean; log?: string[] } = {}): Promise<LocalRuntime> {
  return local.start({ dataDir, clockStart: T0, frozen: true, repair: opts.repair, fresh: opts.fresh, log: opts.log ? (line) => opts.log!.push(line) : undefined });
}

const json = { 'content-type': 'application/json' };

async function setPolicy(api: string, vendorId: string): Promise<void> {
  const answer = await fetch(`${api}/vendors/${vendorId}/policy`, {
    method: 'PUT', headers: json,
    body: JSON.stringify({ scheduleOption: 1, release: { kind: 'immediate' }, actor: 'test', reason: `kept ${vendorId}` }),
  });
  if (answer.status !== 200) throw new Error(`PUT policy ${vendorId}: ${answer.status} ${await answer.text()}`);
}

async function policyVersion(api: string, vendorId: string): Promise<number> {
  return ((await (await fetch(`${api}/vendors/${vendorId}/policy`)).json()) as { version: number }).version;
}

/** A folder with `count` vendor policies in its tables, an event through the bus, a sandbox merchant change, a moved clock. */
async function written(count: number, opts: { restartOnce?: boolean } = {}): Promise<string> {
  const dir = folder();
  const first = await start(dir);
  for (let i = 0; i < count; i++) await setPolicy(first.api.url, `vendor-${i}`);
  const events = new EventBridgeClient({ endpoint: first.edge.url, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  await events.send(new PutEventsCommand({ Entries: [{ Source: 'marketplace.orders', DetailType: 'order.paid', Detail: '{"orderId":"not-whole"}' }] }));
  await first.idle();
  events.destroy();
  expect((await fetch(`${first.sandbox.url}/_sandbox/merchant`, { method: 'PUT', headers: json, body: JSON.stringify({ deferByDays: 7 }) })).status).toBe(200);
  expect((await fetch(`${first.edge.url}/_local/clock`, { method: 'POST', headers: json, body: JSON.stringify({ advance: 'PT6H' }) })).status).toBe(200);
  await stop(first);
  if (opts.restartOnce) await stop(await start(dir)); // LevelDB turns its log into a table file at open
  return dir;
}

function tablesFile(dir: string, pattern: RegExp): string {
  const tables = dataFolderPaths(dir).tables;
  const name = readdirSync(tables).filter((f) => pattern.test(f)).sort((a, b) => statSync(join(tables, b)).size - statSync(join(tables, a)).size)[0];
  if (!name) throw new Error(`no file like ${pattern} in ${tables}: ${readdirSync(tables).join(' ')}`);
  return join(tables, name);
}

type Damage = 'cut in half' | 'emptied' | 'garbage' | 'deleted';

function damage(path: string, how: Damage, at = 0.5): void {
  const size = statSync(path).size;
  if (how === 'cut in half') truncateSync(path, Math.floor(size / 2));
  else if (how === 'emptied') truncateSync(path, 0);
  else if (how === 'deleted') rmSync(path);
  else {
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(Math.min(64, Math.max(1, Math.floor(size / 4))), 0x5a), 0, undefined, Math.floor(size * at));
    closeSync(fd);
  }
}

/**
 * The start is refused, naming the file and the three remedies. For the tables (whose open LevelDB rewrites), a second
 * start is refused alike: the folder was put back as found, nothing rolled back.
 */
async function expectRefused(dir: string, file: string, what: RegExp, attempts = 1): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const refused = await start(dir).then(() => null, (error: Error) => error);
    expect(refused).not.toBeNull();
    const message = refused!.message;
    expect(message).toContain('Holdback did not start');
    expect(message).toContain(file);
    expect(message).toMatch(what);
    expect(message).toMatch(/Restore .*from a backup/);
    expect(message).toContain('--repair');
    expect(message).toContain('--fresh');
  }
}

describe('the tables (LevelDB)', () => {
  test.each(['cut in half', 'emptied', 'deleted'] as Damage[])('a write-ahead log %s is refused, naming it; --repair starts and prints the writes lost; --fresh starts empty', async (how) => {
    const dir = await written(12);
    const log = tablesFile(dir, /\.log$/);
    damage(log, how);
    // A deleted log leaves no name behind: the folder is named, and that its log was deleted.
    await expectRefused(dir, how === 'deleted' ? dataFolderPaths(dir).tables : log, how === 'deleted'
      ? /hold 0 of the \d+ writes that were acknowledged.*write-ahead log was deleted/
      : /hold \d+ of the \d+ writes that were acknowledged.*roll the state back/, 2);

    const lines: string[] = [];
    const repaired = await start(dir, { repair: true, log: lines });
    expect(lines.join('\n')).toMatch(/lost: the newest \d+ of \d+ acknowledged writes to the tables/);
    // What LevelDB still held is served; a later start is clean (the seal now matches what the tables hold).
    expect(await policyVersion(repaired.api.url, 'vendor-11')).toBe(0);
    await stop(repaired);
    const after: string[] = [];
    await stop(await start(dir, { log: after }));
    expect(after.join('\n')).not.toMatch(/lost|damaged/);

    const fresh = await start(dir, { fresh: true });
    expect(await policyVersion(fresh.api.url, 'vendor-0')).toBe(0);
  });

  test('garbage in the middle of the write-ahead log is refused by its checksums, naming it', async () => {
    const dir = await written(40);
    const log = tablesFile(dir, /\.log$/);
    expect(statSync(log).size).toBeGreaterThan(40_000); // good records follow the damaged block
    damage(log, 'garbage', 0.1);
    await expectRefused(dir, log, /fails its checksum, and good records follow it/, 2);
  });

  test.each(['cut in half', 'emptied', 'garbage', 'deleted'] as Damage[])('a table file %s is refused, naming it; --repair prints what LevelDB kept', async (how) => {
    const dir = await written(12, { restartOnce: true });
    const table = tablesFile(dir, /\.ldb$/);
    damage(table, how);
    await expectRefused(dir, table, how === 'deleted' ? /missing files/ : /is damaged/, 2);
    const lines: string[] = [];
    await stop(await start(dir, { repair: true, log: lines }));
    expect(lines.join('\n')).toMatch(/LevelDB's repair of .* kept \d+ items/);
  });

  test('a half-written table file a kill left behind (a compaction\'s output the MANIFEST never listed) is no damage', async () => {
    const dir = await written(12, { restartOnce: true });
    const table = tablesFile(dir, /\.ldb$/);
    const orphan = join(dataFolderPaths(dir).tables, '000999.ldb');
    writeFileSync(orphan, readFileSync(table).subarray(0, statSync(table).size >> 1));
    const lines: string[] = [];
    const restarted = await start(dir, { log: lines });
    expect(lines.join('\n')).not.toMatch(/damaged|lost/);
    expect(await policyVersion(restarted.api.url, 'vendor-11')).toBe(1);
    expect(existsSync(orphan)).toBe(false); // LevelDB's open removed it
  });

  test('a kill while LevelDB was still creating the tables (no CURRENT yet, nothing written) is no damage: the start goes on, empty', async () => {
    const dir = folder();
    const tables = dataFolderPaths(dir).tables;
    // What such a kill leaves: LevelDB made its MANIFEST and was stopped before CURRENT (and before any log).
    const db = new ClassicLevel(tables);
    await db.open();
    await db.close();
    for (const name of readdirSync(tables)) if (name === 'CURRENT' || name.endsWith('.log')) rmSync(join(tables, name));
    expect(readdirSync(tables).some((name) => name.startsWith('MANIFEST-'))).toBe(true);
    const lines: string[] = [];
    const runtime = await start(dir, { log: lines });
    expect(lines.join('\n')).not.toMatch(/damaged|lost|did not start/);
    await setPolicy(runtime.api.url, 'vendor-new');
    expect(await policyVersion(runtime.api.url, 'vendor-new')).toBe(1);
    await stop(runtime);
  });

  test('a kill while a table was still being created (left CREATING on disk) is no damage: the next start finishes it', async () => {
    const dir = await written(2);
    // What such a kill leaves: every table stored as CREATING (dynalite makes it ACTIVE with a timer that died).
    const db = new ClassicLevel<string, Record<string, unknown>>(dataFolderPaths(dir).tables, { valueEncoding: 'json' });
    await db.open();
    let tables = 0;
    for await (const [key, table] of db.iterator({ gte: 'table~', lt: 'table~\uffff' })) {
      await db.put(key, { ...table, TableStatus: 'CREATING' });
      tables += 1;
    }
    await db.close();
    expect(tables).toBeGreaterThan(0);
    const lines: string[] = [];
    const runtime = await start(dir, { log: lines });
    expect(lines.join('\n')).not.toMatch(/damaged|lost/);
    expect(await policyVersion(runtime.api.url, 'vendor-1')).toBe(1);
    await stop(runtime);
  });

  test.each([['MANIFEST', 'emptied'], ['CURRENT', 'deleted'], ['CURRENT', 'garbage']] as Array<['MANIFEST' | 'CURRENT', Damage]>)('its %s file %s is refused, naming it', async (kind, how) => {
    const dir = await written(3, { restartOnce: true });
    const file = tablesFile(dir, kind === 'CURRENT' ? /^CURRENT$/ : /^MANIFEST-/);
    damage(file, how);
    await expectRefused(dir, file, kind === 'CURRENT' ? /CURRENT/ : /is empty/);
    await stop(await start(dir, { repair: true }));
  });

  test.each(['garbage', 'deleted'] as Damage[])('its seal (the count of acknowledged writes) %s is refused, naming it', async (how) => {
    const dir = await written(3);
    const seal = `${dataFolderPaths(dir).tables}.seal`;
    damage(seal, how);
    await expectRefused(dir, seal, how === 'deleted' ? /is missing: the last start left it .* so it was deleted/ : /cannot be checked/);
  });

  test('the whole tables folder deleted with its seal is refused, naming the seal the last start left', async () => {
    const dir = await written(3);
    const paths = dataFolderPaths(dir);
    rmSync(paths.tables, { recursive: true });
    rmSync(`${paths.tables}.seal`);
    await expectRefused(dir, `${paths.tables}.seal`, /so it was deleted/);
  });
});

describe('the journals (events, schedules, queue messages)', () => {
  const journals = (dir: string) => {
    const paths = dataFolderPaths(dir);
    return { events: paths.events, schedules: paths.schedules, queues: join(paths.queues, 'queues.jsonl') };
  };

  test.each([
    ['events', 'emptied'], ['events', 'deleted'],
    ['schedules', 'cut in half'], ['schedules', 'emptied'], ['schedules', 'garbage'], ['schedules', 'deleted'],
    ['queues', 'cut in half'],
  ] as Array<['events' | 'schedules' | 'queues', Damage]>)('the %s journal %s is refused, naming it', async (which, how) => {
    const dir = await written(2);
    const path = journals(dir)[which];
    if (how === 'garbage') {
      // A line in the middle changed: its checksum no longer matches, and good lines follow it.
      const lines = readFileSync(path, 'utf8').split('\n');
      expect(lines.length).toBeGreaterThan(3);
      lines[1] = lines[1].replace(/[0-9]/, (d) => String((Number(d) + 1) % 10)).replace(/"k":"/, '"k":"x');
      writeFileSync(path, lines.join('\n'));
    } else {
      damage(path, how);
    }
    await expectRefused(dir, path, how === 'garbage' ? /is damaged: line 2 its checksum does not match/ : /was cut short or emptied/);
    const lines: string[] = [];
    const repaired = await start(dir, { repair: true, log: lines });
    expect(lines.join('\n')).toContain(path);
    expect(lines.join('\n')).toMatch(/lost|dropped/);
    // The sweep's schedule is made again at every start: the runtime carries on.
    expect(repaired.edge.scheduler.list().map((s) => s.name)).toContain('holdback-sweep');
  });

  test('the torn end a kill leaves is dropped and said so, never refused', async () => {
    const dir = await written(2);
    const path = journals(dir).schedules;
    appendFileSync(path, '0badc0de {"n":99999,"k":"holdback-half');
    const lines: string[] = [];
    await stop(await start(dir, { log: lines }));
    expect(lines.join('\n')).toContain(`${path}: the last write (1 line) was torn by a stop before it reached the disk whole; it was never acknowledged, and is dropped.`);
  });
});

describe('the sandbox state, the clock and the audit key', () => {
  test.each(['cut in half', 'emptied', 'garbage'] as Damage[])('sandbox/state.json %s is refused, naming it; --repair sets it aside and says what is lost', async (how) => {
    const dir = await written(1);
    const path = join(dataFolderPaths(dir).sandbox, 'state.json');
    if (how === 'garbage') writeFileSync(path, `${readFileSync(path, 'utf8').slice(0, 100)}\u0000\u0000garbage`);
    else damage(path, how);
    await expectRefused(dir, path, /is damaged: it (is empty|is not whole JSON)/);
    const lines: string[] = [];
    const repaired = await start(dir, { repair: true, log: lines });
    expect(lines.join('\n')).toContain(`set aside as ${path}.damaged; lost: the gateway sandbox's state`);
    expect(repaired.sandbox.state.merchant.deferByDays).toBe(15);
    expect(existsSync(`${path}.damaged`)).toBe(true);
  });

  test.each(['cut in half', 'emptied'] as Damage[])('clock.json %s is refused, naming it', async (how) => {
    const dir = await written(1);
    const path = dataFolderPaths(dir).clock;
    damage(path, how);
    await expectRefused(dir, path, /clock's stored instant/);
  });

  test.each(['sandbox/state.json', 'clock.json', 'audit-key.pem'])('%s deleted is refused, naming it; --repair carries on without it and says so', async (name) => {
    const dir = await written(1);
    const path = join(dir, name);
    rmSync(path);
    await expectRefused(dir, path, /is missing: the last start left it/);
    const lines: string[] = [];
    await stop(await start(dir, { repair: true, log: lines }));
    expect(lines.join('\n')).toContain(`${path} was missing (deleted since the last start): what it held is lost.`);
    const after: string[] = [];
    await stop(await start(dir, { log: after }));
    expect(after.join('\n')).not.toMatch(/missing|lost|damaged/);
  });

  test.each(['cut in half', 'garbage'] as Damage[])('audit-key.pem %s is refused, naming it; --repair makes a new key and says the old checkpoints no longer verify with it', async (how) => {
    const dir = await written(1);
    const path = dataFolderPaths(dir).auditKey;
    if (how === 'garbage') writeFileSync(path, '-----BEGIN PRIVATE KEY-----\nZZZZ\n-----END PRIVATE KEY-----\n');
    else damage(path, how);
    await expectRefused(dir, path, /not an Ed25519 private key/);
    const lines: string[] = [];
    await stop(await start(dir, { repair: true, log: lines }));
    expect(lines.join('\n')).toMatch(/new audit key is made; checkpoints signed with the old key no longer verify/);
  });
});

describe('npx holdback start (child process)', () => {
  test('a damaged folder exits 1 with one paragraph naming the file and the remedies', async () => {
    const dir = await written(3);
    const log = tablesFile(dir, /\.log$/);
    damage(log, 'emptied');
    const child = spawn(process.execPath, [join(__dirname, '..', '..', 'bin', 'holdback.js'), 'start', '--data', dir], {
      env: { ...process.env, HOLDBACK_API_PORT: '0', HOLDBACK_EDGE_PORT: '0', SANDBOX_PORT: '0', HOLDBACK_LOCAL_CONTAINERS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { err += chunk; });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(1);
    const paragraph = err.trim().split('\n').filter((line) => line.startsWith('Holdback did not start'));
    expect(paragraph).toHaveLength(1);
    expect(paragraph[0]).toContain(log);
    expect(paragraph[0]).toMatch(/--repair.*--fresh/);
  });

  test('SIGKILL during a burst of writes is no damage: each restart starts without a report and keeps every acknowledged write', async () => {
    const dir = folder();
    const acknowledged: string[] = [];
    for (let round = 0; round < 3; round++) {
      const holdback = await startHoldback(['--data', dir, '--clock', T0.toISOString(), '--frozen']);
      children.push(holdback);
      expect(holdback.stdout() + holdback.stderr()).not.toMatch(/damaged|lost|did not start/);
      for (const vendorId of acknowledged) expect(await policyVersion(holdback.api, vendorId)).toBeGreaterThanOrEqual(1);
      let stopWriting = false;
      const writers = Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; !stopWriting; i++) {
          const vendorId = `v${round}-${w}-${i}`;
          try {
            await setPolicy(holdback.api, vendorId);
            acknowledged.push(vendorId);
          } catch {
            return; // the kill cut this one: never acknowledged
          }
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await holdback.killHard();
      stopWriting = true;
      await Promise.all(writers);
    }
    expect(acknowledged.length).toBeGreaterThan(10);
    const last = await startHoldback(['--data', dir]);
    children.push(last);
    expect(last.stdout() + last.stderr()).not.toMatch(/damaged|did not start/);
    for (const vendorId of acknowledged) expect(await policyVersion(last.api, vendorId)).toBeGreaterThanOrEqual(1);
  });
});
