/** The functions' bundles as `cdk deploy` ships them: the CDK app synthesized with bundling on, each function's asset found. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
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
  const template = assembly.getStackArtifact(stack.artifactId).template as { Resources: Record<string, { Properties: { Code?: { S3Key?: unknown } } }> };
  const bundles = {} as Record<FunctionRole, FunctionBundle>;
  for (const role of FUNCTION_ROLES) {
    const logicalId = stack.getLogicalId(stack.functions[role].function.node.defaultChild as never);
    const key = template.Resources[logicalId]?.Properties.Code?.S3Key;
    const hash = typeof key === 'string' ? /^([0-9a-f]{64})\.zip$/.exec(key)?.[1] : undefined;
    if (!hash) throw new Error(`the ${role} function's code is not a bundled asset (S3Key ${JSON.stringify(key)})`);
    const directory = join(assembly.directory, `asset.${hash}`);
    const file = join(directory, 'index.js');
    if (!existsSync(file)) throw new Error(`the ${role} function's bundle ${file} is missing: was bundling skipped?`);
    bundles[role] = { role, directory, file };
  }
  return bundles;
}

export interface BundleFigures {
  role: FunctionRole;
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
}

/** The size goal of issue 17.7, per bundle, gzipped (issue 9.8's was 300 KB). */
export const BUNDLE_GOAL_BYTES = 150 * 1024;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A fresh process per run, timing only the require (node's own start is not the bundle's): wall and CPU ms. */
function coldImport(file: string): { wall: number; cpu: number } {
  const script = 'const c = process.cpuUsage(); const t = performance.now(); require(process.argv[1]); const u = process.cpuUsage(c);'
    + ' process.stdout.write(JSON.stringify({ wall: performance.now() - t, cpu: (u.user + u.system) / 1000 }));';
  return JSON.parse(execFileSync(process.execPath, ['-e', script, file], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } })) as { wall: number; cpu: number };
}

export function measureBundle(bundle: FunctionBundle, runs = 7): BundleFigures {
  const code = readFileSync(bundle.file);
  const files = readdirSync(bundle.directory).map((name) => join(bundle.directory, name)).filter((path) => statSync(path).isFile());
  const contents = files.map((path) => readFileSync(path));
  // One run first, not counted: it reads the file into the page cache, which Lambda's own disk read is not like.
  coldImport(bundle.file);
  const imports = Array.from({ length: runs }, () => coldImport(bundle.file));
  const coldImportRunsMs = imports.map((i) => Math.round(i.wall * 10) / 10);
  return {
    role: bundle.role,
    bytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    assetBytes: contents.reduce((sum, c) => sum + c.length, 0),
    assetGzipBytes: contents.reduce((sum, c) => sum + gzipSync(c, { level: 9 }).length, 0),
    coldImportMs: median(coldImportRunsMs),
    coldImportRunsMs,
    coldImportCpuMs: Math.round(median(imports.map((i) => i.cpu)) * 10) / 10,
  };
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

/** Synthesizes into a temporary directory and measures every function's bundle beside the Powertools reference (about a minute). */
export function benchFunctionBundles() {
  const outdir = mkdtempSync(join(tmpdir(), 'holdback-bundles-'));
  try {
    const synthesized = Object.values(synthesizeBundles(outdir));
    // The reference is measured before and after the functions, the lower median kept: the machine's load drifts.
    const referenceBundle = bundleReference(outdir);
    const before = measureBundle(referenceBundle);
    const bundles = synthesized.map((bundle) => measureBundle(bundle));
    const after = measureBundle(referenceBundle);
    const reference = { ...(after.coldImportCpuMs < before.coldImportCpuMs ? after : before), role: 'powertools-reference' };
    // Judged on the import's CPU time (a busy machine inflates wall time many times over), with a tenth of slack: two
    // runs of one bundle differ by that much.
    const slowest = Math.max(...bundles.map((b) => b.coldImportCpuMs));
    return {
      bundles, goalBytes: BUNDLE_GOAL_BYTES, reference,
      rawMeetsGoal: bundles.every((b) => b.bytes <= BUNDLE_GOAL_BYTES),
      gzipMeetsGoal: bundles.every((b) => b.gzipBytes <= BUNDLE_GOAL_BYTES),
      assetGzipMeetsGoal: bundles.every((b) => b.assetGzipBytes <= BUNDLE_GOAL_BYTES),
      slowestImportMs: slowest,
      importVsReference: Math.round((slowest / reference.coldImportCpuMs) * 100) / 100,
      importMeetsReference: slowest <= reference.coldImportCpuMs * 1.1,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

export function functionBundlesLine(r: ReturnType<typeof benchFunctionBundles>): string {
  const kb = (n: number) => `${Math.round(n / 1024)} KB`;
  return `function bundles (goal ${kb(r.goalBytes)} gzipped each, import no slower than the Powertools reference): ${r.bundles.map((b) => `${b.role} ${kb(b.bytes)} raw / ${kb(b.gzipBytes)} gzipped (with source map ${kb(b.assetGzipBytes)}), import ${b.coldImportMs} ms (${b.coldImportCpuMs} ms CPU)`).join('; ')}`
    + `; Powertools reference ${kb(r.reference.bytes)} raw / ${kb(r.reference.gzipBytes)} gzipped, import ${r.reference.coldImportMs} ms (${r.reference.coldImportCpuMs} ms CPU)`
    + ` — gzipped ${r.gzipMeetsGoal ? 'meets' : 'misses'} the goal, raw ${r.rawMeetsGoal ? 'meets' : 'misses'} it; slowest import ${r.slowestImportMs} ms CPU = ${r.importVsReference}x the reference's (${r.importMeetsReference ? 'meets' : 'misses'})`;
}
