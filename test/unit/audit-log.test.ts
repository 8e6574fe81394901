/** The audit log's chain, checkpoints and verifier (contract 6.2): every kind of tampering is the first broken link. */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { checkpointText, isSignedBy, sealCheckpoint, type AuditCheckpoint } from '../../functions/domain/audit/audit-checkpoints';
import { canonicalJson, GENESIS_HASH, recordHash, sealRecords, streamOf, type AuditRecord } from '../../functions/domain/audit/audit-records';
import { AuditVerifier, CHECKPOINT_STREAM } from '../../functions/domain/audit/audit-verification';
import { checkpointLine, headerLine, recordLine, verifyExport } from '../../functions/domain/audit/audit-export';
import { createPublicKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { at } from '../times';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const AT = '2022-12-02T16:00:00+05:30';
const RECORDED = '2022-12-02T10:30:00.000Z';

const attempt = (orderId: string, n: number) => ({
  kind: 'gateway_attempt', at: at(AT), orderId, vendorId: 'vendor_1', actor: null,
  detail: { request: '2022-12-05 10:00:00', httpStatus: 200, status: 'OK', subCode: '200', message: 'Updated vendor settlement eligibility date', n },
});

function stream(orderId: string, count: number): AuditRecord[] {
  return sealRecords(`order#${orderId}`, null, Array.from({ length: count }, (_, i) => attempt(orderId, i + 1)), RECORDED);
}

function signed(previous: AuditCheckpoint | null, heads: AuditRecord[], key: KeyObject = privateKey): AuditCheckpoint {
  const sealed = sealCheckpoint(previous, {
    at: RECORDED, coveredUntil: RECORDED, algorithm: 'Ed25519', keyId: 'ed25519:test',
    heads: heads.map((r) => ({ stream: r.stream, sequence: r.sequence, hash: r.hash })),
  });
  return { ...sealed, signature: sign(null, Buffer.from(checkpointText(sealed)), key).toString('base64') };
}

function verify(records: AuditRecord[], checkpoints: AuditCheckpoint[] = [], complete = true) {
  const verifier = new AuditVerifier({ publicKey, complete });
  for (const c of checkpoints) verifier.addCheckpoint(c);
  for (const r of records) verifier.addRecord(r);
  return verifier.result();
}

describe('records', () => {
  test('the stream is the order\'s, else the vendor\'s, else the configuration\'s', () => {
    expect(streamOf({ orderId: 'order_1', vendorId: 'v1' })).toBe('order#order_1');
    expect(streamOf({ vendorId: 'v1' })).toBe('vendor#v1');
    expect(streamOf({})).toBe('config');
  });

  test('canonical JSON sorts keys at every depth and leaves out undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 'x' }], c: undefined } })).toBe('{"a":{"d":[1,{"e":"x","f":2}]},"b":1}');
  });

  test('canonical JSON is RFC 8785\'s own example byte for byte (numbers in ECMAScript form, string escapes), and a lone surrogate is hashed as JSON.stringify escapes it', () => {
    // RFC 8785 section 3.2.2: the input and its canonical form, as the RFC prints them.
    const input = JSON.parse('{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}');
    expect(canonicalJson(input)).toBe('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
    expect(canonicalJson({ z: 1, a: 'x\ud800y' })).toBe('{"a":"x\\ud800y","z":1}');
  });

  test('sequences count from 1, each record links to the hash of the one before, the first to the genesis hash', () => {
    const records = stream('order_1', 3);
    expect(records.map((r) => r.sequence)).toEqual([1, 2, 3]);
    expect(records[0].prevHash).toBe(GENESIS_HASH);
    expect(records[1].prevHash).toBe(records[0].hash);
    expect(records[2].prevHash).toBe(records[1].hash);
    expect(records[2].hash).toBe(recordHash(records[2]));
    const more = sealRecords('order#order_1', records[2], [attempt('order_1', 4)], RECORDED);
    expect(more[0]).toMatchObject({ sequence: 4, prevHash: records[2].hash });
  });
});

describe('verification', () => {
  const records = [...stream('order_1', 5), ...stream('order_2', 3)];
  const checkpoint = signed(null, [records[4], records[7]]);

  test('an untouched log verifies, counting records, streams and checkpoints', () => {
    expect(verify(records, [checkpoint])).toEqual({ ok: true, records: 8, streams: 2, checkpoints: 1, firstBroken: null, unsignedRecords: 0 });
  });

  test('an edited record is the first broken link', () => {
    const edited = records.map((r) => (r.stream === 'order#order_1' && r.sequence === 3 ? { ...r, detail: { ...r.detail, message: 'changed' } } : r));
    expect(verify(edited, [checkpoint]).firstBroken).toEqual({ stream: 'order#order_1', sequence: 3, reason: 'edited: the record no longer matches its hash' });
  });

  test('an edited record whose hash was recomputed breaks the link of the next one', () => {
    const edited = records.map((r) => {
      if (r.stream !== 'order#order_1' || r.sequence !== 2) return r;
      const changed = { ...r, actor: 'mallory' };
      return { ...changed, hash: recordHash(changed) };
    });
    expect(verify(edited, [checkpoint]).firstBroken).toMatchObject({ stream: 'order#order_1', sequence: 3, reason: expect.stringContaining('does not match the hash of sequence 2') });
  });

  test('a deleted record is a gap', () => {
    const deleted = records.filter((r) => !(r.stream === 'order#order_2' && r.sequence === 2));
    expect(verify(deleted, [checkpoint]).firstBroken).toEqual({ stream: 'order#order_2', sequence: 2, reason: 'missing: the stream goes from sequence 1 to 3 (a record was deleted)' });
  });

  test('records deleted from the end of a stream are caught by the checkpoint that signed its head (truncation)', () => {
    const truncated = records.filter((r) => !(r.stream === 'order#order_1' && r.sequence >= 4));
    expect(verify(truncated, [checkpoint]).firstBroken).toMatchObject({ stream: 'order#order_1', sequence: 4, reason: expect.stringContaining('checkpoint 1 signed sequence 5, the stream ends at 3') });
    // Without the checkpoint, a truncation cannot be told from a shorter stream: the README says so.
    expect(verify(truncated).ok).toBe(true);
  });

  test('a whole chain rebuilt by someone without the key fails at the head the checkpoint signed', () => {
    const rebuilt = sealRecords('order#order_2', null, [attempt('order_2', 1), attempt('order_2', 99), attempt('order_2', 3)], RECORDED);
    const forged = [...records.filter((r) => r.stream !== 'order#order_2'), ...rebuilt];
    expect(verify(forged, [checkpoint]).firstBroken).toEqual({ stream: 'order#order_2', sequence: 3, reason: 'edited: checkpoint 1 signed another hash for this record' });
  });

  test('records in any order verify the same (each stream is put back in sequence order)', () => {
    expect(verify([...records].reverse(), [checkpoint]).ok).toBe(true);
  });

  test('a checkpoint with a wrong signature, an edited checkpoint, a deleted one and a broken chain are reported', () => {
    const other = generateKeyPairSync('ed25519').privateKey;
    const second = signed(checkpoint, [records[4]]);
    const third = signed(second, [records[7]]);
    expect(verify(records, [checkpoint, second, third]).ok).toBe(true);
    expect(verify(records, [checkpoint, signed(checkpoint, [records[4]], other), third]).firstBroken)
      .toEqual({ stream: CHECKPOINT_STREAM, sequence: 2, reason: 'wrong signature: not signed by the audit key' });
    expect(verify(records, [checkpoint, { ...second, coveredUntil: '2030-01-01T00:00:00.000Z' }, third]).firstBroken)
      .toEqual({ stream: CHECKPOINT_STREAM, sequence: 2, reason: 'edited: the checkpoint no longer matches its hash' });
    expect(verify(records, [checkpoint, third]).firstBroken).toMatchObject({ stream: CHECKPOINT_STREAM, sequence: 2, reason: expect.stringContaining('missing') });
    const unlinked = signed({ number: 1, hash: 'f'.repeat(64) } as AuditCheckpoint, [records[4]]);
    expect(verify(records, [checkpoint, unlinked]).firstBroken).toMatchObject({ stream: CHECKPOINT_STREAM, sequence: 2, reason: 'its link does not match the hash of checkpoint 1' });
    expect(isSignedBy(second, publicKey)).toBe(true);
  });

  test('records after the last checkpoint are counted as unsigned', () => {
    const more = sealRecords('order#order_1', records[4], [attempt('order_1', 6)], RECORDED);
    expect(verify([...records, ...more], [checkpoint])).toMatchObject({ ok: true, unsignedRecords: 1 });
  });
});

describe('verification in steps (a job whose steps carry the verifier\'s progress as JSON)', () => {
  const records = [...stream('order_1', 5), ...stream('order_2', 3), ...stream('order_3', 4), ...stream('order_4', 2)];
  const checkpoint = signed(null, [records[4], records[7], records[11], records[13]]);

  /** Steps of `size` records (a stream's records together, as a store's scan gives them), each resumed from the last one's JSON. */
  function verifyInSteps(list: AuditRecord[], size: number, checkpoints: AuditCheckpoint[] = [checkpoint]) {
    let progress = null;
    for (let i = 0; ; i += size) {
      const verifier = AuditVerifier.resume({ publicKey, complete: true }, checkpoints, progress);
      let current = progress?.open?.stream ?? null;
      for (const record of list.slice(i, i + size)) {
        if (record.stream !== current) verifier.closeStreamsBut(record.stream);
        current = record.stream;
        verifier.addRecord(record);
      }
      if (i + size >= list.length) {
        const seen = new Set(list.map((r) => r.stream));
        const missing = verifier.signedSeen() < verifier.signedStreams().length ? verifier.signedStreams().filter((s) => !seen.has(s)) : [];
        return verifier.result(missing);
      }
      verifier.closeStreamsBut(current);
      progress = JSON.parse(JSON.stringify(verifier.progress()));
    }
  }

  const tamperings: [string, AuditRecord[]][] = [
    ['untouched', records],
    ['an edited record', records.map((r) => (r.stream === 'order#order_3' && r.sequence === 2 ? { ...r, actor: 'mallory' } : r))],
    ['a deleted record', records.filter((r) => !(r.stream === 'order#order_1' && r.sequence === 3))],
    ['a stream\'s end cut', records.filter((r) => !(r.stream === 'order#order_3' && r.sequence >= 3))],
    ['a whole stream deleted', records.filter((r) => r.stream !== 'order#order_2')],
    ['two breaks', records.filter((r) => !(r.stream === 'order#order_4' && r.sequence === 1)).map((r) => (r.stream === 'order#order_1' && r.sequence === 5 ? { ...r, actor: 'mallory' } : r))],
  ];

  test.each(tamperings)('%s: every step size answers what one pass answers', (_, list) => {
    const whole = verify(list, [checkpoint]);
    for (const size of [1, 2, 3, 5, 100]) expect(verifyInSteps(list, size)).toEqual(whole);
  });

  test('the progress carried between steps holds one stream at most, whatever the number of streams', () => {
    const many = Array.from({ length: 50 }, (_, i) => stream(`order_m${i}`, 3)).flat();
    const verifier = AuditVerifier.resume({ publicKey, complete: true }, [], null);
    let current: string | null = null;
    for (const record of many) {
      if (record.stream !== current) verifier.closeStreamsBut(record.stream);
      current = record.stream;
      verifier.addRecord(record);
    }
    verifier.closeStreamsBut(current);
    const progress = verifier.progress();
    expect(progress).toMatchObject({ records: 150, closedStreams: 49, open: { stream: 'order#order_m49', next: 4 } });
    expect(JSON.stringify(progress).length).toBeLessThan(1000);
    expect(verifier.result([])).toMatchObject({ ok: true, records: 150, streams: 50 });
  });
});

describe('export', () => {
  const records = stream('order_9', 4);
  const checkpoint = signed(null, [records[3]]);
  const lines = [headerLine({ exportedAt: RECORDED, from: null, to: null, complete: true, algorithm: 'Ed25519', keyId: 'ed25519:test' }), checkpointLine(checkpoint), ...records.map(recordLine)];

  test('a whole export verifies offline; an edited line is reported', async () => {
    expect(await verifyExport(() => lines, publicKey)).toMatchObject({ ok: true, records: 4, checkpoints: 1, complete: true });
    const edited = lines.map((l, i) => (i === 3 ? l.replace('"n":2', '"n":7') : l));
    expect((await verifyExport(() => edited, publicKey)).firstBroken).toEqual({ stream: 'order#order_9', sequence: 2, reason: 'edited: the record no longer matches its hash' });
    expect((await verifyExport(() => [...lines.slice(0, 3), ...lines.slice(4)], publicKey)).firstBroken).toMatchObject({ stream: 'order#order_9', sequence: 2, reason: expect.stringContaining('missing') });
    expect((await verifyExport(() => [...lines, 'not json'], publicKey)).firstBroken).toEqual({ stream: 'file', sequence: 7, reason: 'line 7 is not JSON' });
  });

  test('a range export is refused as incomplete unless asked for a partial check; then it starts its streams anywhere, and a record missing inside the range is still a gap', async () => {
    const header = headerLine({ exportedAt: RECORDED, from: RECORDED, to: RECORDED, complete: false, algorithm: 'Ed25519', keyId: 'ed25519:test' });
    const partial = [header, checkpointLine(checkpoint), ...records.slice(1).map(recordLine)];
    expect(await verifyExport(() => partial, publicKey)).toMatchObject({ ok: false, complete: false, firstBroken: { stream: 'file', sequence: 1, reason: expect.stringMatching(/^incomplete: the header says this export is not the whole log/) } });
    expect(await verifyExport(() => partial, { publicKey, partial: true })).toMatchObject({ ok: true, records: 3, complete: false });
    const gap = [header, recordLine(records[0]), recordLine(records[2])];
    expect((await verifyExport(() => gap, { publicKey, partial: true })).firstBroken).toMatchObject({ stream: 'order#order_9', sequence: 2 });
    // The header is not signed: flipping a range export's flag to true makes the check stricter, never laxer.
    const flipped = [headerLine({ exportedAt: RECORDED, from: RECORDED, to: RECORDED, complete: true, algorithm: 'Ed25519', keyId: 'ed25519:test' }), ...partial.slice(1)];
    expect((await verifyExport(() => flipped, publicKey)).firstBroken).toMatchObject({ stream: 'order#order_9', sequence: 1, reason: expect.stringContaining('missing') });
  });

  test('an export written before format 2 (no version, no root, the old hashing code) verifies unchanged, by Holdback and by the format rule', async () => {
    const fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures/audit-export-v1.json'), 'utf8')) as { publicKeyPem: string; lines: string[] };
    const oldKey = createPublicKey(fixture.publicKeyPem);
    expect(await verifyExport(() => fixture.lines, { publicKeys: new Map([['ed25519:legacy', oldKey]]) })).toMatchObject({ ok: true, records: 4, checkpoints: 1, firstBroken: null });
    const checkpointOf = JSON.parse(fixture.lines[1]) as AuditCheckpoint & { type?: string };
    expect(checkpointOf.version).toBeUndefined();
    expect(checkpointOf.root).toBeUndefined();
    // Edited, it fails as any record does.
    const edited = fixture.lines.map((l) => l.replace('"reason":"', '"reason":"x'));
    expect((await verifyExport(() => edited, { publicKeys: new Map([['ed25519:legacy', oldKey]]) })).ok).toBe(false);
  });
});

describe('holdback audit verify (usage)', () => {
  test('a missing --file or --public-key, or a key that is not a PEM public key, says what to give', async () => {
    const { verifyExportFile, UsageError } = await import('../../bin/audit-verify');
    await expect(verifyExportFile({ publicKey: 'k.pem' })).rejects.toThrow(new UsageError('--file is missing: give the export, e.g. --file audit.ndjson (from GET /audit/export)'));
    await expect(verifyExportFile({ file: 'a.ndjson' })).rejects.toThrow(/^--public-keys is missing: give the key list/);
    await expect(verifyExportFile({ file: 'a.ndjson', publicKey: __filename })).rejects.toThrow(/is not a public key in PEM form/);
  });
});

describe('sealing writes the hash the format defines', () => {
  test('every record hashes as SHA-256 of the RFC 8785 text of the whole record without hash, whatever its members hold', () => {
    const { createHash } = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const details: Record<string, unknown>[] = [
      {},
      { b: 1, a: [3, { z: null, y: 'é' }], '\u00e9': true, A: -0, big: 1e21, small: 0.1, neg: -12.5 },
      { text: 'line\nbreak "quoted" \\ \u2028', lone: 'a\ud800b', nested: { deeper: { deepest: ['x', 2, false] } } },
      { amount: '200.00', request: '2022-12-05 10:00:00', when: at(AT) },
    ];
    const entries = details.flatMap((detail, i) => [
      { kind: 'planned', at: at(AT), orderId: 'order_9', vendorId: `vendor_${i}`, actor: 'marketplace', detail },
      { kind: 'manual_release', at: at(AT), orderId: 'order_9', actor: null, principal: 'arn:aws:iam::1:user/ops\ud800', detail },
      { kind: 'planned', at: at(AT), orderId: 'order_9', principal: null, detail },
    ]);
    const records = sealRecords('order#order_9', { sequence: 7, hash: 'f'.repeat(64) }, entries, RECORDED);
    expect(records).toHaveLength(entries.length);
    for (const record of records) {
      const { hash, ...covered } = record;
      // Written from the contract alone: canonicalize's RFC 8785 text of every member but hash, hashed.
      const expected = createHash('sha256').update(Buffer.from(canonicalJson(covered), 'utf8')).digest('hex');
      expect([record.sequence, hash]).toEqual([record.sequence, expected]);
      expect(recordHash(record)).toBe(hash);
    }
    expect(records.map((r) => r.sequence)).toEqual(entries.map((_, i) => 8 + i));
    expect(records[0].prevHash).toBe('f'.repeat(64));
    for (let i = 1; i < records.length; i++) expect(records[i].prevHash).toBe(records[i - 1].hash);
  });
});
