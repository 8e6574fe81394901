/**
 * Audit log verification speed (issue 7: 1,000,000 records in at most 10 s): the verifier over records as the store
 * hands them (GET /audit/verify), and over JSON lines as the offline CLI reads an export. Runnable on its own:
 * `npx tsx bench/run.ts audit`.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { checkpointText, sealCheckpoint, type AuditCheckpoint } from '../functions/domain/audit/audit-checkpoints';
import { GENESIS_HASH, recordHash, type AuditRecord, type StreamHead } from '../functions/domain/audit/audit-records';
import { AuditVerifier } from '../functions/domain/audit/audit-verification';
import { recordLine } from '../functions/domain/audit/audit-export';
import { mergedLog } from '../functions/application/audit/audit-copy';
import type { AuditCopy, Dependencies, StoredAuditRecord } from '../functions/application/ports';

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

/** Records of the AWS path's run (GET /audit/verify over the write-once copy, compared with the table), held in memory as the copy's reader holds them. */
export const COPY_COMPARED_RECORDS = 200_000;

/**
 * GET /audit/verify on AWS (audit-copy.ts): the copy's records verified and the table's compared with them, with the
 * copy already read (S3's GETs are not in it) and the table's records handed over as the store hands them. The
 * checkpoints sign 1,000,000 heads; the records are the first COPY_COMPARED_RECORDS of them.
 */
async function runCopyCompared(checkpoints: AuditCheckpoint[], publicKey: KeyObject) {
  const records: AuditRecord[] = [];
  for (let first = 0; records.length < COPY_COMPARED_RECORDS; first += CHUNK_STREAMS) records.push(...chunkOf(first));
  records.length = COPY_COMPARED_RECORDS;
  const copy: AuditCopy = { read: async () => ({ records: records.map((r) => ({ ...r })), checkpoints, tampering: [], unreadable: [] }) };
  const table = {
    checkpoints: async () => checkpoints,
    records: async function* (): AsyncIterable<StoredAuditRecord> { for (const record of records) yield { record }; },
  };
  const heapBefore = process.memoryUsage().heapUsed;
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  // Signed heads beyond these records: verified as a partial log, so that only the work per record is counted.
  const verifier = new AuditVerifier({ publicKey, complete: false });
  const log = await mergedLog({ auditArchive: table } as unknown as Dependencies, copy);
  const heapRead = process.memoryUsage().heapUsed - heapBefore;
  for (const c of log.checkpoints) verifier.addCheckpoint(c);
  for await (const { record, problem } of log.records()) verifier.addRecord(record, problem);
  for (const { link, when } of log.findings) verifier.addFinding(link, when);
  const result = verifier.result();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  if (!result.ok || result.records !== COPY_COMPARED_RECORDS) throw new Error(`the bench copy did not verify: ${JSON.stringify(result)}`);
  const cpuSeconds = (used.user + used.system) / 1e6;
  return {
    records: COPY_COMPARED_RECORDS,
    seconds: Math.round(seconds * 100) / 100,
    cpuSeconds: Math.round(cpuSeconds * 100) / 100,
    recordsPerCpuSecond: Math.round(COPY_COMPARED_RECORDS / cpuSeconds),
    /** Heap taken by the copy read whole and its index, per record (bytes). */
    heapBytesPerRecord: Math.round(heapRead / COPY_COMPARED_RECORDS),
  };
}

export function auditVerificationLine(r: Awaited<ReturnType<typeof benchAuditVerification>>): string {
  return `audit verification: ${r.records.toLocaleString('en')} records in ${r.streams.toLocaleString('en')} streams and ${r.checkpoints} signed checkpoints in ${r.store.seconds} s `
    + `(${r.store.cpuSeconds} s of CPU) = ${r.store.recordsPerSecond}/s (goal ${AUDIT_GOAL_SECONDS} s); `
    + `offline from JSON lines ${r.offlineJsonLines.seconds} s (${r.offlineJsonLines.cpuSeconds} s of CPU) = ${r.offlineJsonLines.recordsPerSecond}/s; `
    + `on AWS, the copy compared with the table: ${r.copyCompared.records.toLocaleString('en')} records in ${r.copyCompared.seconds} s (${r.copyCompared.cpuSeconds} s of CPU, `
    + `${r.copyCompared.recordsPerCpuSecond}/CPU s), ${r.copyCompared.heapBytesPerRecord} bytes of heap a record read`;
}

export function auditVerificationTargets(r: Awaited<ReturnType<typeof benchAuditVerification>>) {
  return { auditVerificationSeconds: { target: AUDIT_GOAL_SECONDS, measured: r.store.seconds, met: r.store.seconds <= AUDIT_GOAL_SECONDS } };
}
