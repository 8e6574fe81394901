import { buildSync } from 'esbuild';
import { gzipSync } from 'node:zlib';
const entry = process.argv[2];
const r = buildSync({ entryPoints: [entry], bundle: true, platform: 'node', target: 'node24', minify: true, write: false, metafile: true, format: 'cjs',
  mainFields: ['module', 'main'], legalComments: 'none', logLevel: 'error', outfile: '/tmp/x.js',
  alias: { '@aws-sdk/credential-provider-node': './functions/composition/lambda-credentials.ts', 'mnemonist/lru-cache': './functions/composition/endpoint-cache-map.ts', '@smithy/core/event-streams': './functions/composition/no-event-streams.ts' } });
const out = r.outputFiles!.find((f) => f.path.endsWith('.js'))!;
console.log('raw', out.contents.length, 'gzip', gzipSync(out.contents, { level: 9 }).length);
const o = Object.values(r.metafile!.outputs)[0];
const groups: Record<string, number> = {};
for (const [k, v] of Object.entries(o.inputs)) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(k);
  const key = m ? m[1] : k.split('/').slice(0, 3).join('/');
  groups[key] = (groups[key] ?? 0) + v.bytesInOutput;
}
for (const [k, v] of Object.entries(groups).sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 40))) console.log(v, k);
