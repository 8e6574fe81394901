/**
 * The local audit key and its key ring (GET /audit/public-keys): a key replaced in the data folder keeps the old one
 * listed, so the checkpoints it signed still verify under their keyId; a forged list is refused.
 */
import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ed25519AuditKey, KEY_RING_FILE } from '../../functions/adapters/audit-key/ed25519-audit-key';
import { checkpointText, isSignedBy, publicKeyOf, sealCheckpoint } from '../../functions/domain/audit/audit-checkpoints';
import { publicKeyMap } from '../../functions/domain/audit/audit-proof';

let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'holdback-audit-key-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a key replaced by hand stays listed with when it was retired; its checkpoints verify under their keyId', async () => {
  const file = join(dir, 'audit-key.pem');
  const first = Ed25519AuditKey.fromFile(file);
  const firstId = (await first.identity()).keyId;
  expect(await first.publicKeys()).toEqual([{ keyId: firstId, algorithm: 'Ed25519', publicKeyPem: await first.publicKeyPem(), from: expect.any(String), to: null }]);
  const sealed = sealCheckpoint(null, { at: '2022-12-02T10:30:00.000Z', coveredUntil: '2022-12-02T10:30:00.000Z', heads: [{ stream: 'config', sequence: 1, hash: 'c'.repeat(64) }], algorithm: 'Ed25519', keyId: firstId });
  const signedByFirst = { ...sealed, signature: await first.sign(checkpointText(sealed)) };

  // The key file replaced (a rotation by hand): the ring keeps the first key, retired, and lists the new one.
  writeFileSync(file, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
  const second = Ed25519AuditKey.fromFile(file);
  const listed = await second.publicKeys();
  expect(listed.map((k) => k.keyId)).toEqual([firstId, (await second.identity()).keyId]);
  expect(listed[0].to).toEqual(expect.any(String));
  expect(listed[1].to).toBeNull();
  const { keys, problems } = publicKeyMap(listed, publicKeyOf);
  expect(problems).toEqual([]);
  expect(isSignedBy(signedByFirst, keys.get(firstId)!)).toBe(true);
  // Loaded again, nothing changes (the ring only grows when a new key appears).
  expect(await Ed25519AuditKey.fromFile(file).publicKeys()).toEqual(listed);
  expect(JSON.parse(readFileSync(join(dir, KEY_RING_FILE), 'utf8'))).toHaveLength(2);
});

test('a list whose PEM is not the key its keyId names is refused (a forged list)', async () => {
  const key = Ed25519AuditKey.inMemory();
  const [entry] = await key.publicKeys();
  const other = generateKeyPairSync('ed25519');
  const { keys, problems } = publicKeyMap([{ ...entry, publicKeyPem: other.publicKey.export({ type: 'spki', format: 'pem' }) as string }], publicKeyOf);
  expect(keys.size).toBe(0);
  expect(problems[0]).toMatch(new RegExp(`^the listed key "${entry.keyId}" is not the key its keyId names`));
  void sign; void createPrivateKey;
});
