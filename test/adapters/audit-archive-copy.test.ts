/**
 * The audit table's stream to the write-once archive (lib/audit-archive.ts): the copier handler through the real S3
 * SDK against the local S3 (local/edge/s3.ts, a write-once bucket as the stack's: a put without If-None-Match is
 * denied, a taken key is never replaced, nothing is deleted) writes one export line per inserted record and
 * checkpoint, so the archive read back by the production reader (S3AuditCopy) is an export the public format
 * verifies; a record changed or removed in the table is kept as evidence.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { sequenceKey } from '../../functions/adapters/dynamodb/audit-store';
import { S3AuditCopy } from '../../functions/adapters/s3/audit-archive-read';
import { S3Requests } from '../../functions/adapters/s3/s3-requests';
import { checkpointText, sealCheckpoint } from '../../functions/domain/audit/audit-checkpoints';
import { sealRecords } from '../../functions/domain/audit/audit-records';
import { keyFingerprint } from '../../functions/domain/audit/audit-proof';
import { makeAuditArchiveHandler } from '../../functions/handlers/audit-archive';
import { startLocalS3 } from '../../local/edge/s3';
import { RecordingLogger } from '../fakes/outside-world';
import { verifyExportText } from '../e2e/audit/independent-audit-verifier';
import { at } from '../times';

const BUCKET = 'audit-archive';
let s3: Awaited<ReturnType<typeof startLocalS3>>;
let client: S3Client;
/** The production adapters' S3 calls (s3-requests.ts); `client`, the SDK's, looks behind them. */
let requests: S3Requests;

beforeAll(async () => {
  s3 = await startLocalS3({ [BUCKET]: { writeOnce: true } });
  client = new S3Client({ endpoint: s3.url, region: 'ap-south-1', forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 });
  requests = new S3Requests({ endpoint: s3.url, region: 'ap-south-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
});

afterAll(async () => {
  client.destroy();
  await s3.close();
});

const item = (pk: string, sk: string, member: object, extra: object = {}) => marshall({ pk, sk, ...member, ...extra }, { removeUndefinedValues: true }) as never;
const body = async (key: string) => (await (await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body!.transformToString());

test('a stream batch\'s inserted records and checkpoints become one object of one export line each; read back, the archive verifies by the public format', async () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const keyId = `ed25519:${keyFingerprint(publicKey)}`;
  const records = sealRecords('order#o1', null, [1, 2].map((n) => ({ kind: 'gateway_attempt', at: at('2022-12-02T16:00:00+05:30'), orderId: 'o1', detail: { n } })), '2022-12-02T10:30:00.000Z');
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
  expect(await makeAuditArchiveHandler(requests, BUCKET, logger)(event)).toEqual({ written: 1 });
  expect(s3.s3.keys(BUCKET)).toEqual(['log/undated/e0-e9.ndjson']);
  expect((await body('log/undated/e0-e9.ndjson')).trim().split('\n').map((l) => JSON.parse(l).type)).toEqual(['record', 'record', 'checkpoint']);
  const keys = [{ keyId, algorithm: 'Ed25519' as const, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }) as string }];
  const copy = new S3AuditCopy(requests, BUCKET);
  // Read back by the reader verification and export use on AWS, and written out as an export, it verifies.
  const exportOf = async () => {
    const { records: read, checkpoints, tampering, unreadable } = await copy.read();
    expect([tampering, unreadable]).toEqual([[], []]);
    return `${[{ type: 'audit_export', complete: true }, ...checkpoints.map((c) => ({ type: 'checkpoint', ...c })), ...read.map((r) => ({ type: 'record', ...r }))].map((l) => JSON.stringify(l)).join('\n')}\n`;
  };
  expect(verifyExportText(await exportOf(), keys)).toMatchObject({ ok: true, records: 2, checkpoints: 1 });

  // Lambda delivered the batch again: its key is taken (If-None-Match: *), so the copier counts it written and
  // replaces nothing.
  expect(await makeAuditArchiveHandler(requests, BUCKET, logger)(event)).toEqual({ written: 1 });
  expect(logger.lines).toContainEqual(expect.objectContaining({ level: 'info', message: expect.stringContaining('is there already') }));
  // Lambda split the batch after a failure and delivered its halves: lines repeat across objects, and the reader
  // keeps each once (the README's sort -u): the repeats are never a second copy of a record.
  const halves = [event.Records.slice(0, 1), event.Records.slice(1)];
  for (const part of halves) await makeAuditArchiveHandler(requests, BUCKET, logger)({ Records: part } as DynamoDBStreamEvent);
  expect(s3.s3.keys(BUCKET)).toEqual(['log/undated/e0-e0.ndjson', 'log/undated/e0-e9.ndjson', 'log/undated/e1-e9.ndjson']);
  expect((await copy.read()).records).toHaveLength(2);
  expect(verifyExportText(await exportOf(), keys)).toMatchObject({ ok: true, records: 2, checkpoints: 1 });
  expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
});

test('write-once: a key is never replaced (a put without If-None-Match is denied, one with it finds the key taken) and nothing is deleted', async () => {
  const key = 'log/undated/e0-e9.ndjson';
  const before = await body(key);
  await expect(client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'forged\n' }))).rejects.toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
  await expect(client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: 'forged\n', IfNoneMatch: '*' }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 412 } });
  await expect(client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }))).rejects.toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
  expect(await body(key)).toBe(before);
});

test('a record changed or removed in the table is kept under tampering/ with both images, logged as an error, and read back as evidence', async () => {
  const [record] = sealRecords('vendor#v1', null, [{ kind: 'hold', at: at('2022-12-02T16:00:00+05:30'), vendorId: 'v1', detail: {} }], '2022-12-02T10:30:00.000Z');
  const logger = new RecordingLogger();
  const event = { Records: [{ eventID: 'm1', eventName: 'MODIFY', dynamodb: { ApproximateCreationDateTime: 1_670_000_000, OldImage: item('vendor#v1', sequenceKey(1), record), NewImage: item('vendor#v1', sequenceKey(1), { ...record, actor: 'mallory' }) } }] } as unknown as DynamoDBStreamEvent;
  expect(await makeAuditArchiveHandler(requests, BUCKET, logger)(event)).toEqual({ written: 1 });
  const key = 'tampering/2022-12-02T16:53:20.000Z-m1.json';
  expect(s3.s3.keys(BUCKET)).toContain(key);
  expect(JSON.parse(await body(key))).toMatchObject({ eventName: 'MODIFY', stream: 'vendor#v1', oldImage: { actor: null }, newImage: { actor: 'mallory' } });
  expect(logger.lines).toContainEqual(expect.objectContaining({ level: 'error', message: expect.stringContaining('changed or removed') }));
  expect((await new S3AuditCopy(requests, BUCKET).read()).tampering).toEqual([
    { key, eventName: 'MODIFY', stream: 'vendor#v1', sequence: 1, at: '2022-12-02T16:53:20.000Z' },
  ]);
});

test('a record given its time index keys by the upgrade\'s backfill is not tampering: the log itself did not change', async () => {
  const [record] = sealRecords('vendor#v2', null, [{ kind: 'hold', at: at('2022-12-02T16:00:00+05:30'), vendorId: 'v2', detail: {} }], '2022-12-02T10:30:00.000Z');
  const before = s3.s3.keys(BUCKET);
  const logger = new RecordingLogger();
  const indexed = { Records: [{ eventID: 'b1', eventName: 'MODIFY', dynamodb: { ApproximateCreationDateTime: 1_670_000_000, OldImage: item('vendor#v2', sequenceKey(1), record), NewImage: item('vendor#v2', sequenceKey(1), record, { timePk: '2022-12-02#1', timeSk: 'x' }) } }] } as unknown as DynamoDBStreamEvent;
  expect(await makeAuditArchiveHandler(requests, BUCKET, logger)(indexed)).toEqual({ written: 0 });
  expect(s3.s3.keys(BUCKET)).toEqual(before);
  expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
});

test('a write S3 refuses fails the batch, so Lambda delivers it again', async () => {
  const [record] = sealRecords('config', null, [{ kind: 'settings_changed', at: at('2022-12-02T16:00:00+05:30'), detail: {} }], '2022-12-02T10:30:00.000Z');
  const event = { Records: [{ eventID: 'f1', eventName: 'INSERT', dynamodb: { NewImage: item('config', sequenceKey(1), record) } }] } as unknown as DynamoDBStreamEvent;
  await expect(makeAuditArchiveHandler(requests, 'no-such-bucket', new RecordingLogger())(event)).rejects.toMatchObject({ name: 'NoSuchBucket' });
});

test('the reader pages through the listing (1,000 keys a page) and names a line that is not a record or a checkpoint', async () => {
  const local = await startLocalS3({ paged: { writeOnce: true } });
  const paged = new S3Client({ endpoint: local.url, region: 'ap-south-1', forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 });
  try {
    const records = sealRecords('order#many', null, Array.from({ length: 1_005 }, (_, n) => ({ kind: 'planned', at: at('2022-12-02T16:00:00+05:30'), orderId: 'many', detail: { n } })), '2022-12-02T10:30:00.000Z');
    for (let start = 0; start < records.length; start += 50) {
      await Promise.all(records.slice(start, start + 50).map((r) => paged.send(new PutObjectCommand({
        Bucket: 'paged', Key: `log/2022-12-02/${sequenceKey(r.sequence)}.ndjson`, Body: `${JSON.stringify({ type: 'record', ...r })}\n`, IfNoneMatch: '*',
      }))));
    }
    await paged.send(new PutObjectCommand({ Bucket: 'paged', Key: 'log/2022-12-03/junk.ndjson', Body: '{"type":"record"\n', IfNoneMatch: '*' }));
    const read = await new S3AuditCopy(new S3Requests({ endpoint: local.url, region: 'ap-south-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }), 'paged').read();
    expect(read.records.map((r) => r.sequence)).toEqual(records.map((r) => r.sequence));
    expect(read.unreadable).toEqual(['log/2022-12-03/junk.ndjson line 1: is not JSON']);
  } finally {
    paged.destroy();
    await local.close();
  }
});

test('the deployed handler builds its S3 client once per container: batch after batch travels one kept connection', async () => {
  const local = await startLocalS3({ 'container-archive': { writeOnce: true } });
  const variables = { HOLDBACK_AUDIT_ARCHIVE_BUCKET: 'container-archive', AWS_ENDPOINT_URL_S3: local.url, AWS_REGION: 'ap-south-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', POWERTOOLS_LOG_LEVEL: 'SILENT' };
  const saved = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  Object.assign(process.env, variables);
  try {
    let handler: ((event: DynamoDBStreamEvent) => Promise<{ written: number }>) | undefined;
    jest.isolateModules(() => {
      handler = (require('../../functions/handlers/audit-archive') as { handler: typeof handler }).handler;
    });
    for (const n of [1, 2, 3]) {
      const [record] = sealRecords(`order#c${n}`, null, [{ kind: 'planned', at: at('2022-12-02T16:00:00+05:30'), orderId: `c${n}`, detail: {} }], '2022-12-02T10:30:00.000Z');
      await handler!({ Records: [{ eventID: `c${n}`, eventName: 'INSERT', dynamodb: { NewImage: item(record.stream, sequenceKey(1), record) } }] } as unknown as DynamoDBStreamEvent);
    }
    expect(local.s3.keys('container-archive')).toEqual(['log/undated/c1-c1.ndjson', 'log/undated/c2-c2.ndjson', 'log/undated/c3-c3.ndjson']);
    expect(local.connections()).toBe(1);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await local.close();
  }
});
