/** `npx holdback`: the packaged entry runs the TypeScript CLI from any folder and passes its exit code on. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const entry = join(__dirname, '..', '..', 'bin', 'holdback.js');

test('help lists the commands, run from another folder', () => {
  const run = spawnSync(process.execPath, [entry, 'help'], { cwd: tmpdir(), encoding: 'utf8', timeout: 30_000 });
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^usage: holdback <command>/);
  for (const command of ['start', 'demo', 'bench', 'sandbox']) expect(run.stdout).toContain(`  ${command} `);
});

test('an unknown command says so and exits 2', () => {
  const run = spawnSync(process.execPath, [entry, 'launch'], { cwd: tmpdir(), encoding: 'utf8', timeout: 30_000 });
  expect(run.status).toBe(2);
  expect(run.stderr).toContain('unknown command "launch"');
});

describe('the compiled CLI (bin/build-cli.js, run at npm ci as prepare)', () => {
  const folder = mkdtempSync(join(tmpdir(), 'holdback-cli-'));
  const bundle = join(folder, 'holdback.cjs');
  beforeAll(() => {
    const build = spawnSync(process.execPath, [join(__dirname, '..', '..', 'bin', 'build-cli.js'), bundle], { encoding: 'utf8', timeout: 120_000 });
    expect([build.status, build.stderr]).toEqual([0, '']);
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  test('npx holdback runs a node_modules/.bin link to bin/holdback.js (made by the build), not a bin of package.json', () => {
    // npm 11 installs a project's own package.json bin into its npx cache at every call; a .bin link it runs at once.
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { bin?: unknown };
    expect(pkg.bin).toBeUndefined();
    const linkFolder = join(folder, 'node_modules', '.bin');
    mkdirSync(join(folder, 'node_modules'), { recursive: true });
    const build = spawnSync(process.execPath, [join(__dirname, '..', '..', 'bin', 'build-cli.js'), join(folder, 'linked.cjs'), linkFolder], { encoding: 'utf8', timeout: 120_000 });
    expect([build.status, build.stderr]).toEqual([0, '']);
    expect(realpathSync(join(linkFolder, 'holdback'))).toBe(realpathSync(join(__dirname, '..', '..', 'bin', 'holdback.js')));
    const help = spawnSync(join(linkFolder, 'holdback'), ['help'], { cwd: tmpdir(), encoding: 'utf8', timeout: 30_000 });
    expect(help.stdout).toMatch(/^usage: holdback <command>/);
  });

  test('runs in plain Node (no TypeScript loader): help, and an unknown flag exits 2 naming it', () => {
    const help = spawnSync(process.execPath, [bundle, 'help'], { cwd: tmpdir(), encoding: 'utf8', timeout: 30_000 });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: holdback <command>/);
    const flag = spawnSync(process.execPath, [bundle, 'vendors', '--colour'], { cwd: tmpdir(), encoding: 'utf8', timeout: 30_000 });
    expect(flag.status).toBe(2);
    expect(flag.stderr).toContain("Unknown option '--colour'");
    const start = spawnSync(process.execPath, [bundle, 'audit', 'verify', '--file', join(folder, 'none.ndjson'), '--colour'], { cwd: tmpdir(), encoding: 'utf8', timeout: 30_000 });
    expect(start.status).toBe(2);
    expect(start.stderr).toContain("'--colour'");
  });

  test('leaves the local stack out of the bundle: bin/holdback.js runs start, demo, bench, sandbox and console through tsx', () => {
    const text = readFileSync(bundle, 'utf8');
    expect(text).toContain('import("../local/start")');
    expect(text).not.toContain('function runStart');
    const launcher = readFileSync(entry, 'utf8');
    expect(launcher).toContain("new Set(['start', 'demo', 'bench', 'sandbox', 'console'])");
  });
});
