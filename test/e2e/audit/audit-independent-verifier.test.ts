/**
 * The public audit format (contract 6.2, docs/audit-log.md) checked by an auditor's own verifier
 * (./independent-audit-verifier.ts: node:crypto and `canonicalize`, nothing of Holdback) against a real export of the
 * local stack and against each tampering; Holdback's own verifier (the offline check of `holdback audit verify` and
 * GET /audit/verify) must catch the same set. And one order proved alone (GET /audit/proof, `holdback audit prove`).
 */
import { createHash, generateKeyPairSync, sign, verify as verifySignature, createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
import { DeleteItemCommand, DynamoDBClient, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { DEFAULT_AUDIT_TABLE_NAME } from '../../../functions/definitions/tables';
import { verifyExportFile } from '../../../bin/audit-verify';
import { holdbackCli, startHarness, type Harness } from '../harness';
import { recordHashOf, rootOfPath, verifyExportText, type ListedKey } from './independent-audit-verifier';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let h: Harness;
let db: DynamoDBClient;
let dir: string;
let keys: ListedKey[];
let clean: string;
const TABLE = DEFAULT_AUDIT_TABLE_NAME;
const VENDOR = 'vendor#vendor-ind';

const verifyLog = async () => (await h.api('GET', '/audit/verify')).body;

beforeAll(async () => {
  h = await startHarness();
  db = new DynamoDBClient({ endpoint: h.runtime.edge.url, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  dir = mkdtempSync(join(tmpdir(), 'holdback-audit-ind-'));
  await h.createVendors([{ id: 'vendor-ind', scheduleOption: 1 }]);
  // Several checkpoints: GET /audit/verify signs what moved before it answers.
  for (const release of [{ kind: 'at_max' }, { kind: 'after_payment', delay: 'P3D' }, { kind: 'immediate' }, { kind: 'at_max' }]) {
    await h.setPolicy('vendor-ind', release);
    expect((await verifyLog()).ok).toBe(true);
  }
  expect((await h.api('PUT', '/settings', { releaseLead: 'PT2H', actor: 'finance@test', reason: 'earlier sends' })).status).toBe(200);
  const paidAt = await h.createPaidOrder('order-ind-1', [{ vendorId: 'vendor-ind', amount: 500 }]);
  await h.send('order.paid', { orderId: 'order-ind-1', transactionTime: paidAt, vendors: [{ vendorId: 'vendor-ind', amount: 500 }] });
  expect((await verifyLog()).ok).toBe(true);
  keys = (await h.api('GET', '/audit/public-keys')).body;
  clean = await (await fetch(`${h.runtime.api.url}/audit/export`)).text();
});

afterAll(async () => {
  db?.destroy();
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

const parse = (text: string): Json[] => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
const text = (lines: Json[]): string => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

/** Holdback's offline verifier, as `holdback audit verify --file F --public-keys K` runs it. */
async function holdbackVerify(exported: string, keyList: unknown = keys) {
  const file = join(dir, `export-${Math.random().toString(36).slice(2)}.ndjson`);
  const keyFile = join(dir, `keys-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, exported);
  writeFileSync(keyFile, JSON.stringify(keyList));
  return verifyExportFile({ file, publicKeys: keyFile });
}

/** Re-signs a checkpoint with `privateKey` under `keyId`, its hash recomputed as the format says. */
function resign(cp: Json, privateKey: ReturnType<typeof generateKeyPairSync>['privateKey'], keyId: string): Json {
  const { type: _t, hash: _h, signature: _s, ...body } = cp;
  const covered = { ...body, keyId };
  const bytes = Buffer.from(canonicalize(covered) as string);
  return { type: 'checkpoint', ...covered, hash: createHash('sha256').update(bytes).digest('hex'), signature: sign(null, bytes, privateKey).toString('base64') };
}

test('the public keys list the key that signed, its keyId its fingerprint; a clean export verifies by the format alone and by Holdback', async () => {
  expect(keys).toHaveLength(1);
  expect(keys[0]).toMatchObject({ algorithm: 'Ed25519', keyId: expect.stringMatching(/^ed25519:[0-9a-f]{16}$/), publicKeyPem: expect.stringContaining('BEGIN PUBLIC KEY'), to: null });
  const lines = parse(clean);
  const checkpoints = lines.filter((l) => l.type === 'checkpoint');
  expect(checkpoints.length).toBeGreaterThanOrEqual(4);
  for (const cp of checkpoints) expect(cp).toMatchObject({ version: 2, root: expect.stringMatching(/^[0-9a-f]{64}$/), keyId: keys[0].keyId });
  const independent = verifyExportText(clean, keys);
  expect(independent).toMatchObject({ ok: true, incomplete: null, firstBroken: null, unsigned: 0 });
  expect(independent.records).toBeGreaterThanOrEqual(6);
  expect(await holdbackVerify(clean)).toMatchObject({ ok: true, firstBroken: null });
});

/** Each tampering of an export: the independent verifier and Holdback's both say where, never ok. */
const TAMPERINGS: { name: string; tamper: (lines: Json[]) => string; independent: { stream?: string; sequence?: number; incomplete?: RegExp }; holdback: { stream: string; sequence?: number; reason?: RegExp }; keyList?: () => unknown }[] = [
  {
    name: 'an edited field',
    tamper: (lines) => text(lines.map((l) => (l.type === 'record' && l.stream === VENDOR && l.sequence === 2 ? { ...l, actor: 'mallory' } : l))),
    independent: { stream: VENDOR, sequence: 2 }, holdback: { stream: VENDOR, sequence: 2, reason: /^edited/ },
  },
  {
    name: 'a deleted record',
    tamper: (lines) => text(lines.filter((l) => !(l.type === 'record' && l.stream === VENDOR && l.sequence === 2))),
    independent: { stream: VENDOR, sequence: 2 }, holdback: { stream: VENDOR, sequence: 2, reason: /^missing/ },
  },
  {
    name: 'two records swapped',
    tamper: (lines) => text(lines.map((l) => (l.type === 'record' && l.stream === VENDOR && (l.sequence === 2 || l.sequence === 3) ? { ...l, sequence: 5 - l.sequence } : l))),
    independent: { stream: VENDOR, sequence: 2 }, holdback: { stream: VENDOR, sequence: 2 },
  },
  {
    name: 'records moved between streams (swapped streams)',
    tamper: (lines) => text(lines.map((l) => (l.type === 'record' && l.sequence === 1 && (l.stream === VENDOR || l.stream === 'config') ? { ...l, stream: l.stream === VENDOR ? 'config' : VENDOR } : l))),
    independent: { sequence: 1 }, holdback: { stream: expect.stringMatching(/^(config|vendor#vendor-ind)$/) as unknown as string, sequence: 1 },
  },
  {
    name: 'a replayed checkpoint',
    tamper: (lines) => text(lines.flatMap((l) => (l.type === 'checkpoint' && l.number === 2 ? [l, l] : [l]))),
    independent: { stream: 'checkpoints', sequence: 2 }, holdback: { stream: 'checkpoints', sequence: 2, reason: /a second checkpoint/ },
  },
  {
    name: 'an edited checkpoint',
    tamper: (lines) => text(lines.map((l) => (l.type === 'checkpoint' && l.number === 2 ? { ...l, heads: l.heads.map((x: Json) => ({ ...x, hash: 'f'.repeat(64) })) } : l))),
    independent: { stream: 'checkpoints', sequence: 2 }, holdback: { stream: 'checkpoints', sequence: 2, reason: /^edited/ },
  },
  {
    name: 'a deleted checkpoint',
    tamper: (lines) => text(lines.filter((l) => !(l.type === 'checkpoint' && l.number === 2))),
    independent: { stream: 'checkpoints', sequence: 2 }, holdback: { stream: 'checkpoints', sequence: 2, reason: /^missing/ },
  },
  {
    name: 'a checkpoint signed by an unknown key',
    tamper: (lines) => {
      const other = generateKeyPairSync('ed25519');
      const print = createHash('sha256').update(other.publicKey.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
      const last = Math.max(...lines.filter((l) => l.type === 'checkpoint').map((l) => l.number));
      return text(lines.map((l) => (l.type === 'checkpoint' && l.number === last ? resign(l, other.privateKey, `ed25519:${print}`) : l)));
    },
    independent: { stream: 'checkpoints' }, holdback: { stream: 'checkpoints', reason: /unknown key/ },
  },
  {
    name: 'a forged public-key list (the keyId kept, another key in it, every checkpoint re-signed with that key)',
    tamper: (lines) => {
      const forged = generateKeyPairSync('ed25519');
      forgedList = [{ ...keys[0], publicKeyPem: forged.publicKey.export({ type: 'spki', format: 'pem' }) as string }];
      let previous = '0'.repeat(64);
      return text(lines.map((l) => {
        if (l.type !== 'checkpoint') return l;
        const again = resign({ ...l, previousHash: previous }, forged.privateKey, keys[0].keyId);
        previous = again.hash;
        return again;
      }));
    },
    keyList: () => forgedList,
    independent: { incomplete: /^forged public key list/ }, holdback: { stream: 'checkpoints', sequence: 1, reason: /unknown key/ },
  },
  {
    name: 'an export with a stream missing',
    tamper: (lines) => text(lines.filter((l) => !(l.type === 'record' && l.stream === VENDOR))),
    independent: { stream: VENDOR, sequence: 1 }, holdback: { stream: VENDOR, sequence: 1, reason: /^missing/ },
  },
  {
    name: "the header's complete flag flipped (and a stream's first records removed)",
    tamper: (lines) => text(lines.filter((l) => !(l.type === 'record' && l.stream === VENDOR && l.sequence <= 2)).map((l) => (l.type === 'audit_export' ? { ...l, complete: false } : l))),
    independent: { incomplete: /^the header does not say/ }, holdback: { stream: 'file', sequence: 1, reason: /^incomplete/ },
  },
  {
    name: 'an export cut off mid-line',
    tamper: () => clean.slice(0, clean.length - 40),
    independent: { incomplete: /cut off/ }, holdback: { stream: 'file', reason: /is not JSON/ },
  },
  {
    name: 'an export cut off at a line end (records at the end of the file gone)',
    tamper: (lines) => text(lines.slice(0, lines.length - 2)),
    independent: {}, holdback: { stream: expect.any(String) as unknown as string, reason: /^missing/ },
  },
];
let forgedList: unknown = null;

test.each(TAMPERINGS.map((t) => [t.name, t] as const))('tampered export: %s is reported, never ok', async (_name, t) => {
  const tampered = t.tamper(parse(clean));
  const keyList = t.keyList ? t.keyList() : keys;
  const independent = verifyExportText(tampered, keyList as ListedKey[]);
  expect(independent.ok).toBe(false);
  if (t.independent.incomplete) expect(independent.incomplete).toMatch(t.independent.incomplete);
  else {
    expect(independent.incomplete).toBeNull();
    if (t.independent.stream) expect(independent.breaks).toEqual(expect.arrayContaining([expect.objectContaining({ stream: t.independent.stream, ...(t.independent.sequence ? { sequence: t.independent.sequence } : {}) })]));
    else if (t.independent.sequence) expect(independent.firstBroken?.sequence).toBe(t.independent.sequence);
  }
  const holdback = await holdbackVerify(tampered, keyList);
  expect(holdback.ok).toBe(false);
  expect(holdback.firstBroken).toMatchObject({ stream: t.holdback.stream, ...(t.holdback.sequence ? { sequence: t.holdback.sequence } : {}) });
  if (t.holdback.reason) expect(holdback.firstBroken!.reason).toMatch(t.holdback.reason);
});

/** The stored items of one stream, as records (without the table's own keys). */
async function storedStream(stream: string): Promise<Json[]> {
  const { Items } = await db.send(new ScanCommand({ TableName: TABLE, ConsistentRead: true }));
  return (Items ?? []).map((i) => unmarshall(i)).filter((i) => i.pk === stream).sort((a, b) => a.sequence - b.sequence);
}
const recordOf = (item: Json): Json => {
  const { pk: _pk, sk: _sk, timePk: _tp, timeSk: _ts, ...record } = item;
  return record;
};

test('a record appended, signed and then removed from the table is reported, by Holdback and in the export', async () => {
  await h.setPolicy('vendor-ind', { kind: 'immediate' });
  expect((await verifyLog()).ok).toBe(true);
  const items = await storedStream(VENDOR);
  const last = items[items.length - 1];
  await db.send(new DeleteItemCommand({ TableName: TABLE, Key: marshall({ pk: last.pk, sk: last.sk }) }));
  expect(await verifyLog()).toMatchObject({ ok: false, firstBroken: { stream: VENDOR, sequence: last.sequence, reason: expect.stringMatching(/^missing: checkpoint \d+ signed sequence/) } });
  const exported = await (await fetch(`${h.runtime.api.url}/audit/export`)).text();
  expect(verifyExportText(exported, keys).breaks).toEqual(expect.arrayContaining([expect.objectContaining({ stream: VENDOR, sequence: last.sequence })]));
  await db.send(new PutItemCommand({ TableName: TABLE, Item: marshall(last) }));
  expect((await verifyLog()).ok).toBe(true);
});

test('a checkpointed stream rewritten in the table (edited, re-hashed to its head, one record appended) is not signed and is reported at the first head signed before', async () => {
  const items = await storedStream(VENDOR);
  const signedHead = items[items.length - 1];
  // The attacker edits sequence 2 and re-hashes the chain to the head with the public format, then appends one record.
  let previous = items[0].hash as string;
  const forged = items.map((item) => {
    if (item.sequence < 2) return item;
    const record = recordOf(item);
    const edited = { ...record, prevHash: previous, ...(item.sequence === 2 ? { actor: 'mallory' } : {}) };
    const hash = recordHashOf(edited);
    previous = hash;
    return { ...item, ...edited, hash };
  });
  const appended = { ...recordOf(signedHead), sequence: signedHead.sequence + 1, prevHash: previous, kind: 'policy_changed', recordedAt: new Date(Date.now()).toISOString() };
  const appendedHash = recordHashOf(appended);
  for (const item of forged.filter((i) => i.sequence >= 2)) await db.send(new PutItemCommand({ TableName: TABLE, Item: marshall(item) }));
  const { timePk: _tp, timeSk: _ts, ...headKeys } = signedHead;
  await db.send(new PutItemCommand({ TableName: TABLE, Item: marshall({ ...headKeys, ...appended, pk: VENDOR, sk: String(appended.sequence).padStart(12, '0'), hash: appendedHash }) }));

  // The writer is asked to sign (GET /audit/verify signs first): it refuses this stream, and verification names it at
  // the first head any checkpoint signed from the edit on (every signed head is checked, not only the newest): each
  // policy change of beforeAll was signed by a checkpoint of its own, so sequence 2 itself.
  const firstSigned = 2;
  const answer = await verifyLog();
  expect(answer).toMatchObject({ ok: false, firstBroken: { stream: VENDOR, sequence: firstSigned, reason: expect.stringMatching(/^edited: checkpoint \d+ signed another hash for this record/) } });
  const proof = (await h.api('GET', `/audit/proof?stream=${encodeURIComponent(VENDOR)}`)).body;
  expect(proof.checkpoint.heads.find((x: Json) => x.stream === VENDOR)).toMatchObject({ sequence: signedHead.sequence, hash: signedHead.hash });
  const exported = await (await fetch(`${h.runtime.api.url}/audit/export`)).text();
  expect(parse(exported).filter((l) => l.type === 'checkpoint').flatMap((c) => c.heads).filter((x: Json) => x.stream === VENDOR && x.sequence > signedHead.sequence)).toEqual([]);
  expect(verifyExportText(exported, keys).breaks).toEqual(expect.arrayContaining([expect.objectContaining({ stream: VENDOR, sequence: firstSigned })]));
  expect((await holdbackVerify(exported)).firstBroken).toMatchObject({ stream: VENDOR, sequence: firstSigned });

  // Put back as it was (the appended record removed): verifies again.
  for (const item of items) await db.send(new PutItemCommand({ TableName: TABLE, Item: marshall(item) }));
  await db.send(new DeleteItemCommand({ TableName: TABLE, Key: marshall({ pk: VENDOR, sk: String(appended.sequence).padStart(12, '0') }) }));
  expect((await verifyLog()).ok).toBe(true);
});


test('one order is proved alone: its records, the inclusion path of its head in a signed root, by the format and by holdback audit prove', async () => {
  const answer = await h.api('GET', `/audit/proof?stream=${encodeURIComponent('order#order-ind-1')}`);
  expect(answer.status).toBe(200);
  const proof = answer.body;
  expect(proof).toMatchObject({ stream: 'order#order-ind-1', pending: [], leafIndex: expect.any(Number), treeSize: proof.checkpoint.heads.length });
  // Checked with the format alone: the chain, the path to the root, the signature under the listed key.
  let previous = '0'.repeat(64);
  for (const [i, record] of proof.records.entries()) {
    expect(record).toMatchObject({ sequence: i + 1, prevHash: previous });
    expect(recordHashOf(record)).toBe(record.hash);
    previous = record.hash;
  }
  const head = proof.records[proof.records.length - 1];
  expect(rootOfPath({ stream: proof.stream, sequence: head.sequence, hash: head.hash }, proof.leafIndex, proof.treeSize, proof.path)).toBe(proof.checkpoint.root);
  const { hash: _hash, signature, ...covered } = proof.checkpoint;
  const key = createPublicKey(keys.find((k) => k.keyId === proof.checkpoint.keyId)!.publicKeyPem);
  expect(verifySignature(null, Buffer.from(canonicalize(covered) as string), key, Buffer.from(signature, 'base64'))).toBe(true);

  const cli = await holdbackCli(['audit', 'prove', 'order-ind-1', '--api-url', h.runtime.api.url]);
  expect(cli.stderr).toBe('');
  expect(cli.code).toBe(0);
  expect(cli.stdout).toContain(`order#order-ind-1: proved\n  records 1 to ${head.sequence} chain from sequence 1`);
  expect(cli.stdout).toContain(`is leaf ${proof.leafIndex} of ${proof.treeSize} in checkpoint ${proof.checkpoint.number}'s Merkle root ${proof.checkpoint.root}`);
  expect(cli.stdout).toContain(`is signed Ed25519 by ${keys[0].keyId}`);

  // A key list kept from before that does not hold the signing key: the proof does not hold.
  writeFileSync(join(dir, 'other-keys.json'), JSON.stringify([{ ...keys[0], keyId: 'ed25519:0000000000000000', publicKeyPem: generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) }]));
  const refused = await holdbackCli(['audit', 'prove', 'order-ind-1', '--api-url', h.runtime.api.url, '--public-keys', join(dir, 'other-keys.json')]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('order#order-ind-1 does NOT prove:');

  expect((await h.api('GET', '/audit/proof')).body.error).toMatchObject({ message: expect.stringContaining('stream') });
  expect((await h.api('GET', '/audit/proof')).status).toBe(400);
  expect((await h.api('GET', `/audit/proof?stream=${encodeURIComponent('order#nobody')}`)).status).toBe(404);
});
