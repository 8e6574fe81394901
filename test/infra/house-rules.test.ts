/**
 * The rooms' import rules (README "Layout"), read from the sources: the gateway sandbox imports only kit/ (it stands
 * for a system Holdback does not own), kit/ imports nothing of Holdback's, the CDK stack reads definitions and never
 * an adapter, the domain imports nothing outside itself but kit/, production code never imports the bench, no use case
 * imports another area's file, and no file of functions/ is over 500 lines nor any folder over 20 files.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function sourcesUnder(folder: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, folder))) {
    const path = join(folder, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sourcesUnder(path));
    else if (/\.(ts|tsx|js)$/.test(name)) out.push(path);
  }
  return out;
}

/** Every relative import of a file, as a path from the repository root ("kit/wire", "functions/domain/dates"). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*)['"](\.\.?\/[^'"]+)['"]/g)].map((m) => m[1]);
  return found.map((spec) => relative(ROOT, resolve(ROOT, dirname(file), spec)));
}

/** `file imports target` for each import of the files under `folder` that is outside every allowed room. */
function importsOutside(folder: string, allowed: string[]): string[] {
  return sourcesUnder(folder).flatMap((file) => importsOf(file)
    .filter((target) => !allowed.some((room) => target === room || target.startsWith(`${room}/`)))
    .map((target) => `${file} imports ${target}`));
}

test('sandbox/ imports only sandbox/ and kit/', () => {
  expect(importsOutside('sandbox', ['sandbox', 'kit'])).toEqual([]);
});

test('kit/ imports only kit/ (no Holdback rule in it)', () => {
  expect(importsOutside('kit', ['kit'])).toEqual([]);
});

test('lib/ (the CDK stack) never imports functions/adapters/', () => {
  expect(importsOutside('lib', ['lib', 'functions/definitions', 'functions/composition-root', 'functions/handlers'])).toEqual([]);
});

test('functions/domain imports nothing outside itself but kit/', () => {
  expect(importsOutside('functions/domain', ['functions/domain', 'kit'])).toEqual([]);
});

test('production code never imports the bench (the call meter plugs in through the composition root\'s client hook)', () => {
  const production = ['functions', 'lib', 'local', 'kit', 'sandbox', 'console'].flatMap(sourcesUnder);
  expect(production.flatMap((file) => importsOf(file).filter((t) => t.startsWith('bench/')).map((t) => `${file} imports ${t}`))).toEqual([]);
});

/** The use-case areas of functions/application: one folder each (ports/ is the ports' room, not an area). */
const APPLICATION = 'functions/application';
const AREAS = readdirSync(join(ROOT, APPLICATION)).filter((name) => name !== 'ports' && statSync(join(ROOT, APPLICATION, name)).isDirectory());

test('no use case imports another area\'s file: what areas share lives in the application root or behind a port', () => {
  expect(AREAS).toEqual(expect.arrayContaining(['releases', 'config', 'reads', 'audit', 'jobs', 'approvals']));
  const crossing = AREAS.flatMap((area) => sourcesUnder(`${APPLICATION}/${area}`).flatMap((file) => importsOf(file)
    .filter((target) => AREAS.some((other) => other !== area && target.startsWith(`${APPLICATION}/${other}/`)))
    .map((target) => `${file} imports ${target}`)));
  expect(crossing).toEqual([]);
  // The root's shared pieces import no area either (else an area would reach another one through them).
  const root = readdirSync(join(ROOT, APPLICATION)).filter((name) => name.endsWith('.ts')).map((name) => `${APPLICATION}/${name}`);
  expect(root.flatMap((file) => importsOf(file).filter((t) => AREAS.some((area) => t.startsWith(`${APPLICATION}/${area}/`))).map((t) => `${file} imports ${t}`))).toEqual([]);
});

test('no file of functions/ is over 500 lines, and no folder of it holds more than 20 files', () => {
  const files = sourcesUnder('functions');
  expect(files.length).toBeGreaterThan(100);
  const long = files.filter((file) => readFileSync(join(ROOT, file), 'utf8').split('\n').length > 500);
  expect(long).toEqual([]);
  const perFolder = new Map<string, number>();
  for (const file of files) perFolder.set(dirname(file), (perFolder.get(dirname(file)) ?? 0) + 1);
  expect([...perFolder].filter(([, count]) => count > 20).map(([folder, count]) => `${folder}: ${count} files`)).toEqual([]);
});

test('the rules read real imports (the scan is not empty)', () => {
  expect(importsOf('sandbox/http.ts')).toContain('kit/loopback-guard');
  expect(importsOf('functions/application/releases/handle-order-event.ts')).toContain('functions/application/release-store');
  expect(importsOf('lib/holdback-table.ts').some((t) => t.startsWith('functions/definitions/'))).toBe(true);
});
