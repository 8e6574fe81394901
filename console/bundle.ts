/**
 * The console's browser bundle, built from console/ui by esbuild: at build time into a folder (`npm run build:console`,
 * and the API function's CDK bundling, which puts it next to the function's code), or in memory in a checkout.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_CONSOLE_DIR } from '../functions/definitions/console-build';

export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
}

export interface ConsoleBundle {
  /** The page; its asset addresses are relative, so it works under an API Gateway stage prefix too. */
  html: string;
  /** By file name (content-hashed, so they can be cached for good). */
  assets: Map<string, ConsoleAsset>;
}

const UI_DIR = join(__dirname, 'ui');

/** The tab's icon, inline (the page's policy allows data: images): an "H" on the console's navy, nothing to fetch. */
export const FAVICON = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#12355b"/>'
  + '<path d="M9 7v18M23 7v18M9 16h14" stroke="#f0a500" stroke-width="4" stroke-linecap="round"/></svg>',
)}`;
const BUNDLER = 'esbuild';

/** Nothing is fetched at run time: Preact, uPlot and its stylesheet are bundled from node_modules. */
export async function buildConsoleBundle(): Promise<ConsoleBundle> {
  // esbuild is a build tool: required by a name the Lambda bundler does not follow, so the API's bundle does not carry
  // it. On Lambda this throws and GET /console says to run `holdback console`; locally it builds the page.
  const esbuild = require(BUNDLER) as typeof import('esbuild');
  const result = await esbuild.build({
    entryPoints: { app: join(UI_DIR, 'main.tsx') },
    tsconfig: join(UI_DIR, 'tsconfig.json'),
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    outdir: 'out',
    logLevel: 'silent',
  });
  const assets = new Map<string, ConsoleAsset>();
  const names: Record<string, string> = {};
  for (const file of result.outputFiles) {
    const extension = file.path.endsWith('.css') ? 'css' : 'js';
    const hash = createHash('sha256').update(file.contents).digest('hex').slice(0, 12);
    const name = `app.${hash}.${extension}`;
    names[extension] = name;
    assets.set(name, {
      body: Buffer.from(file.contents),
      contentType: extension === 'css' ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
    });
  }
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Holdback console</title>
<link rel="icon" type="image/svg+xml" href="${FAVICON}">
${names.css ? `<link rel="stylesheet" href="console/${names.css}">` : ''}
</head>
<body>
<div id="app"><p>Loading the Holdback console…</p></div>
<noscript>The Holdback console needs JavaScript.</noscript>
<script src="console/${names.js}"></script>
</body>
</html>
`;
  return { html, assets };
}

/** The name under /console/ that answers Holdback's time instead of a file (`{"now": ISO}`). */
export const CONSOLE_CLOCK = 'clock';

export { BUILT_CONSOLE_DIR };
const MANIFEST = 'manifest.json';

/** Builds the console and writes it to `dir`: the page, its assets and a manifest of their content types. */
export async function writeConsoleBundle(dir: string): Promise<ConsoleBundle> {
  const bundle = await buildConsoleBundle();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'index.html'), bundle.html);
  for (const [name, asset] of bundle.assets) writeFileSync(join(dir, name), asset.body);
  const manifest = { assets: [...bundle.assets].map(([name, asset]) => ({ name, contentType: asset.contentType })) };
  writeFileSync(join(dir, MANIFEST), JSON.stringify(manifest));
  return bundle;
}

/** A console written by writeConsoleBundle, or null when `dir` holds none. */
export function readConsoleBundle(dir: string): ConsoleBundle | null {
  const manifestFile = join(dir, MANIFEST);
  if (!existsSync(manifestFile)) return null;
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { assets: { name: string; contentType: string }[] };
  return {
    html: readFileSync(join(dir, 'index.html'), 'utf8'),
    assets: new Map(manifest.assets.map(({ name, contentType }) => [name, { body: readFileSync(join(dir, name)), contentType }])),
  };
}

/**
 * The console built with the function (on Lambda, next to its bundle: no bundler there); else built here from the
 * current source (a checkout); else the one `npm ci` built into dist/console (installed without esbuild).
 */
async function builtOrBuild(): Promise<ConsoleBundle> {
  const withFunction = readConsoleBundle(join(__dirname, BUILT_CONSOLE_DIR));
  if (withFunction) return withFunction;
  try {
    return await buildConsoleBundle();
  } catch (error) {
    const installed = readConsoleBundle(join(__dirname, '..', 'dist', 'console'));
    if (installed) return installed;
    throw error;
  }
}

let built: Promise<ConsoleBundle> | null = null;

/** Read or built at the first request and kept; a failed build is not kept, so a fixed source builds at the next one. */
export function consoleBundle(): Promise<ConsoleBundle> {
  built ??= builtOrBuild().catch((error: unknown) => {
    built = null;
    throw error;
  });
  return built;
}

/** Headers of every console answer: nothing but this origin's own scripts, styles and images; no framing. */
export const CONSOLE_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
