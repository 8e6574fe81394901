#!/usr/bin/env node
// `npx holdback <command>`: runs the TypeScript CLI with tsx's loader, so no build step stands between a user and it.
// It re-runs Node with `--import tsx` (the CLI loads its commands with dynamic import(), which needs tsx's ESM hook).
const { spawn } = require('node:child_process');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');

// Resolved from this package, so that `npx holdback` works from any folder.
const tsxLoader = pathToFileURL(join(dirname(require.resolve('tsx/package.json')), 'dist', 'loader.mjs')).href;

const child = spawn(process.execPath, ['--import', tsxLoader, join(__dirname, 'holdback.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  cwd: process.cwd(),
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
