/**
 * The audit key on AWS: a KMS asymmetric key (ECC_NIST_P256, SIGN_VERIFY). The private half never leaves KMS; only
 * the checkpoint writer's role may call Sign (the key policy says so), every verifier reads the public key.
 */
import type { AuditKey, AuditPublicKey } from '../../application/ports';
import type { KmsRequests } from './kms-requests';

/** DER (SPKI) to PEM text, as `openssl` and node:crypto read it. */
export function spkiPem(der: Uint8Array): string {
  const base64 = Buffer.from(der).toString('base64').replace(/.{1,64}/g, '$&\n');
  return `-----BEGIN PUBLIC KEY-----\n${base64}-----END PUBLIC KEY-----\n`;
}

export class KmsAuditKey implements AuditKey {
  private readonly pems = new Map<string, Promise<string>>();
  private readonly created = new Map<string, Promise<string>>();

  /**
   * `keyId`: the key's ARN (an alias ARN works for Sign, but the ARN is what checkpoints name). `previousKeyIds`: the
   * ARNs of keys that signed before it (replaced or rotated keys are kept, never deleted), oldest first.
   */
  constructor(private readonly kms: KmsRequests, private readonly keyId: string, readonly canSign: boolean, private readonly previousKeyIds: readonly string[] = []) {}

  /** Each key's public half, read from KMS itself (never from the log, which a writer could change). */
  async publicKeys(): Promise<AuditPublicKey[]> {
    const ids = [...this.previousKeyIds.filter((id) => id !== this.keyId), this.keyId];
    const listed = await Promise.all(ids.map(async (keyId) => ({ keyId, algorithm: 'ECDSA_SHA_256' as const, publicKeyPem: await this.pemOf(keyId), from: await this.createdAt(keyId) })));
    // In service from its creation (KMS's CreationDate) until the next key's: the key replacing it signs from then on.
    return listed.map((key, i) => ({ ...key, to: i + 1 < listed.length ? listed[i + 1].from : null }));
  }

  /** When KMS created the key (DescribeKey), read once: it never changes. */
  private createdAt(keyId: string): Promise<string> {
    let created = this.created.get(keyId);
    if (!created) {
      // KMS's JSON protocol sends times as epoch seconds.
      created = this.kms.call<{ KeyMetadata?: { CreationDate?: number } }>('DescribeKey', { KeyId: keyId }).then((answer) => {
        const seconds = answer.KeyMetadata?.CreationDate;
        if (typeof seconds !== 'number') throw new Error(`KMS returned no creation date for ${keyId}`);
        return new Date(Math.round(seconds * 1000)).toISOString();
      });
      this.created.set(keyId, created);
      created.catch(() => this.created.delete(keyId));
    }
    return created;
  }

  async identity(): Promise<{ algorithm: 'ECDSA_SHA_256'; keyId: string }> {
    return { algorithm: 'ECDSA_SHA_256', keyId: this.keyId };
  }

  async publicKeyPem(): Promise<string> {
    return this.pemOf(this.keyId);
  }

  private pemOf(keyId: string): Promise<string> {
    let pem = this.pems.get(keyId);
    if (!pem) {
      pem = this.kms.call<{ PublicKey?: string; KeySpec?: string }>('GetPublicKey', { KeyId: keyId }).then((answer) => {
        if (!answer.PublicKey) throw new Error(`KMS returned no public key for ${keyId}`);
        if (answer.KeySpec !== 'ECC_NIST_P256') throw new Error(`the audit key ${keyId} is ${answer.KeySpec ?? 'unknown'}; create it as ECC_NIST_P256 with usage SIGN_VERIFY`);
        return spkiPem(Buffer.from(answer.PublicKey, 'base64'));
      });
      this.pems.set(keyId, pem);
      // A failed read is not cached: the next call asks again.
      pem.catch(() => this.pems.delete(keyId));
    }
    return pem;
  }

  /** KMS signs the SHA-256 digest (MessageType DIGEST), which verifies as ECDSA-SHA256 over the text itself. */
  async sign(_text: string, digestHex: string): Promise<string> {
    if (!this.canSign) throw new Error('this function is not the audit checkpoint writer: it may not sign with the audit key');
    // Blobs travel as base64 both ways (the Message in, the DER Signature out).
    const answer = await this.kms.call<{ Signature?: string }>('Sign', {
      KeyId: this.keyId,
      Message: Buffer.from(digestHex, 'hex').toString('base64'),
      MessageType: 'DIGEST',
      SigningAlgorithm: 'ECDSA_SHA_256',
    });
    if (!answer.Signature) throw new Error(`KMS returned no signature for ${this.keyId}`);
    return Buffer.from(answer.Signature, 'base64').toString('base64');
  }
}
