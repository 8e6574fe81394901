/**
 * Audit log verification speed (issue 7: 1,000,000 records in at most 10 s): the verifier over records as the store
 * hands them (GET /audit/verify), and over JSON lines as the offline CLI reads an export. Runnable on its own:
 * `npx tsx bench/run.ts audit`.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { checkpointText, sealCheckpoint, type AuditCheckpoint } from '../functions/domain/audit/audit-checkpoints';
import { GENESIS_HASH, recordHash, type AuditRecord, type StreamHead } from '../functions/domain/audit/audit-records';
import { AuditVerifier } from '../functions/domain/audit/audit-verification';
import { checkpointLine, recordLine } from '../functions/domain/audit/audit-export';
import { copyVerifyStep, type CopyVerifyState, type CopyVerifyStep } from '../functions/application/audit/copy-steps';
import type { Dependencies, StoredAuditRecord } from '../functions/application/ports';
import type { AuditVerification } from '../functions/domain/audit/audit-verification';
import { S3AuditCopy } from '../functions/adapters/s3/audit-archive-read';
import { startLocalS3 } from '../local/edge/s3';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3Requests } from '../functions/adapters/s3/s3-requests';
import { loadavg } from 'node:os';

export const AUDIT_RECORDS = 1_000_000;
export const AUDIT_GOAL_SECONDS = 10;
/** An order's story: a planning decision, an attempt with request and answer, an applied state, a settlement... */
const RECORDS_PER_STREAM = 10;
/** Records generated (untimed) and then verified (timed) at a time, so the heap never holds the whole log. */
const CHUNK_STREAMS = 5_000;

function* streamRecords(index: number): Generator<AuditRecord> {
  const stream = `order#bench_order_${index}`;
  let prevHash = GENESIS_HASH;
  for (let sequence = 1; sequence <= RECORDS_PER_STREAM; sequence++) {
    const unsealed = {
      stream, sequence, prevHash, kind: sequence === 2 ? 'gateway_attempt' : 'planned', at: '2022-12-02T16:05:00+05:30', actor: 'holdback',
      orderId: `bench_order_${index}`, vendorId: 'bench-v1', recordedAt: '2022-12-02T10:35:00.000Z',
      // Keys in order, as every sealed record's detail is (sealRecords stores its canonical form).
      detail: {
        answer: { httpStatus: 200, message: 'Updated vendor settlement eligibility date', status: 'OK', subCode: '200' },
        attempt: sequence, request: { at: '2022-12-02T16:05:00+05:30', eligibility: '2022-12-02 16:06:00' }, send: 1,
      },
    };
    const record = { ...unsealed, hash: recordHash(unsealed) };
    prevHash = record.hash;
    yield record;
  }
}

function chunkOf(first: number): AuditRecord[] {
  const records: AuditRecord[] = [];
  for (let s = first; s < first + CHUNK_STREAMS; s++) for (const r of streamRecords(s)) records.push(r);
  return records;
}

export async function benchAuditVerification() {
  const streams = AUDIT_RECORDS / RECORDS_PER_STREAM;
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  // Checkpoints signing every stream's head, 1,000 heads each, chained (generated untimed: they need every hash).
  const heads: StreamHead[] = [];
  for (let s = 0; s < streams; s++) {
    let last: AuditRecord | null = null;
    for (const r of streamRecords(s)) last = r;
    heads.push({ stream: last!.stream, sequence: last!.sequence, hash: last!.hash });
  }
  const checkpoints: AuditCheckpoint[] = [];
  for (let i = 0; i < heads.length; i += 1_000) {
    const sealed = sealCheckpoint(checkpoints[checkpoints.length - 1] ?? null, {
      at: '2022-12-02T10:36:00.000Z', coveredUntil: '2022-12-02T10:36:00.000Z', heads: heads.slice(i, i + 1_000), algorithm: 'Ed25519', keyId: 'ed25519:bench',
    });
    checkpoints.push({ ...sealed, signature: sign(null, Buffer.from(checkpointText(sealed)), privateKey).toString('base64') });
  }

  const run = (asLines: boolean) => {
    const verifier = new AuditVerifier({ publicKey, complete: true });
    // Wall time, and the CPU time of this thread: on a shared machine the first says how loaded it was.
    let timedNs = 0n;
    let cpuMicros = 0;
    let started = process.hrtime.bigint();
    let cpu = process.cpuUsage();
    const stop = (): void => {
      timedNs += process.hrtime.bigint() - started;
      const used = process.cpuUsage(cpu);
      cpuMicros += used.user + used.system;
    };
    const go = (): void => {
      started = process.hrtime.bigint();
      cpu = process.cpuUsage();
    };
    for (const c of checkpoints) verifier.addCheckpoint(c);
    stop();
    for (let first = 0; first < streams; first += CHUNK_STREAMS) {
      const records = chunkOf(first);
      const lines = asLines ? records.map(recordLine) : null;
      go();
      if (lines) {
        for (const line of lines) {
          const { type: _type, ...record } = JSON.parse(line) as AuditRecord & { type: string };
          verifier.addRecord(record);
        }
      } else {
        for (const record of records) verifier.addRecord(record);
      }
      stop();
    }
    go();
    const result = verifier.result();
    stop();
    if (!result.ok || result.records !== AUDIT_RECORDS) throw new Error(`the bench log did not verify: ${JSON.stringify(result)}`);
    const seconds = Number(timedNs) / 1e9;
    const cpuSeconds = cpuMicros / 1e6;
    return {
      seconds: Math.round(seconds * 100) / 100,
      recordsPerSecond: Math.round(AUDIT_RECORDS / seconds),
      cpuSeconds: Math.round(cpuSeconds * 100) / 100,
      recordsPerCpuSecond: Math.round(AUDIT_RECORDS / cpuSeconds),
    };
  };
  const store = run(false);
  const offline = run(true);
  const copyCompared = await runCopyCompared(checkpoints, publicKey);
  return { records: AUDIT_RECORDS, streams, checkpoints: checkpoints.length, store, offlineJsonLines: offline, copyCompared };
}

/** Records of the AWS path's run (the write-once copy through the local S3, compared with a table in memory). */
export const COPY_COMPARED_RECORDS = 100_000;
/** Records an object of the copy holds: a busy shard's minute (the copier writes at most 1,000). */
const COPY_OBJECT_RECORDS = 250;

/**
 * GET /audit/verify's job on AWS (copy-steps.ts), its steps one after the other with the state handed over as JSON (as
 * the queue carries it): the copy written as the copier lays it out (`log/<day>/...`, each order's records over ten
 * days, COPY_OBJECT_RECORDS a object, the checkpoints in objects of their own) into the local write-once S3 and read
 * back through the S3 SDK; the table in memory, so that what is measured is the copy's reading and the comparison.
 * Heap: the most a step held above the heap after the step before (garbage collected before each step).
 */
async function runCopyCompared(allCheckpoints: AuditCheckpoint[], publicKey: KeyObject) {
  const streams = COPY_COMPARED_RECORDS / RECORDS_PER_STREAM;
  const byStream = new Map<string, AuditRecord[]>();
  for (let s = 0; s < streams; s++) { const list = [...streamRecords(s)]; byStream.set(list[0].stream, list); }
  // The checkpoints that sign these streams only (each signs 1,000 heads, in stream order).
  const checkpoints = allCheckpoints.slice(0, streams / 1_000);
  const s3 = await startLocalS3({ copy: { writeOnce: true } });
  const client = new S3Client({ endpoint: s3.url, region: 'ap-south-1', forcePathStyle: true, credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } });
  try {
    const names = [...byStream.keys()];
    let objects = 0;
    const put = (key: string, lines: string[]) => client.send(new PutObjectCommand({ Bucket: 'copy', Key: key, Body: lines.join(''), IfNoneMatch: '*' }));
    for (let sequence = 1; sequence <= RECORDS_PER_STREAM; sequence++) {
      for (let i = 0; i < names.length; i += COPY_OBJECT_RECORDS) {
        const lines = names.slice(i, i + COPY_OBJECT_RECORDS).map((name) => `${recordLine(byStream.get(name)![sequence - 1])}\n`);
        await put(`log/2022-12-${String(sequence).padStart(2, '0')}/ev${String(++objects).padStart(6, '0')}.ndjson`, lines);
      }
    }
    for (const c of checkpoints) await put(`log/2022-12-11/cp${String(++objects).padStart(6, '0')}.ndjson`, [`${checkpointLine(c)}\n`]);
    const ordered = [...byStream.values()].flat();
    const table = {
      latestCheckpoints: async (limit: number) => checkpoints.slice(-limit).reverse(),
      checkpoints: async () => checkpoints,
      checkpoint: async (n: number) => checkpoints.find((c) => c.number === n) ?? null,
      recordsAt: async (places: { stream: string; sequence: number }[]) => places.flatMap((p) => { const r = byStream.get(p.stream)?.[p.sequence - 1]; return r ? [{ record: r }] : []; }),
      streamRecordsFrom: async (stream: string, from: number) => (byStream.get(stream) ?? []).filter((r) => r.sequence >= from),
      records: async function* (_range: unknown, after: string | null): AsyncIterable<StoredAuditRecord> {
        for (let i = after === null ? 0 : Number(after) + 1; i < ordered.length; i++) yield { record: ordered[i], position: String(i) };
      },
    };
    const deps = { auditArchive: table } as unknown as Dependencies;
    const copy = new S3AuditCopy(new S3Requests({ endpoint: s3.url, region: 'ap-south-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } }), 'copy');
    const options = { publicKeys: new Map([['ed25519:bench', publicKey]]), complete: true };
    const gc = (globalThis as { gc?: () => void }).gc;
    let state: CopyVerifyState | null = null;
    let steps = 0;
    let stateBytes = 0;
    let heapPeak = 0;
    let result: AuditVerification | null = null;
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    while (!result) {
      gc?.();
      const before = process.memoryUsage().heapUsed;
      const step: CopyVerifyStep = await copyVerifyStep(deps, copy, options, state);
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed - before);
      steps += 1;
      if (step.verification) result = step.verification;
      else {
        const text = JSON.stringify(step.next);
        stateBytes = Math.max(stateBytes, Buffer.byteLength(text));
        state = JSON.parse(text) as CopyVerifyState;
      }
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    if (!result.ok || result.records !== COPY_COMPARED_RECORDS) throw new Error(`the bench copy did not verify: ${JSON.stringify(result)}`);
    const cpuSeconds = (used.user + used.system) / 1e6;
    return {
      records: COPY_COMPARED_RECORDS,
      objects,
      steps,
      seconds: Math.round(seconds * 100) / 100,
      recordsPerSecond: Math.round(COPY_COMPARED_RECORDS / seconds),
      cpuSeconds: Math.round(cpuSeconds * 100) / 100,
      recordsPerCpuSecond: Math.round(COPY_COMPARED_RECORDS / cpuSeconds),
      /** The most heap a step held above the one before (MB; without --expose-gc, garbage included). */
      heapMbAStep: Math.round(heapPeak / 1e5) / 10,
      /** The largest state handed to the next step (bytes; a queue message holds 256 KB). */
      stateBytes,
      loadAverage: Math.round(loadavg()[0] * 10) / 10,
    };
  } finally {
    client.destroy();
    await s3.close();
  }
}

export function auditVerificationLine(r: Awaited<ReturnType<typeof benchAuditVerification>>): string {
  return `audit verification: ${r.records.toLocaleString('en')} records in ${r.streams.toLocaleString('en')} streams and ${r.checkpoints} signed checkpoints in ${r.store.seconds} s `
    + `(${r.store.cpuSeconds} s of CPU) = ${r.store.recordsPerSecond}/s (goal ${AUDIT_GOAL_SECONDS} s); `
    + `offline from JSON lines ${r.offlineJsonLines.seconds} s (${r.offlineJsonLines.cpuSeconds} s of CPU) = ${r.offlineJsonLines.recordsPerSecond}/s; `
    + `on AWS, the copy in steps through the local S3: ${r.copyCompared.records.toLocaleString('en')} records in ${r.copyCompared.objects} objects, ${r.copyCompared.steps} steps, `
    + `${r.copyCompared.seconds} s = ${r.copyCompared.recordsPerSecond}/s (${r.copyCompared.cpuSeconds} s of CPU, ${r.copyCompared.recordsPerCpuSecond}/CPU s), `
    + `at most ${r.copyCompared.heapMbAStep} MB of heap a step, a state of at most ${r.copyCompared.stateBytes} B, load ${r.copyCompared.loadAverage}`;
}

export function auditVerificationTargets(r: Awaited<ReturnType<typeof benchAuditVerification>>) {
  return { auditVerificationSeconds: { target: AUDIT_GOAL_SECONDS, measured: r.store.seconds, met: r.store.seconds <= AUDIT_GOAL_SECONDS } };
}
