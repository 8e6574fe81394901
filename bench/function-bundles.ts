/** The functions' bundles as `cdk deploy` ships them: the CDK app synthesized with bundling on, each function's asset found. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { App } from 'aws-cdk-lib';
import { HoldbackStack, FUNCTION_ROLES, type FunctionRole } from '../lib/holdback-stack';
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
export function synthesizeBundles(outdir: string): Record<FunctionRole, FunctionBundle> {
  const app = new App({ outdir, context: cdkJson.context });
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
}

/** The size goal of issue 9.8, per bundle. */
export const BUNDLE_GOAL_BYTES = 300 * 1024;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A fresh process per run, timing only the require (node's own start is not the bundle's). */
function coldImport(file: string): number {
  const script = 'const t = performance.now(); require(process.argv[1]); process.stdout.write(String(performance.now() - t));';
  return Number(execFileSync(process.execPath, ['-e', script, file], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } }));
}

export function measureBundle(bundle: FunctionBundle, runs = 7): BundleFigures {
  const code = readFileSync(bundle.file);
  const files = readdirSync(bundle.directory).map((name) => join(bundle.directory, name)).filter((path) => statSync(path).isFile());
  const contents = files.map((path) => readFileSync(path));
  // One run first, not counted: it reads the file into the page cache, which Lambda's own disk read is not like.
  coldImport(bundle.file);
  const coldImportRunsMs = Array.from({ length: runs }, () => Math.round(coldImport(bundle.file) * 10) / 10);
  return {
    role: bundle.role,
    bytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    assetBytes: contents.reduce((sum, c) => sum + c.length, 0),
    assetGzipBytes: contents.reduce((sum, c) => sum + gzipSync(c, { level: 9 }).length, 0),
    coldImportMs: median(coldImportRunsMs),
    coldImportRunsMs,
  };
}

/** Synthesizes into a temporary directory and measures every function's bundle (about a minute). */
export function benchFunctionBundles(): { bundles: BundleFigures[]; goalBytes: number; gzipMeetsGoal: boolean; rawMeetsGoal: boolean; assetGzipMeetsGoal: boolean } {
  const outdir = mkdtempSync(join(tmpdir(), 'holdback-bundles-'));
  try {
    const bundles = Object.values(synthesizeBundles(outdir)).map((bundle) => measureBundle(bundle));
    return {
      bundles, goalBytes: BUNDLE_GOAL_BYTES,
      rawMeetsGoal: bundles.every((b) => b.bytes <= BUNDLE_GOAL_BYTES),
      gzipMeetsGoal: bundles.every((b) => b.gzipBytes <= BUNDLE_GOAL_BYTES),
      assetGzipMeetsGoal: bundles.every((b) => b.assetGzipBytes <= BUNDLE_GOAL_BYTES),
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

export function functionBundlesLine(r: ReturnType<typeof benchFunctionBundles>): string {
  const kb = (n: number) => `${Math.round(n / 1024)} KB`;
  return `function bundles (goal ${kb(r.goalBytes)} each): ${r.bundles.map((b) => `${b.role} ${kb(b.bytes)} raw / ${kb(b.gzipBytes)} gzipped (with source map ${kb(b.assetGzipBytes)}), import ${b.coldImportMs} ms`).join('; ')}`
    + ` — gzipped ${r.gzipMeetsGoal ? 'meets' : 'misses'} the goal, raw ${r.rawMeetsGoal ? 'meets' : 'misses'} it`;
}
