/**
 * Contract 6.3 and 6.2 on the embedded default (dynalite, the local edge's job queue, the jobs function): the audit
 * export and the audit verification run as several bounded steps when the log is larger than one step (steps set small
 * here: HOLDBACK_EXPORT_PART_ROWS 15), and their results are exactly those of the one-answer routes: the export's file
 * is GET /audit/export's bytes, the verification's result GET /audit/verify's answer, a tampered log included.
 */
import { createHash } from 'node:crypto';
import { DeleteItemCommand, DynamoDBClient, PutItemCommand, ScanCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DEFAULT_AUDIT_TABLE_NAME } from '../../../functions/definitions/tables';
import { startHarness, type Harness } from '../harness';
import { jobEnded, seedOrders } from './job-helpers';

jest.setTimeout(300_000);

const VENDOR = 'vendor_audit';
const PART_ROWS = 15;

let h: Harness;
let db: DynamoDBClient;

beforeAll(async () => {
  h = await startHarness({ exportPartRows: PART_ROWS });
  db = new DynamoDBClient({ endpoint: h.runtime.edge.url, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  await h.setPolicy(VENDOR, { kind: 'after_payment', delay: 'P1D' });
  await seedOrders(h, VENDOR, 60, 'aud');
  // A hold and an unhold: each order's stream gets two records more.
  for (const change of ['hold', 'unhold']) {
    const answer = await h.api('POST', `/vendors/${VENDOR}/${change}`, { actor: 'risk@example.com', reason: 'review' });
    expect((await jobEnded(h, answer.body.job.jobId)).state).toBe('succeeded');
  }
});

afterAll(async () => {
  db?.destroy();
  await h?.close();
});

/** The steps a job recorded (the stored job, which GET /jobs/{id} does not show). */
async function stepsOf(jobId: string): Promise<string[]> {
  return (await h.runtime.deps.jobs.get(jobId))!.finished;
}

test('the audit export is written in parts of bounded rows, and its file is GET /audit/export byte for byte', async () => {
  const started = await h.api('POST', '/exports', { kind: 'audit' });
  expect(started.status).toBe(202);
  const job = await jobEnded(h, started.body.job.jobId);
  expect(job).toMatchObject({ state: 'succeeded', failed: 0 });
  const text = await (await fetch(job.result.url)).text();
  const lines = text.trim().split('\n');
  expect(lines.length).toBe(job.result.rows);
  expect(job.total).toBe(job.result.rows);
  expect(Buffer.byteLength(text)).toBe(job.result.bytes);
  expect(createHash('sha256').update(text).digest('hex')).toBe(job.result.sha256);
  // Several parts of at most PART_ROWS lines each, then the file.
  const steps = await stepsOf(job.jobId);
  const parts = Math.ceil(lines.length / PART_ROWS);
  expect(parts).toBeGreaterThan(3);
  expect(steps.filter((s) => s.startsWith('part:')).length).toBeGreaterThanOrEqual(parts);
  expect(steps).toContain('file');
  // The one-answer export of the same log (the clock is frozen: the same header), and no line twice.
  const whole = await (await fetch(`${h.runtime.api.url}/audit/export`)).text();
  expect(text).toBe(whole);
  expect(new Set(lines).size).toBe(lines.length);
  expect(lines.filter((l) => JSON.parse(l).type === 'checkpoint').length).toBeGreaterThan(0);
  // A range export in parts is the range's one-answer export too.
  const ranged = await jobEnded(h, (await h.api('POST', '/exports', { kind: 'audit', from: '2022-12-01', to: '2022-12-31' })).body.job.jobId);
  expect(await (await fetch(ranged.result.url)).text()).toBe(await (await fetch(`${h.runtime.api.url}/audit/export?from=2022-12-01&to=2022-12-31`)).text());
});

/** The audit items of the table (records and checkpoints), read whole: this test's log is small. */
async function auditItems(): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await db.send(new ScanCommand({ TableName: DEFAULT_AUDIT_TABLE_NAME, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** A verification job's result and steps, beside GET /audit/verify's answer for the same log (asked for after the job). */
async function verifiedBoth(): Promise<{ job: Record<string, any>; steps: string[]; inline: Record<string, unknown> }> {
  const started = await h.api('POST', '/audit/verifications', { actor: 'auditor@example.com' });
  expect(started.status).toBe(202);
  const job = await jobEnded(h, started.body.job.jobId);
  expect(job.state).toBe('succeeded');
  const inline = await h.api('GET', '/audit/verify');
  expect(inline.status).toBe(200);
  return { job, steps: await stepsOf(job.jobId), inline: inline.body };
}

describe('the audit verification in bounded steps', () => {
  test('a clean log: several steps of at most a part of records; the result is GET /audit/verify\'s answer', async () => {
    await h.api('GET', '/audit/verify');
    const { job, steps, inline } = await verifiedBoth();
    expect(job.result).toEqual(inline);
    expect(job.result).toMatchObject({ ok: true, firstBroken: null });
    expect(job.result.records).toBeGreaterThan(3 * PART_ROWS);
    expect(steps.length).toBe(Math.floor(job.result.records / PART_ROWS) + 1);
    expect([job.total, job.done]).toEqual([job.result.records, job.result.records]);
  });

  test('an edited record, a deleted one and a whole stream deleted: the same first broken link as GET /audit/verify', async () => {
    const items = await auditItems();
    const records = items.filter((i) => /^order#/.test(i.pk.S!));
    const streams = [...new Set(records.map((i) => i.pk.S!))].sort();
    const inStream = (stream: string) => records.filter((i) => i.pk.S === stream).sort((a, b) => Number(a.sk.S) - Number(b.sk.S));
    // An order stream of at least two records, edited at its second; a later stream deleted whole.
    const edited = streams.map(inStream).find((list) => list.length >= 2)![1];
    await db.send(new UpdateItemCommand({
      TableName: DEFAULT_AUDIT_TABLE_NAME, Key: { pk: edited.pk, sk: edited.sk },
      UpdateExpression: 'SET actor = :a', ExpressionAttributeValues: { ':a': { S: 'someone-else' } },
    }));
    let result = await verifiedBoth();
    expect(result.job.result).toEqual(result.inline);
    expect(result.job.result.firstBroken).toMatchObject({ stream: edited.pk.S, sequence: Number(edited.sk.S) });
    await db.send(new PutItemCommand({ TableName: DEFAULT_AUDIT_TABLE_NAME, Item: edited }));

    const gone = inStream(streams[streams.length - 1]);
    for (const item of gone) await db.send(new DeleteItemCommand({ TableName: DEFAULT_AUDIT_TABLE_NAME, Key: { pk: item.pk, sk: item.sk } }));
    result = await verifiedBoth();
    expect(result.job.result).toEqual(result.inline);
    expect(result.job.result.firstBroken).toMatchObject({ stream: streams[streams.length - 1], sequence: 1, reason: expect.stringMatching(/^missing: checkpoint \d+ signed sequence \d+, no record of the stream is left/) });
    for (const item of gone) await db.send(new PutItemCommand({ TableName: DEFAULT_AUDIT_TABLE_NAME, Item: item }));

    const middle = streams.map(inStream).find((list) => list.length >= 3)!;
    await db.send(new DeleteItemCommand({ TableName: DEFAULT_AUDIT_TABLE_NAME, Key: { pk: middle[1].pk, sk: middle[1].sk } }));
    result = await verifiedBoth();
    expect(result.job.result).toEqual(result.inline);
    expect(result.job.result.firstBroken).toMatchObject({ stream: middle[1].pk.S, sequence: 2, reason: 'missing: the stream goes from sequence 1 to 3 (a record was deleted)' });
    await db.send(new PutItemCommand({ TableName: DEFAULT_AUDIT_TABLE_NAME, Item: middle[1] }));
    expect((await verifiedBoth()).job.result).toMatchObject({ ok: true, firstBroken: null });
  });
});
