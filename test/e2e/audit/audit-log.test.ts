/**
 * The audit log through HTTP against the local stack (contract 6.2): records deleted and edited directly in DynamoDB
 * (through the edge) are the first broken link, so is a checkpoint with a wrong signature; an export verifies offline
 * with the CLI, and no longer after an edit. And an order's timeline.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteItemCommand, DynamoDBClient, PutItemCommand, ScanCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { checkpointText } from '../../../functions/domain/audit/audit-checkpoints';
import { DEFAULT_AUDIT_TABLE_NAME } from '../../../functions/definitions/tables';
import { holdbackCli, startHarness, type Harness } from '../harness';

let h: Harness;
let db: DynamoDBClient;
let dir: string;
const TABLE = DEFAULT_AUDIT_TABLE_NAME;

beforeAll(async () => {
  h = await startHarness();
  db = new DynamoDBClient({ endpoint: h.runtime.edge.url, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  dir = mkdtempSync(join(tmpdir(), 'holdback-audit-test-'));
  await h.createVendors([{ id: 'vendor-audit', scheduleOption: 1 }]);
  // Three versions of one vendor's policy: the vendor's stream has three records.
  for (const release of [{ kind: 'at_max' }, { kind: 'after_payment', delay: 'P3D' }, { kind: 'immediate' }]) await h.setPolicy('vendor-audit', release);
  const settings = await h.api('PUT', '/settings', { releaseLead: 'PT2H', actor: 'finance@test', reason: 'earlier sends' });
  expect(settings.status).toBe(200);
  const paidAt = await h.createPaidOrder('order-audit-1', [{ vendorId: 'vendor-audit', amount: 500 }]);
  await h.send('order.paid', { orderId: 'order-audit-1', transactionTime: paidAt, vendors: [{ vendorId: 'vendor-audit', amount: 500 }] });
});

afterAll(async () => {
  db?.destroy();
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function item(pk: string, sequence: number): Promise<Record<string, AttributeValue>> {
  const { Items } = await db.send(new ScanCommand({ TableName: TABLE }));
  const found = (Items ?? []).find((i) => i.pk.S === pk && Number(i.sk.S) === sequence);
  if (!found) throw new Error(`no audit item ${pk} ${sequence}`);
  return found;
}

const verify = async () => (await h.api('GET', '/audit/verify')).body;

test('a log nobody touched verifies, and the settings and policy changes are in it', async () => {
  const answer = await h.api('GET', '/audit/verify');
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ ok: true, firstBroken: null });
  expect(answer.body.records).toBeGreaterThanOrEqual(4);
  expect(answer.body.checkpoints).toBeGreaterThanOrEqual(1);
  const vendor = await item('vendor#vendor-audit', 3);
  expect(vendor.kind.S).toBe('policy_changed');
  expect(vendor.actor.S).toBe('finance@test');
  const config = await item('config', 1);
  expect(config.kind.S).toBe('settings_changed');
  expect(config.detail.M?.changes.M?.releaseLead.M?.to.S).toBe('PT2H');
});

test('a record deleted in DynamoDB is the first broken link; put back, the log verifies again', async () => {
  const deleted = await item('vendor#vendor-audit', 2);
  await db.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: deleted.pk, sk: deleted.sk } }));
  expect(await verify()).toMatchObject({
    ok: false, firstBroken: { stream: 'vendor#vendor-audit', sequence: 2, reason: 'missing: the stream goes from sequence 1 to 3 (a record was deleted)' },
  });
  await db.send(new PutItemCommand({ TableName: TABLE, Item: deleted }));
  expect(await verify()).toMatchObject({ ok: true, firstBroken: null });
});

test('a record edited in DynamoDB is the first broken link', async () => {
  const original = await item('config', 1);
  await db.send(new UpdateItemCommand({
    TableName: TABLE, Key: { pk: original.pk, sk: original.sk },
    UpdateExpression: 'SET actor = :a', ExpressionAttributeValues: { ':a': { S: 'someone-else' } },
  }));
  expect(await verify()).toMatchObject({ ok: false, firstBroken: { stream: 'config', sequence: 1, reason: 'edited: the record no longer matches its hash' } });
  await db.send(new PutItemCommand({ TableName: TABLE, Item: original }));
  expect((await verify()).ok).toBe(true);
});

test('a checkpoint whose signature is not the audit key\'s is reported', async () => {
  const original = await item('checkpoints', 1);
  const other = generateKeyPairSync('ed25519').privateKey;
  const { Items } = await db.send(new ScanCommand({ TableName: TABLE }));
  const stored = JSON.parse(JSON.stringify((Items ?? []).find((i) => i.pk.S === 'checkpoints' && Number(i.sk.S) === 1)));
  const plain = {
    number: 1, at: stored.at.S, coveredUntil: stored.coveredUntil.S, previousHash: stored.previousHash.S, algorithm: stored.algorithm.S, keyId: stored.keyId.S,
    heads: stored.heads.L.map((h: { M: { stream: { S: string }; sequence: { N: string }; hash: { S: string } } }) => ({ stream: h.M.stream.S, sequence: Number(h.M.sequence.N), hash: h.M.hash.S })),
  };
  const forged = sign(null, Buffer.from(checkpointText(plain as never)), other).toString('base64');
  await db.send(new UpdateItemCommand({
    TableName: TABLE, Key: { pk: original.pk, sk: original.sk },
    UpdateExpression: 'SET signature = :s', ExpressionAttributeValues: { ':s': { S: forged } },
  }));
  expect(await verify()).toMatchObject({ ok: false, firstBroken: { stream: 'checkpoints', sequence: 1, reason: 'wrong signature: not signed by the audit key' } });
  await db.send(new PutItemCommand({ TableName: TABLE, Item: original }));
  expect((await verify()).ok).toBe(true);
});


test('an export verifies offline with the public key and no AWS credentials; after an edit it fails with the first broken link', async () => {
  const exported = await fetch(`${h.runtime.api.url}/audit/export`);
  expect(exported.status).toBe(200);
  expect(exported.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  const text = await exported.text();
  const lines = text.trim().split('\n').map((l) => JSON.parse(l));
  expect(lines[0]).toMatchObject({ type: 'audit_export', complete: true, algorithm: 'Ed25519' });
  expect(lines.some((l) => l.type === 'checkpoint' && typeof l.signature === 'string')).toBe(true);
  expect(lines.some((l) => l.type === 'record' && l.stream === 'vendor#vendor-audit')).toBe(true);
  const key = await fetch(`${h.runtime.api.url}/audit/public-key`);
  const pem = await key.text();
  expect(pem).toContain('-----BEGIN PUBLIC KEY-----');
  writeFileSync(join(dir, 'audit.ndjson'), text);
  writeFileSync(join(dir, 'key.pem'), pem);

  const passed = await holdbackCli(['audit', 'verify', '--file', join(dir, 'audit.ndjson'), '--public-key', join(dir, 'key.pem')]);
  expect(passed.stderr).toBe('');
  expect(passed.code).toBe(0);
  expect(passed.stdout).toMatch(/^audit export verifies: \d+ records in \d+ streams, \d+ signed checkpoints/);

  const edited = readFileSync(join(dir, 'audit.ndjson'), 'utf8').split('\n').map((line) => {
    if (!line) return line;
    const parsed = JSON.parse(line);
    return parsed.type === 'record' && parsed.stream === 'vendor#vendor-audit' && parsed.sequence === 2 ? JSON.stringify({ ...parsed, actor: 'mallory' }) : line;
  }).join('\n');
  writeFileSync(join(dir, 'edited.ndjson'), edited);
  // The --name=value form of the options is the offline check too.
  const failed = await holdbackCli(['audit', 'verify', `--file=${join(dir, 'edited.ndjson')}`, `--public-key=${join(dir, 'key.pem')}`]);
  expect(failed.code).toBe(1);
  expect(failed.stderr).toContain('first broken link at vendor#vendor-audit sequence 2: edited: the record no longer matches its hash');
});

test('an export range is checked: from after to is a 400 naming the field', async () => {
  const answer = await h.api('GET', '/audit/export?from=2022-12-03T00:00:00%2B05:30&to=2022-12-02T00:00:00%2B05:30');
  expect(answer.status).toBe(400);
  expect(answer.body.error.issues[0]).toMatchObject({ field: 'to' });
});

test('an export range takes India-time days as GET /outcomes does: from the start of the first to the end of the last', async () => {
  const answer = await fetch(`${h.runtime.api.url}/audit/export?from=2022-12-01&to=2022-12-31`);
  expect(answer.status).toBe(200);
  const header = JSON.parse((await answer.text()).split('\n')[0]);
  expect(header).toMatchObject({ type: 'audit_export', from: '2022-11-30T18:30:00.000Z', to: '2022-12-31T18:29:59.999Z', complete: false });
});

test('the timeline tells the order\'s story in time order: the event received, the planning decision, the gateway attempt', async () => {
  const answer = await h.api('GET', '/orders/order-audit-1/timeline');
  expect(answer.status).toBe(200);
  const kinds = answer.body.items.map((i: { kind: string }) => i.kind);
  expect(kinds[0]).toBe('event_received');
  expect(answer.body.items[0].detail).toMatchObject({ type: 'order.paid', vendors: [{ vendorId: 'vendor-audit', amount: '500.00' }] });
  expect(kinds).toEqual(expect.arrayContaining(['planned', 'gateway_attempt']));
  const attempt = answer.body.items.find((i: { kind: string }) => i.kind === 'gateway_attempt');
  expect(attempt).toMatchObject({ vendorId: 'vendor-audit' });
  const times = answer.body.items.map((i: { at: string }) => Date.parse(i.at));
  expect([...times].sort((a, b) => a - b)).toEqual(times);
  expect(answer.body.items[0].at).toMatch(/\+05:30$/);

  // The gateway settles (sandbox, schedule option 1) and posts its webhook: received, audited, on the timeline; the
  // sweeps that ran in the Lambda containers meanwhile signed checkpoints with the same key the API verifies with.
  const checkpointsBefore = (await verify()).checkpoints;
  await h.advance('P2D');
  const settled = await h.api('GET', '/orders/order-audit-1/timeline');
  const webhook = settled.body.items.find((i: { kind: string }) => i.kind === 'webhook_received');
  expect(webhook).toMatchObject({ vendorId: 'vendor-audit', actor: 'gateway', detail: { type: 'VENDOR_SETTLEMENT_SUCCESS', bodySha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });
  const { Items } = await db.send(new ScanCommand({ TableName: TABLE }));
  expect((Items ?? []).filter((i) => i.pk.S === 'checkpoints').length).toBeGreaterThan(checkpointsBefore);
  expect(await verify()).toMatchObject({ ok: true, firstBroken: null });

  expect((await h.api('GET', '/orders/order-nobody-sent/timeline')).status).toBe(404);
  expect((await h.api('GET', '/orders/no%20such/timeline')).status).toBe(400);
});
