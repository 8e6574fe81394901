/**
 * The contracts of the AuditLog and AuditArchive ports (contract 6.2), run alike against the in-memory audit store the
 * use-case tests rely on and the DynamoDB audit store on a real dynalite: a fake that drifts from its adapter fails here.
 */
import type { AuditArchive, AuditEntry, AuditLog } from '../../functions/application/ports';
import { DynamoAuditStore } from '../../functions/adapters/dynamodb/audit-store';
import { DEFAULT_AUDIT_TABLE_NAME } from '../../functions/definitions/tables';
import type { AuditCheckpoint } from '../../functions/domain/audit/audit-checkpoints';
import { GENESIS_HASH } from '../../functions/domain/audit/audit-format';
import type { AuditRecord } from '../../functions/domain/audit/audit-records';
import { InMemoryAuditStore } from '../fakes/audit';
import { FakeClock } from '../fakes/clock';
import { RecordingLogger } from '../fakes/outside-world';
import { describeEachSubject, inMemory, onDynalite, type Subjects } from './subjects';
import { at } from '../times';

type Store = AuditLog & AuditArchive;

// One clock per subject, moved by the tests: records are stamped with it.
const SUBJECTS: Subjects<{ store: Store; clock: FakeClock }> = [
  ['the in-memory audit store', inMemory(() => {
    const clock = new FakeClock('2022-12-02T16:00:00+05:30');
    return { clock, store: new InMemoryAuditStore(clock) };
  })],
  ['the DynamoDB audit store', onDynalite((local) => {
    const clock = new FakeClock('2022-12-02T16:00:00+05:30');
    return { clock, store: new DynamoAuditStore(local.doc, DEFAULT_AUDIT_TABLE_NAME, clock, new RecordingLogger()) };
  })],
];

const attempt = (orderId: string, n: number): AuditEntry => ({
  kind: 'gateway_attempt', at: at('2022-12-02T16:00:00+05:30'), orderId, vendorId: 'vendor_1', detail: { request: '2022-12-05 10:00:00', status: 'OK', n },
});
const hold = (vendorId: string): AuditEntry => ({ kind: 'hold', at: at('2022-12-02T16:00:00+05:30'), actor: 'risk@example.com', vendorId, detail: { reason: 'fraud review' } });
const settings: AuditEntry = { kind: 'settings_changed', at: at('2022-12-02T16:00:00+05:30'), actor: 'finance@example.com', principal: 'local:unauthenticated', detail: { version: 1 } };

const checkpoint = (number: number, at: string): AuditCheckpoint => ({
  number, at, coveredUntil: at, previousHash: GENESIS_HASH, heads: [{ stream: 'config', sequence: 1, hash: 'a'.repeat(64) }],
  root: 'b'.repeat(64), version: 2, algorithm: 'Ed25519', keyId: 'local-key', hash: String(number).repeat(64).slice(0, 64), signature: 'c2lnbmF0dXJl',
});

const heads = (records: AuditRecord[]) => records.map((r) => [r.stream, r.sequence]);

describeEachSubject(SUBJECTS, (subject) => {

  test('each entry goes to its stream (the order\'s, else the vendor\'s, else the configuration\'s), chained from sequence 1', async () => {
    const { store } = subject();
    await store.append([attempt('order_1', 1), hold('vendor_9'), settings, attempt('order_1', 2)]);
    await store.append([attempt('order_1', 3)]);
    const order = await store.streamRecords('order#order_1');
    expect(order.map((r) => [r.sequence, r.detail.n, r.kind])).toEqual([[1, 1, 'gateway_attempt'], [2, 2, 'gateway_attempt'], [3, 3, 'gateway_attempt']]);
    expect(order[0].prevHash).toBe(GENESIS_HASH);
    expect(order[1].prevHash).toBe(order[0].hash);
    expect(order[2].prevHash).toBe(order[1].hash);
    expect(await store.streamRecords('vendor#vendor_9')).toEqual([expect.objectContaining({ stream: 'vendor#vendor_9', sequence: 1, kind: 'hold', actor: 'risk@example.com' })]);
    expect(await store.streamRecords('config')).toEqual([expect.objectContaining({ sequence: 1, kind: 'settings_changed', principal: 'local:unauthenticated' })]);
    expect(await store.streamRecords('order#never')).toEqual([]);
    expect(await store.streamRecordsFrom('order#order_1', 2)).toEqual(order.slice(1));
    expect(await store.flushPending()).toBe(0);
  });

  test('every record, each stream in sequence order, bounded by when it was recorded; the heads of the streams that moved', async () => {
    const { store, clock } = subject();
    await store.append([attempt('order_1', 1), settings]);
    clock.advance({ days: 1 });
    await store.append([attempt('order_1', 2), attempt('order_2', 1)]);
    const all: AuditRecord[] = [];
    for await (const { record, problem } of store.records()) {
      expect(problem).toBeUndefined();
      all.push(record);
    }
    const byStream = (records: AuditRecord[]) => [...records].sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
    expect(heads(byStream(all))).toEqual([['config', 1], ['order#order_1', 1], ['order#order_1', 2], ['order#order_2', 1]]);
    expect(all.map((r) => r.recordedAt).sort()).toEqual(['2022-12-02T10:30:00.000Z', '2022-12-02T10:30:00.000Z', '2022-12-03T10:30:00.000Z', '2022-12-03T10:30:00.000Z']);
    const since: AuditRecord[] = [];
    for await (const { record } of store.records({ from: '2022-12-03T00:00:00.000Z' })) since.push(record);
    expect(heads(byStream(since))).toEqual([['order#order_1', 2], ['order#order_2', 1]]);
    const until: AuditRecord[] = [];
    for await (const { record } of store.records({ to: '2022-12-02T10:30:00.000Z' })) until.push(record);
    expect(heads(byStream(until))).toEqual([['config', 1], ['order#order_1', 1]]);

    const order1 = await store.streamRecords('order#order_1');
    const sortHeads = (list: { stream: string }[]) => [...list].sort((a, b) => (a.stream < b.stream ? -1 : 1));
    expect(sortHeads(await store.headsRecordedSince('2022-12-03T00:00:00.000Z'))).toEqual([
      { stream: 'order#order_1', sequence: 2, hash: order1[1].hash },
      { stream: 'order#order_2', sequence: 1, hash: (await store.streamRecords('order#order_2'))[0].hash },
    ]);
    expect((await store.headsRecordedSince(null)).map((h) => h.stream).sort()).toEqual(['config', 'order#order_1', 'order#order_2']);
    expect(await store.headsRecordedSince('2022-12-04T00:00:00.000Z')).toEqual([]);
  });

  test('checkpoints: a number is taken once; read by number, in number order since an instant, and newest first', async () => {
    const { store } = subject();
    expect(await store.putCheckpoint(checkpoint(1, '2022-12-02T10:30:00.000Z'))).toBe(true);
    expect(await store.putCheckpoint(checkpoint(2, '2022-12-03T10:30:00.000Z'))).toBe(true);
    expect(await store.putCheckpoint({ ...checkpoint(2, '2022-12-04T10:30:00.000Z'), signature: 'b3RoZXI=' })).toBe(false);
    expect(await store.putCheckpoint(checkpoint(3, '2022-12-04T10:30:00.000Z'))).toBe(true);
    expect(await store.checkpoint(2)).toEqual(checkpoint(2, '2022-12-03T10:30:00.000Z'));
    expect(await store.checkpoint(9)).toBeNull();
    expect((await store.checkpoints()).map((c) => c.number)).toEqual([1, 2, 3]);
    expect((await store.checkpoints('2022-12-03T10:30:00.000Z')).map((c) => c.number)).toEqual([2, 3]);
    expect((await store.latestCheckpoints(2)).map((c) => c.number)).toEqual([3, 2]);
  });

  test('signed heads only move forward; the records they account for are the sum of their sequences', async () => {
    const { store } = subject();
    expect(await store.signedHeads(['config'])).toEqual(new Map());
    expect(await store.signedRecordsUpTo(100)).toBe(0);
    await store.putSignedHeads([{ stream: 'config', sequence: 2, hash: 'a'.repeat(64) }, { stream: 'order#order_1', sequence: 5, hash: 'b'.repeat(64) }], 1);
    await store.putSignedHeads([{ stream: 'config', sequence: 1, hash: 'c'.repeat(64) }, { stream: 'order#order_1', sequence: 6, hash: 'd'.repeat(64) }], 2);
    expect(await store.signedHeads(['config', 'order#order_1', 'order#none'])).toEqual(new Map([
      ['config', { stream: 'config', sequence: 2, hash: 'a'.repeat(64), checkpoint: 1 }],
      ['order#order_1', { stream: 'order#order_1', sequence: 6, hash: 'd'.repeat(64), checkpoint: 2 }],
    ]));
    expect(await store.signedRecordsUpTo(100)).toBe(8);
  });
});
