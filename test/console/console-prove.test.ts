/**
 * The order page proves the order in the browser: Chromium fetches GET /audit/proof and GET /audit/public-keys and
 * checks the records' chain, the inclusion path and the checkpoint's signature with Web Crypto; a tampered answer
 * names what broke.
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Browser, Page } from 'playwright-core';
import { startHarness, type Harness } from '../e2e/harness';
import { browserIt, consolePage, launchBrowser, screenshotPath } from './browser';

const test = browserIt('console-prove.test.ts');
let h: Harness;
let browser: Browser | null = null;
let consoleUrl: string;
const ORDER = 'cp-order-1';
const VENDOR = 'cp-vendor-1';
type Json = Record<string, any>;

beforeAll(async () => {
  h = await startHarness();
  consoleUrl = `${h.runtime.api.url}/console`;
  browser = await launchBrowser();
  await h.createVendors([{ id: VENDOR, scheduleOption: 1 }]);
  // Three orders, so the checkpoint's tree has several leaves and the order's head an inclusion path.
  for (const orderId of [ORDER, 'cp-order-2', 'cp-order-3']) {
    const transactionTime = await h.createPaidOrder(orderId, [{ vendorId: VENDOR, amount: 1000 }]);
    await h.send('order.paid', { orderId, transactionTime, vendors: [{ vendorId: VENDOR, amount: 1000 }] });
  }
  // GET /audit/verify writes a checkpoint over what moved before it answers (the sweep's own signing step).
  expect((await h.api('GET', '/audit/verify')).body).toMatchObject({ ok: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function proofNow(): Promise<Json> {
  const answer = await h.api('GET', `/audit/proof?stream=${encodeURIComponent(`order#${ORDER}`)}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** Opens the order page (the proof's answer changed by `tamper` on its way to the browser, if given) and proves it. */
async function proveOnPage(tamper?: (proof: Json) => Json, keysTamper?: (keys: Json[]) => Json[]): Promise<{ page: Page; close: () => Promise<void> }> {
  const { context, page } = await consolePage(browser!, consoleUrl);
  if (tamper) {
    await page.route(/\/audit\/proof\?/, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: tamper(await response.json()) });
    });
  }
  if (keysTamper) {
    await page.route(/\/audit\/public-keys$/, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: keysTamper(await response.json()) });
    });
  }
  await page.goto(`${consoleUrl}#/orders/${ORDER}`);
  await page.getByTestId('order-vendors').waitFor();
  await page.getByRole('button', { name: 'Prove this order' }).click();
  await page.locator('[data-testid="proof-result"], [data-testid="proof-problem"]').first().waitFor();
  return { page, close: () => context.close() };
}

async function expectBroken(tamper: (proof: Json) => Json, problem: string, keysTamper?: (keys: Json[]) => Json[]): Promise<void> {
  const { page, close } = await proveOnPage(tamper, keysTamper);
  try {
    const shown = page.getByTestId('proof-problem');
    expect(await shown.textContent()).toBe(`Order ${ORDER} does NOT prove: ${problem}`);
    expect(await shown.getAttribute('class')).toBe('problem');
    expect(await page.getByTestId('proof-result').count()).toBe(0);
  } finally {
    await close();
  }
}

/** The checkpoint re-hashed as the format says and signed by `key` (DER ECDSA, as KMS answers) under `keyId`. */
function resignedEcdsa(checkpoint: Json, privateKey: KeyObject, keyId: string): Json {
  const { hash: _hash, signature: _signature, ...rest } = checkpoint;
  const covered = { ...rest, algorithm: 'ECDSA_SHA_256', keyId };
  const text = Buffer.from(canonicalize(covered) as string, 'utf8');
  return { ...covered, hash: createHash('sha256').update(text).digest('hex'), signature: sign('sha256', text, privateKey).toString('base64') };
}

test('the order page proves the order in the browser: its records, the head\'s leaf in the signed root, the key', async () => {
  const proof = await proofNow();
  const keys = (await h.api('GET', '/audit/public-keys')).body as Json[];
  const head = proof.records[proof.records.length - 1];
  const cp = proof.checkpoint;
  expect(cp).toMatchObject({ version: 2, algorithm: 'Ed25519' });
  expect(proof.records.length).toBeGreaterThan(0);
  const { page, close } = await proveOnPage();
  try {
    const shown = page.getByTestId('proof-result');
    const text = await shown.textContent();
    expect(await page.getByTestId('proof-problem').count()).toBe(0);
    expect(await shown.getAttribute('class')).toBe('ok');
    expect(proof.treeSize).toBeGreaterThanOrEqual(3);
    expect(proof.path.length).toBeGreaterThan(0);
    const n = proof.records.length;
    expect(text).toContain(`${n} record${n === 1 ? '' : 's'} of order ${ORDER} chain to head sequence ${head.sequence} (hash ${head.hash})`);
    expect(text).toContain(`the head is leaf ${proof.leafIndex} (counted from 0) of ${proof.treeSize} in checkpoint #${cp.number} (root ${cp.root})`);
    expect(text).toContain(`signed by key ${cp.keyId} (Ed25519, valid from `);
    expect(keys.map((k) => k.keyId)).toContain(cp.keyId);
    expect(text).toContain(`records after the checkpoint: ${proof.pending.length} pending (chained, not yet signed)`);
    await page.getByTestId('order-proof').screenshot({ path: screenshotPath('order-proof.png') });
  } finally {
    await close();
  }
});

test('a tampered proof names what broke: the edited record, the inclusion path, the signature, an unknown key', async () => {
  await expectBroken((p) => ({ ...p, records: p.records.map((r: Json, i: number) => (i === 0 ? { ...r, actor: 'mallory@test' } : r)) }), 'sequence 1 no longer matches its hash (edited)');
  await expectBroken((p) => ({ ...p, path: ['f'.repeat(64), ...p.path.slice(1)] }), 'the inclusion path does not lead to checkpoint ' + (await proofNow()).checkpoint.number + '\'s root');
  const cp = (await proofNow()).checkpoint;
  const other = generateKeyPairSync('ed25519').privateKey;
  await expectBroken((p) => ({ ...p, checkpoint: { ...p.checkpoint, signature: sign(null, Buffer.from('another text'), other).toString('base64') } }), `checkpoint ${cp.number}'s signature is not by the key ${JSON.stringify(cp.keyId)}`);
  await expectBroken((p) => p, `checkpoint ${cp.number} is signed by ${JSON.stringify(cp.keyId)}, which is not in the list of public keys`, () => []);
});

test('a checkpoint signed with ECDSA P-256 (DER, as KMS signs) verifies in the browser under its listed key, and not under another', async () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyId = 'arn:aws:kms:ap-south-1:111122223333:key/console-test';
  const entry = { keyId, algorithm: 'ECDSA_SHA_256', publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }), from: '2022-01-01T00:00:00.000Z', to: null };
  const resign = (p: Json) => ({ ...p, checkpoint: resignedEcdsa(p.checkpoint, privateKey, keyId) });
  const { page, close } = await proveOnPage(resign, (keys) => [...keys, entry]);
  try {
    expect(await page.getByTestId('proof-result').textContent()).toContain(`signed by key ${keyId} (ECDSA_SHA_256, valid from `);
  } finally {
    await close();
  }
  const wrong = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' });
  const number = (await proofNow()).checkpoint.number;
  await expectBroken(resign, `checkpoint ${number}'s signature is not by the key ${JSON.stringify(keyId)}`, (keys) => [...keys, { ...entry, publicKeyPem: wrong }]);
});
