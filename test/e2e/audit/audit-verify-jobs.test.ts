/**
 * Verification of the audit log as a job (contract 6.2, 6.3), on the embedded default through the same job engine as
 * on AWS: `POST /audit/verifications` answers `202 {job}` (kind `audit_verify`), whose result is the answer of
 * `GET /audit/verify`; and `GET /audit/verify` itself answers `202 {job}` once the log holds more signed records than
 * HOLDBACK_AUDIT_VERIFY_INLINE_RECORDS (set low here by the runtime's option, not by a huge seed). A clean log
 * verifies; a record deleted or edited in the table is the job's first broken link. The CLI's online
 * `holdback audit verify` waits for the job and prints its result.
 */
import { DeleteItemCommand, DynamoDBClient, PutItemCommand, ScanCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { DEFAULT_AUDIT_TABLE_NAME } from '../../../functions/definitions/tables';
import { jobEnded } from '../jobs/job-helpers';
import { startHarness, type Harness } from '../harness';

jest.setTimeout(240_000);

/** Signed records GET /audit/verify checks in its own answer at most, in this test. */
const INLINE = 2;
const TABLE = DEFAULT_AUDIT_TABLE_NAME;
const VENDOR = 'vendor-verify';
const VERIFICATION_KEYS = ['checkpoints', 'firstBroken', 'ok', 'records', 'streams', 'unsignedRecords'];

let h: Harness;
let db: DynamoDBClient;

beforeAll(async () => {
  h = await startHarness({ auditVerifyInlineRecords: INLINE });
  db = new DynamoDBClient({ endpoint: h.runtime.edge.url, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  await h.createVendors([{ id: VENDOR, scheduleOption: 1 }]);
  // Three versions of one vendor's policy: the vendor's stream has three records, more than INLINE.
  for (const release of [{ kind: 'at_max' }, { kind: 'after_payment', delay: 'P3D' }, { kind: 'immediate' }]) await h.setPolicy(VENDOR, release);
});

afterAll(async () => {
  db?.destroy();
  await h?.close();
});

async function item(pk: string, sequence: number): Promise<Record<string, AttributeValue>> {
  const { Items } = await db.send(new ScanCommand({ TableName: TABLE }));
  const found = (Items ?? []).find((i) => i.pk.S === pk && Number(i.sk.S) === sequence);
  if (!found) throw new Error(`no audit item ${pk} ${sequence}`);
  return found;
}

/** Starts a verification job and waits for it; the ended job. */
async function verification(): Promise<Record<string, any>> {
  const started = await h.api('POST', '/audit/verifications', { actor: 'auditor@example.com' });
  expect(started.status).toBe(202);
  expect(started.body.job).toMatchObject({ kind: 'audit_verify', actor: 'auditor@example.com', result: null });
  return jobEnded(h, started.body.job.jobId);
}

test('a verification job on a clean log succeeds; its result is the answer of GET /audit/verify, and its records are its progress', async () => {
  const job = await verification();
  expect(job).toMatchObject({ state: 'succeeded', failed: 0, error: null });
  expect(Object.keys(job.result).sort()).toEqual(VERIFICATION_KEYS);
  expect(job.result).toMatchObject({ ok: true, firstBroken: null, unsignedRecords: 0 });
  expect(job.result.records).toBeGreaterThanOrEqual(3);
  expect(job.result.checkpoints).toBeGreaterThanOrEqual(1);
  expect([job.total, job.done]).toEqual([job.result.records, job.result.records]);
  expect((await h.api('GET', '/jobs?kind=audit_verify')).body.items.map((j: { jobId: string }) => j.jobId)).toContain(job.jobId);
});

test('above HOLDBACK_AUDIT_VERIFY_INLINE_RECORDS signed records, GET /audit/verify answers 202 {job}; the job verifies the log', async () => {
  const answer = await h.api('GET', '/audit/verify');
  expect(answer.status).toBe(202);
  expect(answer.body.job).toMatchObject({ kind: 'audit_verify', state: 'queued', actor: 'api', result: null });
  const job = await jobEnded(h, answer.body.job.jobId);
  expect(job.state).toBe('succeeded');
  expect(job.result).toMatchObject({ ok: true, firstBroken: null });
});

test('a record deleted in the table is the job\'s first broken link; put back, the job verifies again', async () => {
  const deleted = await item(`vendor#${VENDOR}`, 2);
  await db.send(new DeleteItemCommand({ TableName: TABLE, Key: { pk: deleted.pk, sk: deleted.sk } }));
  try {
    const job = await verification();
    expect(job.state).toBe('succeeded');
    expect(job.result).toMatchObject({
      ok: false, firstBroken: { stream: `vendor#${VENDOR}`, sequence: 2, reason: 'missing: the stream goes from sequence 1 to 3 (a record was deleted)' },
    });
  } finally {
    await db.send(new PutItemCommand({ TableName: TABLE, Item: deleted }));
  }
  expect((await verification()).result).toMatchObject({ ok: true, firstBroken: null });
});

test('a record edited in the table is the job\'s first broken link', async () => {
  const original = await item(`vendor#${VENDOR}`, 1);
  await db.send(new UpdateItemCommand({
    TableName: TABLE, Key: { pk: original.pk, sk: original.sk },
    UpdateExpression: 'SET actor = :a', ExpressionAttributeValues: { ':a': { S: 'someone-else' } },
  }));
  try {
    expect((await verification()).result).toMatchObject({ ok: false, firstBroken: { stream: `vendor#${VENDOR}`, sequence: 1, reason: 'edited: the record no longer matches its hash' } });
  } finally {
    await db.send(new PutItemCommand({ TableName: TABLE, Item: original }));
  }
});

test('a bad body is a 400 naming the field, and no job starts; no body starts one as "api"', async () => {
  const before = (await h.api('GET', '/jobs?kind=audit_verify&limit=100')).body.items.length;
  const unknown = await h.api('POST', '/audit/verifications', { actor: 'auditor@example.com', from: '2022-12-01' });
  expect(unknown.status).toBe(400);
  expect(unknown.body.error.issues[0]).toMatchObject({ field: 'from', problem: 'is not a field of a verification' });
  const blank = await h.api('POST', '/audit/verifications', { actor: '  ' });
  expect(blank.status).toBe(400);
  expect(blank.body.error.issues[0].field).toBe('actor');
  expect((await h.api('GET', '/jobs?kind=audit_verify&limit=100')).body.items.length).toBe(before);

  const bare = await fetch(`${h.runtime.api.url}/audit/verifications`, { method: 'POST' });
  expect(bare.status).toBe(202);
  const job = ((await bare.json()) as { job: { jobId: string; actor: string } }).job;
  expect(job.actor).toBe('api');
  expect((await jobEnded(h, job.jobId)).state).toBe('succeeded');
});

test('the CLI\'s online `holdback audit verify` waits for the job and prints its result as the answer', async () => {
  const before = (await h.api('GET', '/jobs?kind=audit_verify&limit=100')).body.items.length;
  const { code, out, err } = await h.cli('audit', 'verify', '--json');
  expect(code).toBe(0);
  const printed = JSON.parse(out);
  expect(Object.keys(printed).sort()).toEqual(VERIFICATION_KEYS);
  expect(printed).toMatchObject({ ok: true, firstBroken: null });
  expect(err).toBe('');
  // It waited for the job that GET /audit/verify started (the progress bar is drawn on the terminal's stderr).
  const jobs = (await h.api('GET', '/jobs?kind=audit_verify&limit=100')).body.items;
  expect(jobs).toHaveLength(before + 1);
  expect(jobs[0]).toMatchObject({ state: 'succeeded', result: printed });
});
