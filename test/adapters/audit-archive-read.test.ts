/**
 * On AWS, `GET /audit/verify` and the audit export read the write-once copy and compare the table with it
 * (functions/application/audit/audit-copy.ts): the table on a real dynalite, the copy written by the production copier
 * handler and read by the production reader (S3AuditCopy) through the S3 SDK against the local write-once S3. The
 * table's items reach the copier as DynamoDB Streams hands them over (INSERT, MODIFY, REMOVE with their images):
 * dynalite has no streams, so `streamTo` plays that part.
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { DynamoAuditStore, sequenceKey } from '../../functions/adapters/dynamodb/audit-store';
import { Ed25519AuditKey } from '../../functions/adapters/audit-key/ed25519-audit-key';
import { S3AuditCopy } from '../../functions/adapters/s3/audit-archive-read';
import { S3Requests } from '../../functions/adapters/s3/s3-requests';
import { exportAuditLog, verifyAuditLog } from '../../functions/application/audit/audit-log-views';
import { writeAuditCheckpoint } from '../../functions/application/audit/maintain-audit-log';
import type { AuditEntry, AuditKey, Dependencies, JobStep, StoredJob } from '../../functions/application/ports';
import { verifyStep } from '../../functions/application/audit/verify-job';
import { exportStep } from '../../functions/application/audit/export-job';
import { S3ExportStore } from '../../functions/adapters/s3/s3-export-store';
import { DEFAULT_AUDIT_TABLE_NAME } from '../../functions/definitions/tables';
import { recordHash } from '../../functions/domain/audit/audit-records';
import { makeAuditArchiveHandler } from '../../functions/handlers/audit-archive';
import { startLocalS3 } from '../../local/edge/s3';
import { RecordingLogger } from '../fakes/outside-world';
import { verifyExportText } from '../e2e/audit/independent-audit-verifier';
import { withLocalDynamo } from './local-dynamodb';
import { awsEnvironment } from './aws-environment';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DocumentClient, documentClientConfig } from '../../functions/adapters/dynamodb/document-client';
import { buildDependencies, readRuntimeConfig } from '../../functions/composition-root';
import { createTableInputs, tableNamesFromEnv } from '../../functions/definitions/tables';
import { SharedClock } from '../../local/clock';
import { createEdge } from '../../local/edge/edge';
import { Instant } from '../../functions/domain/instant';
import { at } from '../times';

const TABLE = DEFAULT_AUDIT_TABLE_NAME;
const STEPPED = ['clean', 'deleted', 'changed', 'checkpoint', 'evidence', 'lag', 'unreadable', 'killed', 'stream', 'many'].map((name) => `steps-${name}`);
const BUCKETS = ['archive-a', 'archive-b', 'archive-c', ...STEPPED];
const clock = { now: () => Instant.parse('2022-12-02T16:00:00+05:30', 'now') };

let s3: Awaited<ReturnType<typeof startLocalS3>>;
let client: S3Client;
/** The production adapters' S3 calls (s3-requests.ts); `client`, the SDK's, looks behind them. */
let requests: S3Requests;
beforeAll(async () => {
  s3 = await startLocalS3({ ...Object.fromEntries(BUCKETS.map((b) => [b, { writeOnce: true }])), exports: {} });
  client = new S3Client({ endpoint: s3.url, region: 'ap-south-1', forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 });
  requests = new S3Requests({ endpoint: s3.url, region: 'ap-south-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
});
afterAll(async () => {
  client.destroy();
  await s3.close();
});

const entry = (orderId: string, n: number): AuditEntry => ({
  kind: 'gateway_attempt', at: at('2022-12-02T16:00:00+05:30'), orderId, vendorId: 'vendor_1', detail: { request: '2022-12-05 10:00:00', status: 'OK', n },
});

/** The API's view of the key on AWS: it reads the public keys and may not sign (only the sweep may). */
const verifyOnly = (key: Ed25519AuditKey): AuditKey => ({
  identity: () => key.identity(), publicKeyPem: () => key.publicKeyPem(), publicKeys: () => key.publicKeys(), canSign: false,
  sign: () => Promise.reject(new Error('only the checkpoint writer signs')),
});

/** DynamoDB Streams for a test: each call hands the copier what changed in the table since the last call, as one batch. */
class StreamFeed {
  private readonly seen = new Map<string, string>();
  private events = 0;
  constructor(private readonly doc: DocumentClient, private readonly bucket: string, readonly logger = new RecordingLogger()) {}

  /** One stream batch of what changed since the last; `when` (UTC ISO): when DynamoDB Streams says it changed (its day names the object's prefix). */
  async deliver(when?: string): Promise<void> {
    const now = new Map<string, Record<string, unknown>>();
    for (let page = await this.doc.scan({ TableName: TABLE }); ; page = await this.doc.scan({ TableName: TABLE, ExclusiveStartKey: page.lastEvaluatedKey })) {
      for (const item of page.items) now.set(`${item.pk}\u0000${item.sk}`, item);
      if (!page.lastEvaluatedKey) break;
    }
    const records: unknown[] = [];
    const image = (item: Record<string, unknown>) => marshall(item, { removeUndefinedValues: true });
    const at = Math.floor(Date.parse(when ?? '2022-12-02T10:40:00Z') / 1000) + this.events;
    for (const [key, item] of now) {
      const before = this.seen.get(key);
      const text = JSON.stringify(item);
      if (before === text) continue;
      const eventName = before === undefined ? 'INSERT' : 'MODIFY';
      records.push({ eventID: `ev${String(++this.events).padStart(4, '0')}`, eventName, dynamodb: { ApproximateCreationDateTime: at, NewImage: image(item), ...(before ? { OldImage: image(JSON.parse(before)) } : {}) } });
      this.seen.set(key, text);
    }
    for (const [key, before] of this.seen) {
      if (now.has(key)) continue;
      records.push({ eventID: `ev${String(++this.events).padStart(4, '0')}`, eventName: 'REMOVE', dynamodb: { ApproximateCreationDateTime: at, OldImage: image(JSON.parse(before)) } });
      this.seen.delete(key);
    }
    if (records.length > 0) await makeAuditArchiveHandler(requests, this.bucket, this.logger)({ Records: records } as DynamoDBStreamEvent);
  }
}

/** A table with two checkpoints, all of it copied: order_1 1-3 and order_2 1 (checkpoint 1), order_1 4 and order_3 1 (checkpoint 2). */
async function signedLog(doc: DocumentClient, bucket: string) {
  const key = Ed25519AuditKey.inMemory();
  const store = new DynamoAuditStore(doc, TABLE, clock, new RecordingLogger());
  const writer = { clock, logger: new RecordingLogger(), audit: store, auditArchive: store, auditKey: key } as unknown as Dependencies;
  await store.append([entry('order_1', 1), entry('order_1', 2), entry('order_1', 3), entry('order_2', 1)]);
  expect(await writeAuditCheckpoint(writer)).toMatchObject({ written: [1] });
  await store.append([entry('order_1', 4), entry('order_3', 1)]);
  expect(await writeAuditCheckpoint(writer)).toMatchObject({ written: [2] });
  const feed = new StreamFeed(doc, bucket);
  await feed.deliver();
  // The API on AWS: the copy, and a key it cannot sign with; the table alone as the API read it before.
  const aws = { clock, logger: new RecordingLogger(), audit: store, auditArchive: store, auditKey: verifyOnly(key), auditCopy: new S3AuditCopy(requests, bucket) } as unknown as Dependencies;
  const tableOnly = { ...aws, auditCopy: null } as Dependencies;
  const keys = (await key.publicKeys()).map(({ keyId, algorithm, publicKeyPem }) => ({ keyId, algorithm, publicKeyPem }));
  return { store, writer, feed, aws, tableOnly, keys };
}

const del = (doc: DocumentClient, pk: string, n: number) => doc.delete({ TableName: TABLE, Key: { pk, sk: sequenceKey(n) } });
const exportText = async (deps: Dependencies): Promise<string> => {
  let text = '';
  for await (const chunk of await exportAuditLog(deps, {})) text += chunk;
  return text;
};

test('the newest checkpoint and the records after the one before deleted from the table: the table alone verifies, the API on AWS reports the deleted checkpoint', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const log = await signedLog(doc, 'archive-a');
    expect(await verifyAuditLog(log.aws)).toEqual({ ok: true, records: 6, streams: 3, checkpoints: 2, firstBroken: null, unsignedRecords: 0 });
    // The attack: checkpoint 2, and order_1 4 and order_3 1 that only it signed, gone from the table.
    await doc.delete({ TableName: TABLE, Key: { pk: 'checkpoints', sk: sequenceKey(2) } });
    await del(doc, 'order#order_1', 4);
    await del(doc, 'order#order_3', 1);
    expect(await verifyAuditLog(log.tableOnly)).toMatchObject({ ok: true, records: 4, checkpoints: 1 });
    const caught = await verifyAuditLog(log.aws);
    expect(caught).toEqual({
      ok: false, records: 6, streams: 3, checkpoints: 2, unsignedRecords: 0,
      firstBroken: { stream: 'checkpoints', sequence: 2, reason: 'deleted from the table: the write-once copy holds checkpoint 2' },
    });
    // The stream also reported the deletions: the copy keeps them under tampering/, and they stay reported.
    await log.feed.deliver();
    expect(s3.s3.keys('archive-a').filter((k) => k.startsWith('tampering/'))).toHaveLength(3);
    expect((await verifyAuditLog(log.aws)).firstBroken).toEqual({
      stream: 'checkpoints', sequence: 2, reason: expect.stringMatching(/^deleted from the table at 2022-12-02T10:40:\d\d\.000Z: the write-once copy kept the item as it was \(tampering\/.+\.json\)$/),
    });
    // The export on AWS is the copy: the deleted checkpoint and records are in it, and it verifies by the public format.
    const text = await exportText(log.aws);
    expect(verifyExportText(text, log.keys)).toMatchObject({ ok: true, records: 6, checkpoints: 2 });
    expect(verifyExportText(await exportText(log.tableOnly), log.keys)).toMatchObject({ ok: true, records: 4, checkpoints: 1 });
  });
});

test('records deleted from the table, or changed and re-hashed after the newest checkpoint, are the first broken link on AWS', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const log = await signedLog(doc, 'archive-b');
    // A record after the newest checkpoint (unsigned), copied, then rewritten in the table with its hash recomputed:
    // the table alone can only call it unsigned.
    await log.store.append([entry('order_2', 2)]);
    await log.feed.deliver();
    const [, two] = await log.store.streamRecords('order#order_2');
    const forged = { ...two, actor: 'mallory' };
    forged.hash = recordHash(forged);
    await doc.put({ TableName: TABLE, Item: { pk: forged.stream, sk: sequenceKey(2), ...forged } });
    expect(await verifyAuditLog(log.tableOnly)).toMatchObject({ ok: true, unsignedRecords: 1 });
    expect((await verifyAuditLog(log.aws)).firstBroken).toEqual({ stream: 'order#order_2', sequence: 2, reason: 'changed in the table: the write-once copy holds the record as it was written' });
    await doc.put({ TableName: TABLE, Item: { pk: two.stream, sk: sequenceKey(2), ...two } });
    expect((await verifyAuditLog(log.aws)).ok).toBe(true);
    // Changed without its hash recomputed: the hash is the copy's, the record no longer is.
    await doc.put({ TableName: TABLE, Item: { pk: two.stream, sk: sequenceKey(2), ...two, actor: 'mallory' } });
    expect((await verifyAuditLog(log.aws)).firstBroken).toEqual({ stream: 'order#order_2', sequence: 2, reason: 'changed in the table: the write-once copy holds the record as it was written' });
    await doc.put({ TableName: TABLE, Item: { pk: two.stream, sk: sequenceKey(2), ...two } });
    // A whole stream removed from the table (its records, never signed alone).
    await log.store.append([entry('order_9', 1)]);
    await log.feed.deliver();
    await del(doc, 'order#order_9', 1);
    expect((await verifyAuditLog(log.aws)).firstBroken).toEqual({ stream: 'order#order_9', sequence: 1, reason: 'deleted from the table: the write-once copy holds this record' });
  });
});

test('the copy lags the table (stream batching): what the table holds and the copy does not yet is verified from the table; a line in the copy that is not a record or checkpoint is named', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const log = await signedLog(doc, 'archive-c');
    await log.store.append([entry('order_1', 5), entry('order_4', 1)]);
    expect(await writeAuditCheckpoint(log.writer)).toMatchObject({ written: [3] });
    // Not delivered yet: checkpoint 3 and its records are in the table only.
    expect(await verifyAuditLog(log.aws)).toEqual({ ok: true, records: 8, streams: 4, checkpoints: 3, firstBroken: null, unsignedRecords: 0 });
    const text = await exportText(log.aws);
    expect(verifyExportText(text, log.keys)).toMatchObject({ ok: true, records: 8, checkpoints: 3 });
    // A record not yet copied and edited in the table is still checked against its chain and checkpoint.
    const [, , , , five] = await log.store.streamRecords('order#order_1');
    await doc.put({ TableName: TABLE, Item: { pk: five.stream, sk: sequenceKey(5), ...five, actor: 'mallory' } });
    expect((await verifyAuditLog(log.aws)).firstBroken).toMatchObject({ stream: 'order#order_1', sequence: 5, reason: expect.stringMatching(/^edited/) });
    await doc.put({ TableName: TABLE, Item: { pk: five.stream, sk: sequenceKey(5), ...five } });
    await log.feed.deliver();
    expect((await verifyAuditLog(log.aws)).ok).toBe(true);
    await client.send(new PutObjectCommand({ Bucket: 'archive-c', Key: 'log/2022-12-02/zz-junk.ndjson', Body: 'not json\n', IfNoneMatch: '*' }));
    expect((await verifyAuditLog(log.aws)).firstBroken).toEqual({
      stream: 'archive', sequence: 0, reason: 'the write-once copy holds a line that is not a record or a checkpoint: log/2022-12-02/zz-junk.ndjson line 1: is not JSON',
    });
  });
});

test('the composition reads the copy where the stack names its bucket: through the local edge, which serves S3 beside DynamoDB', async () => {
  const edgeClock = new SharedClock({ start: new Date('2022-12-02T16:05:00+05:30'), frozen: true });
  const names = tableNamesFromEnv(awsEnvironment('edge_secret_value_31f'));
  const edge = await createEdge({ port: 0, clock: edgeClock, tables: createTableInputs(names, 'edge-audit'), targets: {}, log: () => undefined, buckets: { 'edge-archive': { writeOnce: true } } });
  const viaEdge = new S3Requests({ endpoint: edge.url, region: 'ap-south-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  try {
    const config = readRuntimeConfig({ ...awsEnvironment('edge_secret_value_31f'), AWS_ENDPOINT_URL: edge.url, HOLDBACK_AUDIT_TABLE: 'edge-audit', HOLDBACK_AUDIT_ARCHIVE_BUCKET: 'edge-archive' });
    const deps = buildDependencies(config, { clock: { now: () => Instant.fromDateTime(edgeClock.now()) }, logger: new RecordingLogger() });
    expect(deps.auditCopy).toBeInstanceOf(S3AuditCopy);
    await deps.audit.append([entry('order_e', 1), entry('order_e', 2)]);
    expect((await verifyAuditLog(deps)).ok).toBe(true);
    // The copier writes the first record to the edge's bucket (as the stream would); the table then loses it.
    const [first] = await deps.auditArchive.streamRecords('order#order_e');
    await makeAuditArchiveHandler(viaEdge, 'edge-archive', new RecordingLogger())({ Records: [
      { eventID: 'x1', eventName: 'INSERT', dynamodb: { NewImage: marshall({ pk: first.stream, sk: sequenceKey(1), ...first }) } },
    ] } as unknown as DynamoDBStreamEvent);
    expect((await deps.auditCopy!.read()).records).toEqual([first]);
    const edgeDoc = new DocumentClient(new DynamoDBClient(documentClientConfig({ region: 'ap-south-1', endpoint: edge.url, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } })));
    await edgeDoc.delete({ TableName: 'edge-audit', Key: { pk: first.stream, sk: sequenceKey(1) } });
    expect((await verifyAuditLog(deps)).firstBroken).toEqual({ stream: 'order#order_e', sequence: 1, reason: 'deleted from the table: the write-once copy holds this record' });
  } finally {
    await edge.close();
  }
});

// ---- The jobs over the copy in bounded steps (copy-steps.ts): the production step functions of the jobs function,
// each step's state handed to the next as text (as the job queue carries it), with bounds small enough for many steps.

/** Bounds of a step: one object of the copy, two records of the table. */
const SMALL_STEPS = { auditCopyStepObjects: 1, exportPartRows: 2 };

const job = (kind: StoredJob['kind'], total = 0): StoredJob => ({
  jobId: `job_${kind}`, kind, state: 'running', total, done: 0, failed: 0, actor: 'test', createdAt: clock.now(), finishedAt: null, error: null,
  result: null, params: kind === 'audit_export' ? { range: {} } : {}, failures: [], expected: [], finished: [],
});

/**
 * Runs a job step after step as the jobs function does: `repeat` lists the steps (by count, from 1) that are killed
 * after their work and before they were recorded, so that the queue delivers them again: each must open the same step.
 */
async function inSteps(deps: Dependencies, kind: 'audit_verify' | 'audit_export', repeat: number[] = []): Promise<{ result: unknown; steps: number; total: number; states: number; parts: number }> {
  const run = kind === 'audit_verify' ? verifyStep : exportStep;
  let step: JobStep = { jobId: job(kind).jobId, step: kind === 'audit_verify' ? 'verify:0' : 'part:0', after: null };
  let [steps, total, states, parts] = [0, 0, 0, 0];
  for (;;) {
    steps += 1;
    let work = await run(deps, job(kind, total), step);
    if (repeat.includes(steps)) {
      const again = await run(deps, job(kind, total), step);
      expect(again.opened).toEqual(work.opened);
      expect(again.count).toBe(work.count);
      work = again;
    }
    total += work.count;
    if (step.step.startsWith('part:')) parts += 1;
    if (work.opened.length === 0) return { result: work.result?.(), steps, total, states, parts };
    expect(work.opened).toHaveLength(1);
    states = Math.max(states, Buffer.byteLength(work.opened[0].after ?? ''));
    step = { jobId: step.jobId, ...JSON.parse(JSON.stringify(work.opened[0])) };
  }
}

/**
 * A log over three days: six objects of the copy (one of them a second copy of another's lines, as a split batch
 * writes them), nine records in four streams, three checkpoints.
 */
async function dailyLog(doc: DocumentClient, bucket: string) {
  const log = await signedLog(doc, bucket);
  const days = ['2022-12-03T09:00:00Z', '2022-12-04T09:00:00Z', '2022-12-04T09:01:00Z', '2022-12-05T09:00:00Z'];
  await log.store.append([entry('order_2', 2), entry('order_5', 1)]);
  await log.feed.deliver(days[0]);
  await log.store.append([entry('order_5', 2)]);
  await log.feed.deliver(days[1]);
  expect(await writeAuditCheckpoint(log.writer)).toMatchObject({ written: [3] });
  await log.feed.deliver(days[2]);
  await log.store.append([entry('order_1', 5)]);
  await log.feed.deliver(days[3]);
  const keys = s3.s3.keys(bucket).filter((k) => k.startsWith('log/'));
  const [first] = keys.filter((k) => k.startsWith('log/2022-12-03/'));
  const body = await (await client.send(new GetObjectCommand({ Bucket: bucket, Key: first }))).Body!.transformToString();
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: 'log/2022-12-05/split-half.ndjson', Body: body, IfNoneMatch: '*' }));
  expect(new Set(s3.s3.keys(bucket).filter((k) => k.startsWith('log/')).map((k) => k.slice(4, 14)))).toEqual(new Set(['2022-12-02', '2022-12-03', '2022-12-04', '2022-12-05']));
  const stepped = { ...log.aws, ...SMALL_STEPS, exports: new S3ExportStore(requests, 'exports', () => new Date(clock.now().ms)) } as Dependencies;
  return { ...log, stepped };
}

/** The job's result and GET /audit/verify's answer (default bounds: every step at once here) for the same log. */
async function bothAnswers(log: { aws: Dependencies; stepped: Dependencies }, repeat: number[] = []) {
  const inline = await verifyAuditLog(log.aws);
  const job = await inSteps(log.stepped, 'audit_verify', repeat);
  expect(job.result).toEqual(inline);
  return { inline, job };
}

test('on AWS the verification job reads the copy a page of objects a step, over several days, and its result is GET /audit/verify\'s answer; a line held by two objects counts once', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const log = await dailyLog(doc, 'steps-clean');
    const objects = s3.s3.keys('steps-clean').filter((k) => k.startsWith('log/')).length;
    expect(objects).toBe(6);
    const { inline, job } = await bothAnswers(log);
    expect(inline).toEqual({ ok: true, records: 10, streams: 4, checkpoints: 3, firstBroken: null, unsignedRecords: 1 });
    // One step an object, the tampering prefix, then the table two records a step (ten records: five steps and the last).
    expect(job.steps).toBeGreaterThanOrEqual(objects + 1 + 5);
    expect(job.total).toBe(10);
    // What a step hands the next fits a queue message many times over.
    expect(job.states).toBeLessThan(4_000);
  });
});

test('on AWS the audit export job reads the copy in steps; its file verifies with the independent verifier and holds GET /audit/export\'s lines', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const log = await dailyLog(doc, 'steps-stream');
    // A record deleted from the table: the export is the copy, so it is in the file.
    await del(doc, 'order#order_5', 1);
    const exported = await inSteps(log.stepped, 'audit_export');
    const { url, rows, sha256 } = exported.result as { url: string; rows: number; sha256: string };
    expect(exported.steps).toBeGreaterThan(10);
    // The copy pass writes no part of its own: the file's parts are the header's and the lines' (two rows a part).
    expect(exported.parts).toBe(Math.ceil((rows - 1) / 2) + 1);
    const key = new URL(url).pathname.split('/').pop()!;
    const file = await (await client.send(new GetObjectCommand({ Bucket: 'exports', Key: key }))).Body!.transformToString();
    expect(createHash('sha256').update(file).digest('hex')).toBe(sha256);
    expect(file.split('\n').filter(Boolean)).toHaveLength(rows);
    expect(rows).toBe(1 + 3 + 10);
    expect(verifyExportText(file, log.keys)).toMatchObject({ ok: true, records: 10, checkpoints: 3 });
    // The same lines as GET /audit/export (which runs the same steps with the default bounds), the header aside.
    expect(file.split('\n').slice(1)).toEqual((await exportText(log.aws)).split('\n').slice(1));
    expect(verifyExportText(await exportText(log.tableOnly), log.keys)).toMatchObject({ records: 9 });
  });
});

test.each([
  ['deleted', 'a record deleted from the table', async (doc: DocumentClient) => { await del(doc, 'order#order_5', 1); },
    { stream: 'order#order_5', sequence: 1, reason: 'deleted from the table: the write-once copy holds this record' }],
  ['changed', 'a record changed in the table', async (doc: DocumentClient, store: DynamoAuditStore) => {
    const [one] = await store.streamRecords('order#order_2');
    await doc.put({ TableName: TABLE, Item: { pk: one.stream, sk: sequenceKey(1), ...one, actor: 'mallory' } });
  }, { stream: 'order#order_2', sequence: 1, reason: 'changed in the table: the write-once copy holds the record as it was written' }],
  ['checkpoint', 'the newest checkpoint deleted from the table', async (doc: DocumentClient) => { await doc.delete({ TableName: TABLE, Key: { pk: 'checkpoints', sk: sequenceKey(3) } }); },
    { stream: 'checkpoints', sequence: 3, reason: 'deleted from the table: the write-once copy holds checkpoint 3' }],
  ['evidence', 'a record deleted and put back, whose removal the copy kept under tampering/', async (doc: DocumentClient, store: DynamoAuditStore, feed: StreamFeed) => {
    const [, two] = await store.streamRecords('order#order_1');
    await del(doc, 'order#order_1', 2);
    await feed.deliver('2022-12-06T09:00:00Z');
    // The table verifies again as it was; the evidence stays.
    await doc.put({ TableName: TABLE, Item: { pk: two.stream, sk: sequenceKey(2), ...two } });
  }, { stream: 'order#order_1', sequence: 2, reason: expect.stringMatching(/^deleted from the table at 2022-12-06T09:00:\d\d\.000Z: the write-once copy kept the item as it was \(tampering\/.+\.json\)$/) }],
  ['unreadable', 'a line that is not a record or checkpoint', async () => {
    await client.send(new PutObjectCommand({ Bucket: 'steps-unreadable', Key: 'log/2022-12-04/zz-junk.ndjson', Body: '{"type":"record"}\nnot json\n', IfNoneMatch: '*' }));
  }, { stream: 'archive', sequence: 0, reason: expect.stringMatching(/^the write-once copy holds a line that is not a record or a checkpoint: log\/2022-12-04\/zz-junk\.ndjson line 1: a record without a stream \(text\) and a sequence \(a whole number\)$/) }],
] as const)('on AWS, in steps, %s: %s is the first broken link, in the job\'s result as in GET /audit/verify', async (name, _what, tamper, expected) => {
  await withLocalDynamo(async ({ doc }) => {
    const log = await dailyLog(doc, `steps-${name}`);
    await tamper(doc, log.store, log.feed);
    const { inline, job } = await bothAnswers(log);
    expect(inline.firstBroken).toEqual(expected);
    expect(inline).toMatchObject({ ok: false, records: 10, streams: 4, checkpoints: 3 });
    expect(job.steps).toBeGreaterThan(10);
  });
});

test('on AWS, in steps, what the table holds and the copy does not yet (up to a minute of batching) is verified from the table', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const log = await dailyLog(doc, 'steps-lag');
    await log.store.append([entry('order_6', 1), entry('order_5', 3)]);
    expect(await writeAuditCheckpoint(log.writer)).toMatchObject({ written: [4] });
    const { inline } = await bothAnswers(log);
    expect(inline).toEqual({ ok: true, records: 12, streams: 5, checkpoints: 4, firstBroken: null, unsignedRecords: 0 });
    // Not copied yet and edited in the table: still checked against its chain and checkpoint.
    const [, , three] = await log.store.streamRecords('order#order_5');
    await doc.put({ TableName: TABLE, Item: { pk: three.stream, sk: sequenceKey(3), ...three, actor: 'mallory' } });
    expect((await bothAnswers(log)).inline.firstBroken).toMatchObject({ stream: 'order#order_5', sequence: 3, reason: expect.stringMatching(/^edited/) });
  });
});

test('on AWS a verification or export step killed before it was recorded runs again from the same state: the same next step, the same answer', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const log = await dailyLog(doc, 'steps-killed');
    await del(doc, 'order#order_3', 1);
    const once = await inSteps(log.stepped, 'audit_verify');
    // Killed in the copy pass, in the tampering prefix's step, and in the table read.
    const killed = await inSteps(log.stepped, 'audit_verify', [2, 5, 7, 8, 10, 12]);
    expect(killed.result).toEqual(once.result);
    expect(killed.total).toBe(once.total);
    expect(once.result).toMatchObject({ ok: false, firstBroken: { stream: 'order#order_3', sequence: 1, reason: 'deleted from the table: the write-once copy holds this record' } });
    const file = async (run: Awaited<ReturnType<typeof inSteps>>) => {
      const key = new URL((run.result as { url: string }).url).pathname.split('/').pop()!;
      return (await client.send(new GetObjectCommand({ Bucket: 'exports', Key: key }))).Body!.transformToString();
    };
    const exported = await file(await inSteps(log.stepped, 'audit_export'));
    const again = await file(await inSteps(log.stepped, 'audit_export', [1, 3, 6, 9, 11]));
    expect(again.split('\n').slice(1)).toEqual(exported.split('\n').slice(1));
    expect(verifyExportText(again, log.keys)).toMatchObject({ ok: true, records: 10 });
  });
});

test('on AWS, in steps, a table that lost hundreds of copied records: the first is the first broken link, and what a step hands the next stays inside a queue message', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const log = await dailyLog(doc, 'steps-many');
    const many = Array.from({ length: 400 }, (_, i) => entry('order_7', i + 1));
    await log.store.append(many);
    await log.feed.deliver('2022-12-06T09:00:00Z');
    await Promise.all(many.map((_, i) => del(doc, 'order#order_7', i + 1)));
    const { inline, job } = await bothAnswers(log);
    expect(inline.firstBroken).toEqual({ stream: 'order#order_7', sequence: 1, reason: 'deleted from the table: the write-once copy holds this record' });
    // The copy's versions a state carries are bounded (150 KB): those past it are reported, not put back into the chain.
    expect(inline.records).toBeGreaterThan(10 + 100);
    expect(inline.records).toBeLessThan(10 + 400);
    expect(job.states).toBeGreaterThan(100_000);
    expect(job.states).toBeLessThan(256 * 1024 - 4_096);
  });
});
