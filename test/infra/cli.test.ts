/** `npx holdback`: the packaged entry runs the TypeScript CLI from any folder and passes its exit code on. */
import { spawnSync } from 'node:child_process';
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
