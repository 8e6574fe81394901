/** `holdback console` in front of a stub API that checks SigV4 like API Gateway: signed calls pass, a 403 shows as the role's refusal. */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { startConsoleServer, type ConsoleServer } from '../../bin/console-server';
import { regionOfApiUrl, SignedApi } from '../../bin/signed-api';
import { browserIt, consolePage, launchBrowser } from './browser';
import { checkSignature } from '../sigv4-check';

const test = browserIt('console-signed.test.ts');

/** Known test credentials (AWS's documentation example), read by the SDK's default chain from the environment. */
const ACCESS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const SECRET_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const REGION = 'ap-south-1';
const STAGE = '/prod';

/** API Gateway's IAM check of this stub: the one test key, the one region. */
function signatureProblem(req: IncomingMessage, body: Buffer): string | null {
  return checkSignature(req, body, new Map([[ACCESS_KEY, SECRET_KEY]]), REGION).problem;
}

interface Stub {
  url: string;
  server: Server;
  calls: Array<{ method: string; path: string; body: string }>;
  badSignatures: string[];
}

/** What the role allows: reading. A change is refused by "IAM" with API Gateway's 403. */
async function startStubApi(): Promise<Stub> {
  const stub: Stub = { url: '', server: null as unknown as Server, calls: [], badSignatures: [] };
  stub.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const send = (status: number, answer: unknown, type = 'application/json') => {
        res.writeHead(status, { 'content-type': type });
        res.end(typeof answer === 'string' ? answer : JSON.stringify(answer));
      };
      const problem = signatureProblem(req, body);
      if (problem) {
        stub.badSignatures.push(problem);
        send(403, { message: 'The request signature we calculated does not match the signature you provided.' });
        return;
      }
      const url = new URL(req.url ?? '/', 'http://stub');
      if (!url.pathname.startsWith(`${STAGE}/`)) {
        send(404, { message: 'Not Found' });
        return;
      }
      const path = url.pathname.slice(STAGE.length);
      stub.calls.push({ method: req.method ?? '', path: `${path}${url.search}`, body: body.toString('utf8') });
      const route = `${req.method} ${path}`;
      if (route === 'GET /vendors') return send(200, { items: [{ vendorId: 'sv-1', policyVersion: 1, scheduleOption: 2, release: { kind: 'after_delivery', delay: 'P2D' }, held: false, hold: null, open: [{ currency: 'INR', count: 3, amount: '123456.50' }] }], nextCursor: null });
      if (route === 'GET /vendors/sv-1/policy') return send(200, { vendorId: 'sv-1', version: 1, scheduleOption: 2, release: { kind: 'after_delivery', delay: 'P2D' }, actor: 'a', reason: 'r', at: '2022-12-01T10:00:00+05:30' });
      if (route === 'GET /vendors/sv-1/policy/history') return send(200, { vendorId: 'sv-1', versions: [] });
      if (route === 'GET /outcomes') return send(200, { items: [], nextCursor: null });
      if (req.method === 'POST' || req.method === 'PUT') {
        return send(403, { Message: `User: arn:aws:sts::123456789012:assumed-role/holdback-auditor/alice is not authorized to perform: execute-api:Invoke on resource: arn:aws:execute-api:${REGION}:123456789012:abc123${STAGE}/${req.method}${path}` });
      }
      return send(404, { error: { code: 'route_not_found', message: `no route ${route}` } });
    });
  });
  await new Promise<void>((resolve) => stub.server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(stub.server.address() as AddressInfo).port}${STAGE}`;
  return stub;
}

let stub: Stub;
let consoleServer: ConsoleServer;
let browser: Browser | null = null;
const savedEnv = { ...process.env };

beforeAll(async () => {
  process.env.AWS_ACCESS_KEY_ID = ACCESS_KEY;
  process.env.AWS_SECRET_ACCESS_KEY = SECRET_KEY;
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  stub = await startStubApi();
  consoleServer = await startConsoleServer({ apiUrl: stub.url, region: REGION, port: 0 });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await consoleServer?.close();
  await new Promise((resolve) => stub?.server.close(resolve));
  process.env = savedEnv;
});

it('takes the region from an execute-api URL and keeps the stage in front of every path', () => {
  expect(regionOfApiUrl('https://abc123.execute-api.ap-south-1.amazonaws.com/prod')).toBe('ap-south-1');
  expect(regionOfApiUrl('https://api.example.com')).toBeUndefined();
  expect(() => new SignedApi({ apiUrl: 'https://api.example.com' })).toThrow('--region');
  const api = new SignedApi({ apiUrl: 'https://abc123.execute-api.ap-south-1.amazonaws.com/prod/', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
  expect(api.urlOf('/outcomes?state=FAILED&vendorId=v%201').href).toBe('https://abc123.execute-api.ap-south-1.amazonaws.com/prod/outcomes?state=FAILED&vendorId=v%201');
});

it('serves a per-start key: the printed URL sets it as a same-site strict HttpOnly cookie, and every request without it is refused 403 before anything is signed', async () => {
  const { origin, pathname, searchParams } = new URL(consoleServer.url);
  const key = searchParams.get('key')!;
  expect([pathname, key.length >= 32]).toEqual(['/console', true]);
  // Opening the printed URL: the key becomes a cookie and leaves the address.
  const opened = await fetch(consoleServer.url, { redirect: 'manual' });
  expect(opened.status).toBe(302);
  expect(opened.headers.get('location')).toBe('/console');
  const cookie = opened.headers.get('set-cookie')!;
  expect(cookie.split('; ')).toEqual([consoleServer.cookie, 'HttpOnly', 'SameSite=Strict', 'Path=/']);
  expect((await fetch(`${origin}/?key=${key}`, { redirect: 'manual' })).headers.get('location')).toBe('/console');

  const before = stub.calls.length;
  const refusedAs = async (path: string, init: RequestInit = {}) => {
    const answer = await fetch(`${origin}${path}`, { redirect: 'manual', ...init });
    const body = (await answer.json()) as any;
    return [answer.status, body.error.code, body.error.message];
  };
  const open = expect.stringContaining(`Open the address that \`holdback console\` printed when it started (http://127.0.0.1:${new URL(origin).port}/console?key=...)`);
  // A local process with no key: neither the API, nor the page, nor its assets.
  for (const path of ['/vendors', '/console', '/', '/console/clock']) expect(await refusedAs(path)).toEqual([403, 'console_key_required', open]);
  expect(await refusedAs('/vendors/sv-1/hold', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"actor":"a","reason":"r"}' }))
    .toEqual([403, 'console_key_required', expect.stringContaining('carries no console key')]);
  // A guessed key, an old start's cookie, or the key in the query of an API call.
  expect(await refusedAs('/console?key=guess')).toEqual([403, 'console_key_required', expect.stringContaining('not the one of this start')]);
  expect(await refusedAs('/vendors', { headers: { cookie: `${consoleServer.cookie.split('=')[0]}=an-earlier-key` } }))
    .toEqual([403, 'console_key_required', expect.stringContaining('from an earlier start')]);
  expect(await refusedAs(`/vendors/sv-1/hold?key=${key}`, { method: 'POST', body: '{}' })).toEqual([403, 'console_key_required', open]);
  expect(stub.calls.length).toBe(before);
  // With the cookie, the same read goes through, signed.
  expect((await fetch(`${origin}/vendors`, { headers: { cookie: consoleServer.cookie } })).status).toBe(200);
  expect(stub.calls.length).toBe(before + 1);
  expect(stub.badSignatures).toEqual([]);
});

it('signs what it forwards (query and body included) and refuses another site\'s request before signing anything', async () => {
  const origin = new URL(consoleServer.url).origin;
  const fetch = (url: string, init: RequestInit = {}) => globalThis.fetch(url, { ...init, headers: { cookie: consoleServer.cookie, ...(init.headers as Record<string, string>) } });
  const listed = await fetch(`${origin}/vendors`);
  expect(listed.status).toBe(200);
  expect(((await listed.json()) as any).items[0].vendorId).toBe('sv-1');
  const refused = await fetch(`${origin}/vendors/sv-1/hold`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"actor":"a","reason":"r"}' });
  expect(refused.status).toBe(403);
  expect(refused.headers.get('x-holdback-refused-by')).toBe('aws-iam');
  expect(stub.calls.at(-1)).toEqual({ method: 'POST', path: '/vendors/sv-1/hold', body: '{"actor":"a","reason":"r"}' });
  await fetch(`${origin}/outcomes?vendorId=sv-1&state=FAILED&from=2022-12-01T00%3A00%3A00%2B05%3A30`);
  expect(stub.calls.at(-1)!.path).toBe('/outcomes?vendorId=sv-1&state=FAILED&from=2022-12-01T00%3A00%3A00%2B05%3A30');

  const before = stub.calls.length;
  const crossSite = await fetch(`${origin}/vendors/sv-1/hold`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{}' });
  expect(crossSite.status).toBe(403);
  expect(((await crossSite.json()) as any).error.code).toBe('cross_origin_refused');
  // A page of another name resolved to 127.0.0.1 (DNS rebinding) sends its own Host (fetch cannot set Host: node:http).
  const rebound = await new Promise<number>((resolve, reject) => {
    request(`${origin}/vendors`, { headers: { host: 'evil.example', cookie: consoleServer.cookie } }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).on('error', reject).end();
  });
  expect(rebound).toBe(403);
  expect(stub.calls.length).toBe(before);
  expect(stub.badSignatures).toEqual([]);
});

test('in the browser: signed reads show the vendor, and a hold the role may not make shows as refused by the role', async () => {
  const { context, page } = await consolePage(browser!, consoleServer.url, 'alice@example.com');
  try {
    await page.goto(`${consoleServer.url}#/vendors`);
    const row = page.getByTestId('vendor-sv-1');
    await row.waitFor();
    expect(await row.textContent()).toContain('INR 1,23,456.50 in 3 releases');
    await row.getByRole('link', { name: 'sv-1' }).click();
    await page.getByTestId('hold-reason').fill('fraud review');
    await page.getByTestId('hold').click();
    const note = page.getByTestId('hold-problem');
    await note.waitFor();
    expect(await note.textContent()).toContain('Refused by your AWS role.');
    expect(await note.textContent()).toContain('holdback-auditor/alice is not authorized to perform: execute-api:Invoke');
  } finally {
    await context.close();
  }
  expect(stub.calls.filter((c) => c.method === 'POST' && c.path === '/vendors/sv-1/hold').at(-1)?.body).toBe('{"actor":"alice@example.com","reason":"fraud review","source":"finance"}');
  expect(stub.badSignatures).toEqual([]);
});
