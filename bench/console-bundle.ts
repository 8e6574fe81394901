/** The console's bundle as a browser downloads it: bytes raw and gzipped (goal: under 150 KB gzipped), and the build time. */
import { gzipSync } from 'node:zlib';
import { buildConsoleBundle } from '../console/bundle';

export const CONSOLE_BUNDLE_GOAL_GZIP_BYTES = 150 * 1024;

export async function benchConsoleBundle() {
  const started = process.hrtime.bigint();
  const bundle = await buildConsoleBundle();
  const buildMs = Number(process.hrtime.bigint() - started) / 1e6;
  // Everything the page loads: the page itself, the script and the stylesheet.
  const files = [{ name: 'console.html', body: Buffer.from(bundle.html) }, ...[...bundle.assets].map(([name, asset]) => ({ name, body: asset.body }))];
  const measured = files.map((f) => ({ name: f.name, bytes: f.body.length, gzipBytes: gzipSync(f.body, { level: 9 }).length }));
  const gzipBytes = measured.reduce((sum, f) => sum + f.gzipBytes, 0);
  return {
    files: measured,
    bytes: measured.reduce((sum, f) => sum + f.bytes, 0),
    gzipBytes,
    gzipKiB: Math.round((gzipBytes / 1024) * 10) / 10,
    buildMs: Math.round(buildMs),
  };
}

export function consoleBundleLine(r: Awaited<ReturnType<typeof benchConsoleBundle>>): string {
  return `console bundle: ${r.gzipKiB} KiB gzipped (goal under 150 KiB), ${Math.round(r.bytes / 1024)} KiB raw, `
    + `${r.files.map((f) => `${f.name} ${Math.round(f.gzipBytes / 102.4) / 10} KiB`).join(', ')}; built in ${r.buildMs} ms`;
}
