/** The functions' bundles as `cdk deploy` ships them: the CDK app synthesized with bundling on, each function's asset found. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { App } from 'aws-cdk-lib';
import { buildSync } from 'esbuild';
import { HoldbackStack, FUNCTION_ROLES, type FunctionRole } from '../lib/holdback-stack';
import { BUNDLE_METAFILE_CONTEXT } from '../lib/holdback-function';
import { holdbackPropsFromContext } from '../lib/holdback-context';
import cdkJson from '../cdk.json';

export interface FunctionBundle {
  role: FunctionRole;
  /** The asset directory CDK zips and uploads (index.js and its source map). */
  directory: string;
  /** The entry Lambda loads: `index.js`, exporting `handler`. */
  file: string;
  /** The function's environment as the template sets it, references to other resources as placeholders of their shape. */
  environment?: Record<string, string>;
}

/**
 * A placeholder for a variable the template sets from another resource (a queue URL, an ARN, a name): of the shape the
 * runtime's configuration checks, so that a cold start gets as far as on AWS.
 */
function placeholder(name: string): string {
  if (name.endsWith('_URL')) return `https://sqs.ap-south-1.amazonaws.com/123456789012/${name.toLowerCase()}`;
  if (name.includes('ROLE_ARN')) return `arn:aws:iam::123456789012:role/${name.toLowerCase()}`;
  if (name.includes('SECRET')) return `arn:aws:secretsmanager:ap-south-1:123456789012:secret:${name.toLowerCase()}`;
  if (name.includes('KMS')) return 'arn:aws:kms:ap-south-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  if (name.endsWith('_ARN')) return `arn:aws:sqs:ap-south-1:123456789012:${name.toLowerCase()}`;
  return name.toLowerCase().replace(/_/g, '-');
}

/**
 * Synthesizes bin/app.ts's stack (`new App()` with cdk.json's context, so bundling runs as in `cdk synth`) into
 * `outdir`, and finds each function's asset directory through its `Code.S3Key` (`<asset hash>.zip`).
 */
export function synthesizeBundles(outdir: string, options: { metafile?: boolean } = {}): Record<FunctionRole, FunctionBundle> {
  const app = new App({ outdir, context: { ...cdkJson.context, ...(options.metafile ? { [BUNDLE_METAFILE_CONTEXT]: true } : {}) } });
  const { stackName, region, ...props } = holdbackPropsFromContext(app.node);
  const stack = new HoldbackStack(app, stackName, { env: { region }, ...props });
  const assembly = app.synth();
  const template = assembly.getStackArtifact(stack.artifactId).template as {
    Resources: Record<string, { Properties: { Code?: { S3Key?: unknown }; Environment?: { Variables?: Record<string, unknown> } } }>;
  };
  const bundles = {} as Record<FunctionRole, FunctionBundle>;
  for (const role of FUNCTION_ROLES) {
    const logicalId = stack.getLogicalId(stack.functions[role].function.node.defaultChild as never);
    const key = template.Resources[logicalId]?.Properties.Code?.S3Key;
    const hash = typeof key === 'string' ? /^([0-9a-f]{64})\.zip$/.exec(key)?.[1] : undefined;
    if (!hash) throw new Error(`the ${role} function's code is not a bundled asset (S3Key ${JSON.stringify(key)})`);
    const directory = join(assembly.directory, `asset.${hash}`);
    const file = join(directory, 'index.js');
    if (!existsSync(file)) throw new Error(`the ${role} function's bundle ${file} is missing: was bundling skipped?`);
    const variables = template.Resources[logicalId].Properties.Environment?.Variables ?? {};
    const environment = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, typeof value === 'string' ? value : placeholder(name)]));
    bundles[role] = { role, directory, file, environment };
  }
  return bundles;
}

export interface BundleFigures {
  role: FunctionRole | 'powertools-reference';
  /** index.js as Lambda loads it. */
  bytes: number;
  /** index.js gzipped (level 9): about what the deflated entry of the deployment zip weighs. */
  gzipBytes: number;
  /** The whole asset directory (index.js and index.js.map, which sourceMap: true ships too), raw and gzipped. */
  assetBytes: number;
  assetGzipBytes: number;
  /** Milliseconds to `require` the bundle in a fresh `node` process (the import part of a cold start), median. */
  coldImportMs: number;
  coldImportRunsMs: number[];
  /**
   * The CPU milliseconds of that require (user and system), median: what the import costs, which a busy machine's
   * waiting for a core does not inflate as it does the wall time.
   */
  coldImportCpuMs: number;
  /**
   * The cold start as Lambda runs it: the import and the first invocation, which builds the handler's dependencies
   * (the composition: configuration, SDK clients, adapters) and sends its first AWS request, refused at once (the
   * endpoint is a closed loopback port, one attempt): wall and CPU milliseconds, medians, and the runs' CPU.
   */
  coldStartMs: number;
  coldStartCpuMs: number;
  coldStartRunsCpuMs: number[];
  /** How each run's first invocation ended (answered, or the error it threw: the refused request). */
  firstInvocation: string;
}

/** The size goal of issue 17.7, per bundle, gzipped (issue 9.8's was 300 KB). */
export const BUNDLE_GOAL_BYTES = 150 * 1024;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** An HTTP API request (payload 2.0) as API Gateway hands it to a route's function. */
function apiEvent(method: string, path: string, body?: string) {
  return {
    version: '2.0', routeKey: `${method} ${path}`, rawPath: path, rawQueryString: '', headers: { host: 'api.example.com', ...(body ? { 'content-type': 'application/json' } : {}) }, isBase64Encoded: false,
    ...(body ? { body } : {}),
    requestContext: { http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.1', userAgent: 'bench' }, requestId: 'cold-start', routeKey: `${method} ${path}`, stage: '$default', timeEpoch: 0 },
  };
}

/**
 * The first event of each function, as its trigger delivers it: enough to build its dependencies and reach its first
 * AWS call. The reference takes `{id}`.
 */
const FIRST_EVENTS: Record<FunctionRole | 'powertools-reference', unknown> = {
  orderEvents: {
    id: 'cold-start-1', 'detail-type': 'order.paid', source: 'marketplace', time: '2026-11-26T10:00:00Z',
    detail: { orderId: 'cold-start-1', transactionTime: '2026-11-26T15:30:00+05:30', vendors: [{ vendorId: 'cold-v1', amount: 100 }] },
  },
  release: { orderId: 'cold-start-1', vendorId: 'cold-v1', releaseKey: 'cold-start-1-cold-v1-1' },
  sweep: { id: 'cold-start-1', 'detail-type': 'Scheduled Event', source: 'aws.events', time: '2026-11-26T10:00:00Z', detail: {} },
  // The API's functions (definitions/api-routing.ts), each with a route of its own that reaches its first AWS call.
  api: apiEvent('POST', '/vendors/cold-v1/hold', '{"actor":"bench@example.com","reason":"cold start"}'),
  apiReads: apiEvent('GET', '/settings'),
  apiJobs: apiEvent('GET', '/jobs'),
  apiAudit: apiEvent('GET', '/audit/checkpoints'),
  apiVendors: apiEvent('GET', '/vendors'),
  // The pages read nothing: the console's clock is its first answer.
  apiPages: apiEvent('GET', '/console/clock'),
  webhooks: {
    version: '2.0', routeKey: '$default', rawPath: '/webhooks/gateway', rawQueryString: '', isBase64Encoded: false,
    headers: { host: 'hooks.example.com', 'content-type': 'application/json', 'x-webhook-timestamp': '0', 'x-webhook-signature': 'x' },
    body: '{"type":"PAYMENT_SUCCESS_WEBHOOK","data":{}}',
    requestContext: { http: { method: 'POST', path: '/webhooks/gateway', protocol: 'HTTP/1.1', sourceIp: '203.0.113.1', userAgent: 'bench' }, requestId: 'cold-start', timeEpoch: 0 },
  },
  // A step as the job engine sends it (its `step` a text: a number is no step, and the handler refused it before any
  // AWS request, so the first request went unmeasured).
  jobs: { Records: [{ messageId: 'cold-start-1', receiptHandle: 'r', body: '{"jobId":"cold-start-1","step":"cold-v1:0","kind":"vendor_hold"}', attributes: {}, messageAttributes: {}, eventSource: 'aws:sqs' }] },
  exportJobs: { Records: [{ messageId: 'cold-start-1', receiptHandle: 'r', body: '{"jobId":"cold-start-1","step":"export:0","kind":"outcomes_export"}', attributes: {}, messageAttributes: {}, eventSource: 'aws:sqs' }] },
  'powertools-reference': { id: 'cold-start-1' },
};

/**
 * One fresh process: requires the bundle (timed: the import), then invokes its handler once with a Lambda context
 * (timed from the start: the whole cold start), writing the figures to `out`. Node's own start is not the bundle's.
 */
const COLD_START_SCRIPT = `
const { writeFileSync } = require('node:fs');
const [file, event, out] = process.argv.slice(1);
const cpu = (from) => { const u = process.cpuUsage(from); return (u.user + u.system) / 1000; };
const c = process.cpuUsage(); const t = performance.now();
const { handler } = require(file);
const importWall = performance.now() - t; const importCpu = cpu(c);
const context = { awsRequestId: 'cold-start', functionName: 'cold-start', functionVersion: '$LATEST', memoryLimitInMB: '512',
  invokedFunctionArn: 'arn:aws:lambda:ap-south-1:123456789012:function:cold-start', logGroupName: '/aws/lambda/cold-start',
  logStreamName: 'cold-start', getRemainingTimeInMillis: () => 29000, callbackWaitsForEmptyEventLoop: true };
Promise.resolve().then(() => handler(JSON.parse(event), context))
  .then((answer) => 'answered ' + JSON.stringify(answer).slice(0, 80), (error) => 'threw ' + String(error && error.message).slice(0, 80))
  .then((outcome) => {
    writeFileSync(out, JSON.stringify({ importWall, importCpu, startWall: performance.now() - t, startCpu: cpu(c), outcome }));
    process.exit(0);
  });
`;

interface ColdRun { importWall: number; importCpu: number; startWall: number; startCpu: number; outcome: string }

/**
 * The process's environment: the function's own as the template sets it (NODE_OPTIONS included, which Lambda applies
 * to the runtime: `--enable-source-maps` alone costs about 10 ms of CPU a cold start), credentials in variables
 * (Lambda's), and every AWS endpoint a closed loopback port with one attempt, so the first request fails at once
 * without leaving the machine.
 */
function coldStartEnvironment(bundle: FunctionBundle): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    ...bundle.environment,
    AWS_REGION: 'ap-south-1', AWS_ACCESS_KEY_ID: 'AKIDCOLDSTART', AWS_SECRET_ACCESS_KEY: 'cold-start', AWS_SESSION_TOKEN: 'cold-start',
    AWS_LAMBDA_FUNCTION_NAME: 'cold-start', AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_MAX_ATTEMPTS: '1', TABLE_NAME: 'reference',
  };
}

function coldStart(bundle: FunctionBundle, scratch: string): ColdRun {
  const out = join(scratch, `cold-${bundle.role}.json`);
  execFileSync(process.execPath, ['-e', COLD_START_SCRIPT, bundle.file, JSON.stringify(FIRST_EVENTS[bundle.role as FunctionRole]), out], {
    env: coldStartEnvironment(bundle), stdio: 'ignore', timeout: 60_000,
  });
  return JSON.parse(readFileSync(out, 'utf8')) as ColdRun;
}

/** Sizes of a bundle and its figures from `runs` cold starts. */
function figuresOf(bundle: FunctionBundle, runs: ColdRun[]): BundleFigures {
  const code = readFileSync(bundle.file);
  const files = readdirSync(bundle.directory).map((name) => join(bundle.directory, name)).filter((path) => statSync(path).isFile() && !path.endsWith('.meta.json'));
  const contents = files.map((path) => readFileSync(path));
  return {
    role: bundle.role,
    bytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    assetBytes: contents.reduce((sum, c) => sum + c.length, 0),
    assetGzipBytes: contents.reduce((sum, c) => sum + gzipSync(c, { level: 9 }).length, 0),
    coldImportMs: median(runs.map((r) => round1(r.importWall))),
    coldImportRunsMs: runs.map((r) => round1(r.importWall)),
    coldImportCpuMs: round1(median(runs.map((r) => r.importCpu))),
    coldStartMs: round1(median(runs.map((r) => r.startWall))),
    coldStartCpuMs: round1(median(runs.map((r) => r.startCpu))),
    coldStartRunsCpuMs: runs.map((r) => round1(r.startCpu)),
    firstInvocation: [...new Set(runs.map((r) => r.outcome))].join(' | '),
  };
}

/**
 * Every bundle and the reference measured interleaved: each round starts each once, in an order that rotates, so a
 * change of the machine's load falls on all of them alike. One round first, not counted, reads the files into the page
 * cache (which Lambda's own disk read is not like).
 */
export function measureInterleaved(bundles: FunctionBundle[], rounds = 7): BundleFigures[] {
  const scratch = mkdtempSync(join(tmpdir(), 'holdback-cold-'));
  try {
    for (const bundle of bundles) coldStart(bundle, scratch);
    const runs = bundles.map(() => [] as ColdRun[]);
    for (let round = 0; round < rounds; round += 1) {
      for (let k = 0; k < bundles.length; k += 1) {
        const i = (k + round) % bundles.length;
        runs[i].push(coldStart(bundles[i], scratch));
      }
    }
    return bundles.map((bundle, i) => figuresOf(bundle, runs[i]));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The Powertools reference (bench/powertools-reference/handler.ts) bundled into `outdir` as NodejsFunction bundles a
 * function (esbuild, minified, source map, ES modules first, Node 24, everything bundled), without Holdback's own
 * credential alias: what a plain Powertools function ships.
 */
export function bundleReference(outdir: string): FunctionBundle {
  const directory = join(outdir, 'powertools-reference');
  const file = join(directory, 'index.js');
  buildSync({
    entryPoints: [join(__dirname, 'powertools-reference', 'handler.ts')], outfile: file, bundle: true, platform: 'node', target: 'node24',
    minify: true, sourcemap: true, sourcesContent: false, mainFields: ['module', 'main'], format: 'cjs', logLevel: 'error',
  });
  return { role: 'reference' as FunctionRole, directory, file };
}

/** Synthesizes into a temporary directory and measures every function's bundle beside the Powertools reference (a few minutes). */
export function benchFunctionBundles() {
  const outdir = mkdtempSync(join(tmpdir(), 'holdback-bundles-'));
  try {
    const synthesized = Object.values(synthesizeBundles(outdir));
    const referenceBundle = { ...bundleReference(outdir), role: 'powertools-reference' as FunctionRole };
    const measured = measureInterleaved([referenceBundle, ...synthesized]);
    const reference = measured[0];
    // Each function judged on its own against both goals (the API's several functions each, definitions/api-routing.ts).
    const bundles = measured.slice(1).map((b) => ({
      ...b,
      gzipMeetsGoal: b.gzipBytes <= BUNDLE_GOAL_BYTES,
      coldStartVsReference: Math.round((b.coldStartCpuMs / reference.coldStartCpuMs) * 100) / 100,
      coldStartMeetsReference: b.coldStartCpuMs <= reference.coldStartCpuMs * 1.1,
    }));
    // Judged on CPU time (a busy machine inflates wall time many times over), with a tenth of slack: two runs of one
    // bundle differ by that much. The cold start (import and first invocation) is the target; the import alone is shown.
    const slowestStart = Math.max(...bundles.map((b) => b.coldStartCpuMs));
    const slowestImport = Math.max(...bundles.map((b) => b.coldImportCpuMs));
    return {
      bundles, goalBytes: BUNDLE_GOAL_BYTES, reference,
      rawMeetsGoal: bundles.every((b) => b.bytes <= BUNDLE_GOAL_BYTES),
      gzipMeetsGoal: bundles.every((b) => b.gzipBytes <= BUNDLE_GOAL_BYTES),
      assetGzipMeetsGoal: bundles.every((b) => b.assetGzipBytes <= BUNDLE_GOAL_BYTES),
      slowestImportMs: slowestImport,
      importVsReference: Math.round((slowestImport / reference.coldImportCpuMs) * 100) / 100,
      importMeetsReference: slowestImport <= reference.coldImportCpuMs * 1.1,
      slowestColdStartMs: slowestStart,
      coldStartVsReference: Math.round((slowestStart / reference.coldStartCpuMs) * 100) / 100,
      coldStartMeetsReference: slowestStart <= reference.coldStartCpuMs * 1.1,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

export function functionBundlesLine(r: ReturnType<typeof benchFunctionBundles>): string {
  const kb = (n: number) => `${Math.round(n / 1024)} KB`;
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  return `function bundles (goal ${kb(r.goalBytes)} gzipped each; cold start, import + first invocation, no slower than the Powertools reference's, CPU medians, a tenth of slack): `
    + `${r.bundles.map((b) => `${b.role} ${kb(b.bytes)} raw / ${kb(b.gzipBytes)} gzipped (${b.gzipMeetsGoal ? 'within' : 'OVER'} the goal; with source map ${kb(b.assetGzipBytes)}), import ${b.coldImportCpuMs} ms CPU (${b.coldImportMs} ms wall), cold start ${b.coldStartCpuMs} ms CPU (${b.coldStartMs} ms wall) = ${b.coldStartVsReference}x the reference's, ${verdict(b.coldStartMeetsReference)}`).join('; ')}`
    + `; Powertools reference ${kb(r.reference.bytes)} raw / ${kb(r.reference.gzipBytes)} gzipped, import ${r.reference.coldImportCpuMs} ms CPU (${r.reference.coldImportMs} ms wall), cold start ${r.reference.coldStartCpuMs} ms CPU (${r.reference.coldStartMs} ms wall)`
    + ` — size: largest ${kb(Math.max(...r.bundles.map((b) => b.gzipBytes)))} gzipped, goal ${verdict(r.gzipMeetsGoal)}${r.gzipMeetsGoal ? '' : ` (over: ${r.bundles.filter((b) => b.gzipBytes > r.goalBytes).map((b) => b.role).join(', ')})`}`
    + `; cold start: slowest ${r.slowestColdStartMs} ms CPU = ${r.coldStartVsReference}x the reference's, ${verdict(r.coldStartMeetsReference)}${r.coldStartMeetsReference ? '' : ` (slower: ${r.bundles.filter((b) => !b.coldStartMeetsReference).map((b) => b.role).join(', ')})`}`
    + ` (import alone: ${r.importVsReference}x, ${verdict(r.importMeetsReference)})`;
}
