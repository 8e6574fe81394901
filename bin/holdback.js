#!/usr/bin/env node
// `npx holdback <command>`. Commands over the API (and help, and the offline audit check) run the CLI compiled at
// install time (dist/holdback.cjs, built by bin/build-cli.js as `prepare`), in this very process: no TypeScript is
// compiled at start. The commands that run the local stack (start, demo, bench, sandbox, console), or a checkout whose
// bundle was never built, run the TypeScript with tsx's loader in a child Node (the CLI loads those commands with
// dynamic import(), which needs tsx's ESM hook).
const { statSync } = require('node:fs');
const { dirname, join } = require('node:path');

const THROUGH_TSX = new Set(['start', 'demo', 'bench', 'sandbox', 'console']);
const bundle = join(__dirname, '..', 'dist', 'holdback.cjs');
const command = process.argv[2];

/** Whether the bundle exists and is newer than the CLI's own sources (an edited checkout runs its edits through tsx). */
function bundleIsFresh() {
  let built;
  try {
    built = statSync(bundle).mtimeMs;
  } catch {
    return false;
  }
  return ['holdback.ts', 'api-commands.ts', 'cli-views.ts', 'audit-verify.ts'].every((name) => {
    try {
      return statSync(join(__dirname, name)).mtimeMs <= built;
    } catch {
      return true;
    }
  });
}

if (!THROUGH_TSX.has(command) && !process.env.HOLDBACK_CLI_TSX && bundleIsFresh()) {
  require(bundle);
} else {
  const { spawn } = require('node:child_process');
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
}
