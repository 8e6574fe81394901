/** The console's bundle: its browser code type-checks, everything is bundled (no other origin), and it stays under the size goal. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { benchConsoleBundle, CONSOLE_BUNDLE_GOAL_GZIP_BYTES } from '../../bench/console-bundle';
import { buildConsoleBundle, CONSOLE_SECURITY_HEADERS } from '../../console/bundle';

const ROOT = join(__dirname, '..', '..');

it('type-checks the browser code with its own tsconfig (DOM and Preact JSX, outside the Node project)', async () => {
  // The root tsconfig takes **/*.ts only; the console's .tsx files are checked here.
  await expect(promisify(execFile)(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'console/ui/tsconfig.json')], { cwd: ROOT }))
    .resolves.toBeDefined();
}, 60_000);

it('bundles Preact, uPlot and its stylesheet: the page loads only its own two assets, by relative address', async () => {
  const bundle = await buildConsoleBundle();
  const names = [...bundle.assets.keys()];
  expect(names).toEqual(expect.arrayContaining([expect.stringMatching(/^app\.[0-9a-f]{12}\.js$/), expect.stringMatching(/^app\.[0-9a-f]{12}\.css$/)]));
  const referenced = [...bundle.html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  // The favicon is inline (a data: SVG the page's policy allows): nothing more to fetch.
  expect(referenced.filter((r) => r.startsWith('data:'))).toEqual([expect.stringMatching(/^data:image\/svg\+xml,/)]);
  expect(referenced.filter((r) => !r.startsWith('data:')).sort()).toEqual(names.map((n) => `console/${n}`).sort());
  const script = bundle.assets.get(names.find((n) => n.endsWith('.js'))!)!.body.toString('utf8');
  // Nothing fetched from elsewhere at run time: no import of a URL, no CDN.
  expect(script).not.toMatch(/import\(\s*["']https?:|cdn\.|unpkg|jsdelivr/);
  expect(script).toContain('uplot');
  expect(CONSOLE_SECURITY_HEADERS['content-security-policy']).toContain("default-src 'self'");
});

it('stays under 150 KB gzipped (reported by npm run bench)', async () => {
  const measured = await benchConsoleBundle();
  expect(measured.gzipBytes).toBeLessThan(CONSOLE_BUNDLE_GOAL_GZIP_BYTES);
});
