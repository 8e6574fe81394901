import { buildSync } from 'esbuild';
const [entry, filter] = process.argv.slice(2);
const r = buildSync({ entryPoints: [entry], bundle: true, platform: 'node', target: 'node24', minify: true, write: false, metafile: true, format: 'cjs',
  mainFields: ['module', 'main'], legalComments: 'none', logLevel: 'error', outfile: '/tmp/x.js',
  alias: { '@aws-sdk/credential-provider-node': './functions/composition/lambda-credentials.ts', 'mnemonist/lru-cache': './functions/composition/endpoint-cache-map.ts', '@smithy/core/event-streams': './functions/composition/no-event-streams.ts' } });
const o = Object.values(r.metafile!.outputs)[0];
for (const [k, v] of Object.entries(o.inputs).filter(([k]) => k.includes(filter)).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput).slice(0, 30)) console.log(v.bytesInOutput, k.replace(/.*node_modules\//, ''));
