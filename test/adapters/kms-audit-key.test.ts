/**
 * The KMS audit key through the real SDK against a scripted KMS endpoint (no local KMS exists): Sign is called with the
 * checkpoint's SHA-256 as a DIGEST, and the DER signature KMS gives back verifies offline with the PEM it publishes.
 */
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { KmsAuditKey } from '../../functions/adapters/kms/kms-audit-key';
import { KmsRequests } from '../../functions/adapters/kms/kms-requests';
import { checkpointText, isSignedBy, publicKeyOf, sealCheckpoint } from '../../functions/domain/audit/audit-checkpoints';
import { answer, startScriptedServer, type ScriptedServer } from './gateway/scripted-http-server';

const KEY_ARN = 'arn:aws:kms:ap-south-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
/** A key replaced by the current one: kept in KMS (never deleted), its public half still published. */
const OLD_ARN = 'arn:aws:kms:ap-south-1:123456789012:key/00000000-0000-0000-0000-000000000001';
const old = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const OLD_CREATED = '2022-01-10T08:00:00.000Z';
const KEY_CREATED = '2022-11-30T12:00:00.000Z';
/** What the fake KMS can sign: the texts whose digest it may be sent (it holds the private key, as KMS does). */
const texts = new Map<string, string>();

let kms: ScriptedServer;
let client: KmsRequests;

beforeAll(async () => {
  kms = await startScriptedServer((request) => {
    const target = String(request.headers['x-amz-target']);
    const body = JSON.parse(request.body) as Record<string, string>;
    if (target === 'TrentService.GetPublicKey' && body.KeyId === OLD_ARN) {
      return answer(200, { KeyId: OLD_ARN, KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY', PublicKey: old.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), SigningAlgorithms: ['ECDSA_SHA_256'] });
    }
    if (target === 'TrentService.GetPublicKey') {
      return answer(200, { KeyId: KEY_ARN, KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY', PublicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), SigningAlgorithms: ['ECDSA_SHA_256'] });
    }
    if (target === 'TrentService.DescribeKey') {
      // KMS's JSON protocol sends dates as epoch seconds.
      const created = body.KeyId === OLD_ARN ? OLD_CREATED : KEY_CREATED;
      return answer(200, { KeyMetadata: { KeyId: body.KeyId, Arn: body.KeyId, CreationDate: Date.parse(created) / 1000, KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY', KeyState: 'Enabled' } });
    }
    if (target === 'TrentService.Sign' && body.MessageType === 'DIGEST' && body.SigningAlgorithm === 'ECDSA_SHA_256') {
      const text = texts.get(Buffer.from(body.Message, 'base64').toString('hex'));
      if (text === undefined) return answer(400, { __type: 'ValidationException', message: 'unknown digest' });
      return answer(200, { KeyId: KEY_ARN, Signature: sign('sha256', Buffer.from(text), privateKey).toString('base64'), SigningAlgorithm: 'ECDSA_SHA_256' });
    }
    return answer(400, { __type: 'ValidationException', message: `unexpected ${target}` });
  });
  client = new KmsRequests({ endpoint: kms.url, region: 'ap-south-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
});

afterAll(async () => {
  await kms.close();
});

test('a checkpoint signed by KMS (ECDSA P-256 over its digest) verifies with the public key KMS publishes', async () => {
  const key = new KmsAuditKey(client, KEY_ARN, true);
  const identity = await key.identity();
  expect(identity).toEqual({ algorithm: 'ECDSA_SHA_256', keyId: KEY_ARN });
  const sealed = sealCheckpoint(null, { at: '2022-12-02T10:30:00.000Z', coveredUntil: '2022-12-02T10:30:00.000Z', heads: [{ stream: 'order#o1', sequence: 3, hash: 'a'.repeat(64) }], ...identity });
  const text = checkpointText(sealed);
  expect(sealed.hash).toBe(createHash('sha256').update(text).digest('hex'));
  texts.set(sealed.hash, text);
  const signature = await key.sign(text, sealed.hash);
  const pem = await key.publicKeyPem();
  expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
  expect(isSignedBy({ ...sealed, signature }, publicKeyOf(pem)!)).toBe(true);
  expect(isSignedBy({ ...sealed, heads: [{ stream: 'order#o1', sequence: 2, hash: 'a'.repeat(64) }], signature }, publicKeyOf(pem)!)).toBe(false);
  const signCall = kms.requests.find((r) => r.headers['x-amz-target'] === 'TrentService.Sign')!;
  expect(JSON.parse(signCall.body)).toMatchObject({ KeyId: KEY_ARN, MessageType: 'DIGEST', SigningAlgorithm: 'ECDSA_SHA_256' });
});

test('a function that is not the checkpoint writer never calls Sign', async () => {
  const before = kms.requests.length;
  await expect(new KmsAuditKey(client, KEY_ARN, false).sign('text', 'ab'.repeat(32))).rejects.toThrow('not the audit checkpoint writer');
  expect(kms.requests.length).toBe(before);
});

test('after the key is replaced, the old key is still listed (read from KMS) and its checkpoints verify under their keyId; the new key signs new ones', async () => {
  const key = new KmsAuditKey(client, KEY_ARN, true, [OLD_ARN]);
  const listed = await key.publicKeys();
  expect(listed.map((k) => [k.keyId, k.algorithm])).toEqual([[OLD_ARN, 'ECDSA_SHA_256'], [KEY_ARN, 'ECDSA_SHA_256']]);
  // Each key's validity from KMS: in service from its creation until the next key's; the current one has no end.
  expect(listed.map((k) => [k.keyId, k.from, k.to])).toEqual([[OLD_ARN, OLD_CREATED, KEY_CREATED], [KEY_ARN, KEY_CREATED, null]]);
  const { publicKeyMap } = await import('../../functions/domain/audit/audit-proof');
  const { keys } = publicKeyMap(listed, publicKeyOf);
  const before = sealCheckpoint(null, { at: '2022-12-01T10:30:00.000Z', coveredUntil: '2022-12-01T10:30:00.000Z', heads: [{ stream: 'order#o1', sequence: 1, hash: 'b'.repeat(64) }], algorithm: 'ECDSA_SHA_256', keyId: OLD_ARN });
  const oldSigned = { ...before, signature: sign('sha256', Buffer.from(checkpointText(before)), old.privateKey).toString('base64') };
  expect(isSignedBy(oldSigned, keys.get(OLD_ARN)!)).toBe(true);
  expect(isSignedBy(oldSigned, keys.get(KEY_ARN)!)).toBe(false);
});
