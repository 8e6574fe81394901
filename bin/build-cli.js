#!/usr/bin/env node
// Builds the CLI once (`npm ci` / `npm install` run it as `prepare`): bin/holdback.ts and what it imports, bundled by
// esbuild into dist/holdback.cjs, so that `npx holdback <command>` starts in plain Node instead of compiling TypeScript
// at every start. Packages stay outside the bundle (required from node_modules). The commands that run the local stack
// (start, demo, bench, sandbox, console) read files next to their sources and keep running through tsx.
// Usage: node bin/build-cli.js [outfile [folder for the holdback link]]
const { join } = require('node:path');

const root = join(__dirname, '..');
const outfile = process.argv[2] ?? join(root, 'dist', 'holdback.cjs');

let esbuild;
try {
  esbuild = require('esbuild');
} catch {
  // Installed without dev dependencies: bin/holdback.js runs the TypeScript through tsx instead (slower to start).
  process.stderr.write('holdback: esbuild is not installed; the CLI will run through tsx (npm ci with dev dependencies builds it)\n');
  process.exit(0);
}

esbuild.buildSync({
  entryPoints: [join(root, 'bin', 'holdback.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  // Only reached through tsx (bin/holdback.js never sends these commands to the bundle).
  external: ['../local/*', '../bench/*', '../sandbox/*', './console-server'],
  logLevel: 'warning',
  legalComments: 'none',
});

// `npx holdback` in this folder: npm 11 runs a bin named by the project's own package.json only after reading the
// whole node_modules tree and installing the project into its npx cache (about a second); a link in
// node_modules/.bin it runs at once. So package.json names no bin and the link is made here, at `npm ci`; building
// elsewhere (an outfile given: tests), only in the folder named after it, if any.
const linkFolder = process.argv[2] === undefined ? join(root, 'node_modules', '.bin') : process.argv[3];
if (linkFolder !== undefined) {
  const { existsSync, lstatSync, mkdirSync, symlinkSync } = require('node:fs');
  const { relative } = require('node:path');
  const binDir = linkFolder;
  const link = join(binDir, 'holdback');
  let present = false;
  try {
    present = lstatSync(link).isSymbolicLink() || existsSync(link);
  } catch {
    present = false;
  }
  if (!present && existsSync(join(binDir, '..'))) {
    try {
      mkdirSync(binDir, { recursive: true });
      symlinkSync(relative(binDir, join(root, 'bin', 'holdback.js')), link);
    } catch (error) {
      process.stderr.write(`holdback: could not link node_modules/.bin/holdback (${error.message}); run node bin/holdback.js instead of npx holdback\n`);
    }
  }
}
