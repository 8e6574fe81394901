/** The audit log on a real dynalite: conditional appends, lost races, entries kept when appends fail, checkpoints, verification. */
import { DynamoAuditStore, PENDING_PK, sequenceKey, timeIndexKeys } from '../../functions/adapters/dynamodb/audit-store';
import { DocumentClient, type PutInput, type QueryInput } from '../../functions/adapters/dynamodb/document-client';
import { DEFAULT_AUDIT_TABLE_NAME } from '../../functions/definitions/tables';
import { Ed25519AuditKey } from '../../functions/adapters/audit-key/ed25519-audit-key';
import { verifyAuditLog } from '../../functions/application/audit/audit-log-views';
import { writeAuditCheckpoint, maintainAuditLog } from '../../functions/application/audit/maintain-audit-log';
import type { AuditEntry, Dependencies } from '../../functions/application/ports';
import { RecordingLogger } from '../fakes/outside-world';
import { recordHash } from '../../functions/domain/audit/audit-records';
import { withLocalDynamo } from './local-dynamodb';
import { Instant } from '../../functions/domain/instant';
import { at } from '../times';

const TABLE = DEFAULT_AUDIT_TABLE_NAME;
const clock = { now: () => Instant.parse('2022-12-02T16:00:00+05:30', 'now') };

const entry = (orderId: string, n: number): AuditEntry => ({
  kind: 'gateway_attempt', at: at('2022-12-02T16:00:00+05:30'), orderId, vendorId: 'vendor_1',
  detail: { request: '2022-12-05 10:00:00', status: 'OK', n },
});

/** The few dependencies the audit use cases read, around a real store. */
function auditDeps(store: DynamoAuditStore, key = Ed25519AuditKey.inMemory(), logger = new RecordingLogger()): Dependencies {
  return { clock, logger, audit: store, auditArchive: store, auditKey: key } as unknown as Dependencies;
}

/** A document client whose record puts fail (as a throttled or unreachable table would) while `failing` is set. */
class FlakyDocumentClient extends DocumentClient {
  failing = true;
  override async put(input: PutInput) {
    if (this.failing && String(input.Item.pk).startsWith('order#')) throw Object.assign(new Error('ProvisionedThroughputExceeded'), { name: 'ProvisionedThroughputExceededException' });
    return super.put(input);
  }
}

test('appends chain each stream; a writer continuing with a stale head loses the race, re-reads and appends after the winner', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const first = new DynamoAuditStore(doc, TABLE, clock, new RecordingLogger());
    const second = new DynamoAuditStore(doc, TABLE, clock, new RecordingLogger());
    await first.append([entry('order_1', 1), entry('order_2', 1), { kind: 'settings_changed', at: at('2022-12-02T16:00:00+05:30'), actor: 'finance', detail: { version: 1 } }]);
    await second.append([entry('order_1', 2)]); // second now remembers head 2
    // first remembers head 1 and says it continues: loses the race on 2, re-reads, writes 3
    await first.append([entry('order_1', 3)], { continuingOrders: ['order_1'] });
    await second.append([entry('order_1', 4), entry('order_1', 5)], { continuingOrders: ['order_1'] }); // thinks 2: loses on 3, writes 4 and 5
    const records = await first.streamRecords('order#order_1');
    expect(records.map((r) => [r.sequence, r.detail.n])).toEqual([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]]);
    expect(records[3].prevHash).toBe(records[2].hash);
    expect((await first.streamRecords('config'))[0]).toMatchObject({ kind: 'settings_changed', actor: 'finance', sequence: 1 });
    expect(await verifyAuditLog(auditDeps(first))).toEqual({ ok: true, records: 7, streams: 3, checkpoints: 1, firstBroken: null, unsignedRecords: 0 });
  });
});

/** A document client that counts the queries (a stream's head is read by one). */
class CountingDocumentClient extends DocumentClient {
  queries = 0;
  override async query(input: QueryInput) {
    this.queries += 1;
    return super.query(input);
  }
}

test('a stream the caller names as new is appended without reading its head; a wrong guess still chains after the real head', async () => {
  await withLocalDynamo(async ({ client }) => {
    const doc = new CountingDocumentClient(client);
    const store = new DynamoAuditStore(doc, TABLE, clock, new RecordingLogger());
    await store.append([entry('order_new', 1), entry('order_new', 2)], { newOrders: ['order_new'] });
    expect(doc.queries).toBe(0);
    // Another container (no head remembered) wrongly names a stream that has records: the put of sequence 1 is refused,
    // the head is read, and the records follow it.
    const other = new DynamoAuditStore(doc, TABLE, clock, new RecordingLogger());
    await other.append([entry('order_new', 3)], { newOrders: ['order_new'] });
    expect(doc.queries).toBeGreaterThan(0);
    const records = await store.streamRecords('order#order_new');
    expect(records.map((r) => [r.sequence, r.detail.n])).toEqual([[1, 1], [2, 2], [3, 3]]);
    expect(records[2].prevHash).toBe(records[1].hash);
    // Without the hint, an unknown head is read first.
    const before = doc.queries;
    await new DynamoAuditStore(doc, TABLE, clock, new RecordingLogger()).append([entry('order_other', 1)]);
    expect(doc.queries).toBe(before + 1);
    expect((await verifyAuditLog(auditDeps(store))).ok).toBe(true);
  });
});

/** A document client that counts the record puts the table refused (a stale head's lost race, billed a write unit). */
class RefusalCountingClient extends CountingDocumentClient {
  refused = 0;
  override async put(input: PutInput) {
    try {
      return await super.put(input);
    } catch (error) {
      if ((error as { name?: string }).name === 'ConditionalCheckFailedException') this.refused += 1;
      throw error;
    }
  }
}

test('a head another container may have moved is read before the put (no refused put); one this caller continues is not read', async () => {
  await withLocalDynamo(async ({ client }) => {
    const doc = new RefusalCountingClient(client);
    const orderEvents = new DynamoAuditStore(doc, TABLE, clock, new RecordingLogger());
    const release = new DynamoAuditStore(doc, TABLE, clock, new RecordingLogger());
    await orderEvents.append([entry('order_x', 1)], { newOrders: ['order_x'] }); // remembers head 1
    await release.append([entry('order_x', 2)]); // the send's record: the head is read (1 query)
    expect([doc.queries, doc.refused]).toEqual([1, 0]);
    await release.append([entry('order_x', 3)], { continuingOrders: ['order_x'] }); // its answer: no read
    expect([doc.queries, doc.refused]).toEqual([1, 0]);
    // The order's next event in the first container: its remembered head (1) is stale; it reads instead of guessing.
    await orderEvents.append([entry('order_x', 4)]);
    expect([doc.queries, doc.refused]).toEqual([2, 0]);
    // Appends of one stream queued in one container: each after the head the one before it left, without a read.
    await Promise.all([release.append([entry('order_x', 5)]), release.append([entry('order_x', 6)]), release.append([entry('order_x', 7)])]);
    expect([doc.queries, doc.refused]).toEqual([3, 0]);
    const records = await release.streamRecords('order#order_x');
    expect(records.map((r) => [r.sequence, r.detail.n])).toEqual([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [6, 6], [7, 7]]);
    expect((await verifyAuditLog(auditDeps(release))).ok).toBe(true);
  });
});

test('a send\'s record leaves the time index entry to its answer\'s, which the checkpoint signs with both', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const store = new DynamoAuditStore(doc, TABLE, clock, new RecordingLogger());
    const item = async (sequence: number) => (await doc.get({ TableName: TABLE, Key: { pk: 'order#order_send', sk: sequenceKey(sequence) } }))!;
    await store.append([entry('order_send', 1)], { newOrders: ['order_send'] });
    await store.append([entry('order_send', 2)], { indexedLater: ['order_send'] });
    expect((await item(1)).timePk).toBeDefined();
    expect((await item(2)).timePk).toBeUndefined();
    // Until the answer comes, a checkpoint signs the head the index shows.
    const deps = auditDeps(store);
    expect((await writeAuditCheckpoint(deps)).heads).toBe(1);
    await store.append([entry('order_send', 3)], { continuingOrders: ['order_send'] });
    const answer = await item(3);
    expect([answer.timePk, answer.timeSk]).toEqual(Object.values(timeIndexKeys({ stream: 'order#order_send', sequence: 3, recordedAt: answer.recordedAt as string })));
    await writeAuditCheckpoint(deps);
    const [latest] = await store.latestCheckpoints(1);
    expect(latest.heads).toEqual([{ stream: 'order#order_send', sequence: 3, hash: answer.hash }]);
    expect(await verifyAuditLog(deps)).toMatchObject({ ok: true, records: 3, unsignedRecords: 0 });
  });
});

test('twenty concurrent appends to one stream give twenty sequences without a gap', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const stores = Array.from({ length: 4 }, () => new DynamoAuditStore(doc, TABLE, clock, new RecordingLogger()));
    await Promise.all(Array.from({ length: 20 }, (_, i) => stores[i % 4].append([entry('order_hot', i)])));
    const records = await stores[0].streamRecords('order#order_hot');
    expect(records.map((r) => r.sequence)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(records.map((r) => r.detail.n)).size).toBe(20);
    expect((await verifyAuditLog(auditDeps(stores[0]))).ok).toBe(true);
  });
});

test('an append that keeps failing never throws: its entries are kept as a pending item and appended by the next flush', async () => {
  await withLocalDynamo(async ({ doc, client }) => {
    const flaky = new FlakyDocumentClient(client);
    const logger = new RecordingLogger();
    const store = new DynamoAuditStore(flaky, TABLE, clock, logger);
    await expect(store.append([entry('order_1', 1), entry('order_1', 2)])).resolves.toBeUndefined();
    const pending = await doc.query({ TableName: TABLE, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': PENDING_PK } });
    expect(pending.items).toHaveLength(1);
    expect(pending.items[0].entries).toHaveLength(2);
    expect(logger.lines.some((l) => l.level === 'warn' && l.message === 'audit entries kept for a later append')).toBe(true);
    flaky.failing = false;
    expect(await maintainAuditLog(auditDeps(store))).toMatchObject({ appended: 2, checkpoint: { written: [1] } });
    expect((await store.streamRecords('order#order_1')).map((r) => r.detail.n)).toEqual([1, 2]);
    expect((await doc.query({ TableName: TABLE, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': PENDING_PK } })).items).toHaveLength(0);
  });
});

test('checkpoints sign the streams that moved since the last one, chained; a deleted head and an edited item are reported', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const store = new DynamoAuditStore(doc, TABLE, clock, new RecordingLogger());
    const deps = auditDeps(store);
    await store.append([entry('order_1', 1), entry('order_1', 2), entry('order_2', 1)]);
    // Only each stream's last record of an append call is on the time index (one index write per call and stream):
    // the checkpoint needs the head, and the chain binds the records before it.
    const indexed = async (pk: string, seq: number) => 'timePk' in (await doc.get({ TableName: TABLE, Key: { pk, sk: sequenceKey(seq) } }))!;
    expect([await indexed('order#order_1', 1), await indexed('order#order_1', 2), await indexed('order#order_2', 1)]).toEqual([false, true, true]);
    expect(await writeAuditCheckpoint(deps)).toEqual({ written: [1], heads: 2, refused: [] });
    expect((await store.latestCheckpoints(1))[0].heads.map((h) => [h.stream, h.sequence])).toEqual([['order#order_1', 2], ['order#order_2', 1]]);
    expect(await writeAuditCheckpoint(deps)).toEqual({ written: [], heads: 0, refused: [] }); // nothing moved
    await store.append([entry('order_2', 2)]);
    expect(await writeAuditCheckpoint(deps)).toEqual({ written: [2], heads: 1, refused: [] });
    const [second, first] = await store.latestCheckpoints(2);
    expect(second.previousHash).toBe(first.hash);
    expect(second.heads).toEqual([{ stream: 'order#order_2', sequence: 2, hash: (await store.streamRecords('order#order_2'))[1].hash }]);

    // The last record of order_1 is deleted: no gap shows, but checkpoint 1 signed sequence 2.
    const key = { pk: 'order#order_1', sk: sequenceKey(2) };
    const deleted = (await doc.get({ TableName: TABLE, Key: key }))!;
    await doc.delete({ TableName: TABLE, Key: key });
    expect((await verifyAuditLog(deps)).firstBroken).toEqual({ stream: 'order#order_1', sequence: 2, reason: 'missing: checkpoint 1 signed sequence 2, the stream ends at 1 (records were deleted from its end)' });
    await doc.put({ TableName: TABLE, Item: deleted });
    expect((await verifyAuditLog(deps)).ok).toBe(true);

    // An attribute added to a record is an edit too, though the hashed fields are untouched.
    await store.append([entry('order_3', 1)]);
    await doc.update({ TableName: TABLE, Key: { pk: 'order#order_3', sk: sequenceKey(1) }, UpdateExpression: 'SET note = :n', ExpressionAttributeValues: { ':n': 'x' } });
    expect((await verifyAuditLog(deps)).firstBroken).toEqual({ stream: 'order#order_3', sequence: 1, reason: 'edited: attributes note were added to the record' });
  });
});

test('signed heads only grow: a stream rewritten below its signed head (re-hashed, one record appended) is not signed; the writer logs an error, verification names it', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const logger = new RecordingLogger();
    const store = new DynamoAuditStore(doc, TABLE, clock, logger);
    const deps = auditDeps(store, Ed25519AuditKey.inMemory(), logger);
    await store.append([entry('order_5', 1), entry('order_5', 2), entry('order_6', 1)]);
    expect(await writeAuditCheckpoint(deps)).toMatchObject({ written: [1], heads: 2, refused: [] });
    // Sequence 1 edited, 2 re-hashed onto it, 3 appended onto the forged head: a consistent chain that does not extend.
    const [one, two] = await store.streamRecords('order#order_5');
    const forgedOne = { ...one, actor: 'mallory' };
    forgedOne.hash = recordHash(forgedOne);
    const forgedTwo = { ...two, prevHash: forgedOne.hash };
    forgedTwo.hash = recordHash(forgedTwo);
    const three = { ...forgedTwo, sequence: 3, prevHash: forgedTwo.hash };
    three.hash = recordHash(three);
    for (const record of [forgedOne, forgedTwo, three]) {
      // As the writer stores them: the last record of the append on the time index.
      await doc.put({ TableName: TABLE, Item: { pk: record.stream, sk: sequenceKey(record.sequence), ...record, ...(record.sequence > 1 ? timeIndexKeys(record) : {}) } });
    }
    await store.append([entry('order_6', 2)]);
    const result = await writeAuditCheckpoint(deps);
    expect(result.refused).toEqual([{ stream: 'order#order_5', reason: 'the record at sequence 2 is not the one signed before: the stream no longer extends the head checkpoints signed (sequence 2)' }]);
    expect(result.heads).toBe(1); // order_6 moved and is signed; order_5 is not
    expect((await store.latestCheckpoints(1))[0].heads.map((h) => h.stream)).toEqual(['order#order_6']);
    expect(logger.lines).toContainEqual({ level: 'error', message: 'audit stream not signed: its records were changed below its signed head', fields: { stream: 'order#order_5', reason: result.refused[0].reason } });
    // Asked again, it still refuses (and raises the alarm again); verification reports the stream at the signed head.
    expect((await writeAuditCheckpoint(deps)).refused).toHaveLength(1);
    expect((await verifyAuditLog(deps)).firstBroken).toEqual({ stream: 'order#order_5', sequence: 2, reason: 'edited: checkpoint 1 signed another hash for this record' });
  });
});

/** A document client that notes every put it sends (the writes still go to dynalite). */
class RecordingPuts extends FlakyDocumentClient {
  readonly puts: PutInput[] = [];
  override async put(input: PutInput) {
    this.puts.push(input);
    return super.put(input);
  }
}

test('every put on the audit table is conditional: a taken checkpoint number or record is never overwritten, a pointer never moves back', async () => {
  await withLocalDynamo(async ({ doc, client }) => {
    const recording = new RecordingPuts(client);
    const store = new DynamoAuditStore(recording, TABLE, clock, new RecordingLogger());
    await store.append([entry('order_c', 1), entry('order_c', 2)]); // failing: kept as pending
    recording.failing = false;
    const deps = auditDeps(store);
    expect(await maintainAuditLog(deps)).toMatchObject({ appended: 2, checkpoint: { written: [1] } });
    await new DynamoAuditStore(recording, TABLE, clock, new RecordingLogger()).append([entry('order_c', 3)]);
    expect(await writeAuditCheckpoint(deps)).toMatchObject({ written: [2] });
    // Every put the store sent (records, pending entries, checkpoints, pointers) carried a condition.
    expect(recording.puts.length).toBeGreaterThanOrEqual(6);
    expect(recording.puts.filter((p) => !p.ConditionExpression).map((p) => p.Item.pk)).toEqual([]);

    // A second writer's checkpoint 2 is refused: the stored one stays.
    const [stored] = await store.latestCheckpoints(1);
    expect(await store.putCheckpoint({ ...stored, at: '2030-01-01T00:00:00.000Z' })).toBe(false);
    expect((await store.checkpoint(2))!.at).toBe(stored.at);
    // A slower writer's pointer (sequence 2, checkpoint 1) never moves the one at sequence 3 back.
    const [two] = (await store.streamRecords('order#order_c')).slice(1, 2);
    await store.putSignedHeads([{ stream: 'order#order_c', sequence: 2, hash: two.hash }], 1);
    expect((await store.signedHeads(['order#order_c'])).get('order#order_c')).toMatchObject({ sequence: 3, checkpoint: 2 });
    // A record put again at a taken sequence is refused by the condition, as a writer with a stale head finds.
    const [first] = await store.streamRecords('order#order_c');
    const again = recording.puts.find((p) => p.Item.pk === 'order#order_c' && p.Item.sk === sequenceKey(1))!;
    await expect(doc.put({ ...again, Item: { ...again.Item, actor: 'mallory' } })).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect((await store.streamRecords('order#order_c'))[0]).toEqual(first);
  });
});

test('the signed records GET /audit/verify weighs are the sum of the writer\'s pointers; past the bound, a number above it', async () => {
  await withLocalDynamo(async ({ doc }) => {
    const store = new DynamoAuditStore(doc, TABLE, clock, new RecordingLogger());
    expect(await store.signedRecordsUpTo(10)).toBe(0);
    await store.append([entry('order_s1', 1), entry('order_s1', 2), entry('order_s1', 3)]);
    await store.append([entry('order_s2', 1), entry('order_s2', 2)]);
    // Not signed yet: no pointer counts them.
    expect(await store.signedRecordsUpTo(10)).toBe(0);
    expect(await writeAuditCheckpoint(auditDeps(store))).toMatchObject({ written: [1] });
    expect(await store.signedRecordsUpTo(10)).toBe(5);
    expect(await store.signedRecordsUpTo(4)).toBeGreaterThan(4);
  });
});
