/**
 * Builds the web console at build time into a folder: `npm run build:console` (dist/console, also run by `prepare`)
 * and the API function's CDK bundling (next to its index.js, so that GET /console answers on AWS).
 * Usage: tsx bin/build-console.ts [dir] [--if-bundler]  (--if-bundler: without esbuild installed, say so and succeed)
 */
import { join } from 'node:path';
import { writeConsoleBundle } from '../console/bundle';

const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith('--')) ?? join(__dirname, '..', 'dist', 'console');

function hasBundler(): boolean {
  try {
    require.resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

if (args.includes('--if-bundler') && !hasBundler()) {
  process.stderr.write('holdback: esbuild is not installed; the console is not built (npm ci with dev dependencies builds it)\n');
} else {
  writeConsoleBundle(dir).then((bundle) => {
    process.stdout.write(`console built into ${dir}: ${[...bundle.assets.keys()].join(', ')}\n`);
  }, (error: unknown) => {
    process.stderr.write(`holdback: the console could not be built: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
