/**
 * The audit table's stream to the write-once archive (lib/audit-archive.ts): the copier handler through the real S3
 * SDK against a scripted S3 endpoint writes one export line per inserted record and checkpoint, so the archive read
 * back is an export the public format verifies; a record changed or removed in the table is kept as evidence.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { sequenceKey } from '../../functions/adapters/dynamodb/audit-store';
import { checkpointText, sealCheckpoint } from '../../functions/domain/audit/audit-checkpoints';
import { sealRecords } from '../../functions/domain/audit/audit-records';
import { keyFingerprint } from '../../functions/domain/audit/audit-proof';
import { makeAuditArchiveHandler } from '../../functions/handlers/audit-archive';
import { RecordingLogger } from '../fakes/outside-world';
import { verifyExportText } from '../e2e/independent-audit-verifier';
import { answer, startScriptedServer, type ScriptedServer } from './scripted-http-server';

let s3: ScriptedServer;
let client: S3Client;
const objects = new Map<string, string>();

beforeAll(async () => {
  s3 = await startScriptedServer((request) => {
    if (request.method !== 'PUT') return answer(400, 'unexpected');
    objects.set(decodeURIComponent(request.path.split('?')[0]), request.body);
    return answer(200, '', { etag: '"x"' });
  });
  client = new S3Client({ endpoint: s3.url, region: 'ap-south-1', forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 });
});

afterAll(async () => {
  client.destroy();
  await s3.close();
});

const item = (pk: string, sk: string, member: object, extra: object = {}) => marshall({ pk, sk, ...member, ...extra }, { removeUndefinedValues: true }) as never;

test('a stream batch\'s inserted records and checkpoints become one object of one export line each; read back, the archive verifies by the public format', async () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keyId = `ed25519:${keyFingerprint(publicKey)}`;
  const records = sealRecords('order#o1', null, [1, 2].map((n) => ({ kind: 'gateway_attempt', at: '2022-12-02T16:00:00+05:30', orderId: 'o1', detail: { n } })), '2022-12-02T10:30:00.000Z');
  const sealed = sealCheckpoint(null, { at: '2022-12-02T10:31:00.000Z', coveredUntil: '2022-12-02T10:31:00.000Z', heads: [records[1]], algorithm: 'Ed25519', keyId });
  const checkpoint = { ...sealed, signature: sign(null, Buffer.from(checkpointText(sealed)), privateKey).toString('base64') };
  const event = { Records: [
    ...records.map((r, i) => ({ eventID: `e${i}`, eventName: 'INSERT', dynamodb: { NewImage: item(r.stream, sequenceKey(r.sequence), r, i === 1 ? { timePk: '2022-12-02#3', timeSk: 'x' } : {}) } })),
    { eventID: 'e9', eventName: 'INSERT', dynamodb: { NewImage: item('checkpoints', sequenceKey(1), checkpoint) } },
    // The writer's pointer and a pending entry are not the log.
    { eventID: 'e10', eventName: 'INSERT', dynamodb: { NewImage: item('signed', 'order#o1', { sequence: 2 }) } },
    { eventID: 'e11', eventName: 'INSERT', dynamodb: { NewImage: item('pending', 'x', { entries: [] }) } },
  ] } as unknown as DynamoDBStreamEvent;
  const logger = new RecordingLogger();
  // One PUT for the batch (a PUT costs as much as 7 DynamoDB writes): keyed by its day and first and last event ids.
  expect(await makeAuditArchiveHandler(client, 'audit-archive', logger)(event)).toEqual({ written: 1 });
  expect([...objects.keys()]).toEqual(['/audit-archive/log/undated/e0-e9.ndjson']);
  expect([...objects.values()][0].trim().split('\n').map((l) => JSON.parse(l).type)).toEqual(['record', 'record', 'checkpoint']);
  const keys = [{ keyId, algorithm: 'Ed25519' as const, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) as string }];
  // Read back as `aws s3 sync` gives them: a header line, then every object's lines without repeats, makes a whole export.
  const exportOf = () => `${JSON.stringify({ type: 'audit_export', complete: true })}\n${[...new Set([...objects.values()].join('').split('\n').filter((l) => l !== ''))].sort().join('\n')}\n`;
  expect(verifyExportText(exportOf(), keys)).toMatchObject({ ok: true, records: 2, checkpoints: 1 });
  // Lambda split the batch after a failure and delivered its halves again: lines repeat across objects, and the
  // export made without repeats (sort -u) still verifies; the repeats are never a second copy of a record.
  const halves = [event.Records.slice(0, 1), event.Records.slice(1)];
  for (const records of halves) await makeAuditArchiveHandler(client, 'audit-archive', logger)({ Records: records } as DynamoDBStreamEvent);
  expect([...objects.keys()].sort()).toEqual(['/audit-archive/log/undated/e0-e0.ndjson', '/audit-archive/log/undated/e0-e9.ndjson', '/audit-archive/log/undated/e1-e9.ndjson']);
  expect(verifyExportText(exportOf(), keys)).toMatchObject({ ok: true, records: 2, checkpoints: 1 });
  expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
});

test('a record changed or removed in the table is kept under tampering/ with both images, and logged as an error', async () => {
  objects.clear();
  const [record] = sealRecords('vendor#v1', null, [{ kind: 'hold', at: '2022-12-02T16:00:00+05:30', vendorId: 'v1', detail: {} }], '2022-12-02T10:30:00.000Z');
  const logger = new RecordingLogger();
  const event = { Records: [{ eventID: 'm1', eventName: 'MODIFY', dynamodb: { ApproximateCreationDateTime: 1_670_000_000, OldImage: item('vendor#v1', sequenceKey(1), record), NewImage: item('vendor#v1', sequenceKey(1), { ...record, actor: 'mallory' }) } }] } as unknown as DynamoDBStreamEvent;
  expect(await makeAuditArchiveHandler(client, 'audit-archive', logger)(event)).toEqual({ written: 1 });
  const [[key, body]] = [...objects];
  expect(key).toBe('/audit-archive/tampering/2022-12-02T16:53:20.000Z-m1.json');
  expect(JSON.parse(body)).toMatchObject({ eventName: 'MODIFY', stream: 'vendor#v1', oldImage: { actor: null }, newImage: { actor: 'mallory' } });
  expect(logger.lines).toContainEqual(expect.objectContaining({ level: 'error', message: expect.stringContaining('changed or removed') }));
});

test('a write S3 refuses fails the batch, so Lambda delivers it again', async () => {
  s3.script(answer(500, '<Error><Code>InternalError</Code></Error>', { 'content-type': 'application/xml' }));
  const [record] = sealRecords('config', null, [{ kind: 'settings_changed', at: '2022-12-02T16:00:00+05:30', detail: {} }], '2022-12-02T10:30:00.000Z');
  const event = { Records: [{ eventID: 'f1', eventName: 'INSERT', dynamodb: { NewImage: item('config', sequenceKey(1), record) } }] } as unknown as DynamoDBStreamEvent;
  await expect(makeAuditArchiveHandler(client, 'audit-archive', new RecordingLogger())(event)).rejects.toThrow();
});
