/** One stream proved alone (GET /audit/proof): its records chain to the head a checkpoint signed, whose root holds it. */
import { createHash, type KeyObject } from 'node:crypto';
import { signatureHolds } from './audit-checkpoints';
import { checkProof, type ProofCheck, type ProofCrypto, type PublicKeyEntry, type StreamProof } from './audit-proof-check';

export type { ProofCheck, PublicKeyEntry, StreamProof };

/** SHA-256 and signature checks of node:crypto, for `holdback audit prove`. */
const NODE_CRYPTO: ProofCrypto<KeyObject> = {
  sha256: async (bytes) => createHash('sha256').update(bytes).digest(),
  verify: async (key, algorithm, text, signature) => signatureHolds(algorithm, key, text, signature),
};

/** The SHA-256 (first 16 hex digits) of a key's SPKI DER: what a local keyId `ed25519:<digits>` must say. */
export function keyFingerprint(key: KeyObject): string {
  return createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('hex').slice(0, 16);
}

/**
 * A list of public keys as `keyId` → key. An entry whose PEM is no public key, or whose keyId names a fingerprint the
 * PEM does not have (a forged list), is left out and named in `problems`, so checkpoints under it do not verify.
 */
export function publicKeyMap(list: readonly PublicKeyEntry[], parse: (pem: string) => KeyObject | null): { keys: Map<string, KeyObject>; problems: string[] } {
  const keys = new Map<string, KeyObject>();
  const problems: string[] = [];
  for (const entry of list) {
    const key = typeof entry?.publicKeyPem === 'string' ? parse(entry.publicKeyPem) : null;
    if (!key) problems.push(`the listed key ${JSON.stringify(entry?.keyId)} is not a PEM public key`);
    else if (entry.keyId.startsWith('ed25519:') && entry.keyId !== `ed25519:${keyFingerprint(key)}`) {
      problems.push(`the listed key ${JSON.stringify(entry.keyId)} is not the key its keyId names (its fingerprint is ${keyFingerprint(key)})`);
    } else if (keys.has(entry.keyId)) problems.push(`the key ${JSON.stringify(entry.keyId)} is listed twice`);
    else keys.set(entry.keyId, key);
  }
  return { keys, problems };
}

/** Checks a proof offline (see checkProof) with node:crypto. */
export function checkStreamProof(proof: StreamProof, keys: ReadonlyMap<string, KeyObject>): Promise<ProofCheck> {
  return checkProof(proof, keys, NODE_CRYPTO);
}
