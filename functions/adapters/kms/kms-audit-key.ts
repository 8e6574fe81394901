/**
 * The audit key on AWS: a KMS asymmetric key (ECC_NIST_P256, SIGN_VERIFY). The private half never leaves KMS; only
 * the checkpoint writer's role may call Sign (the key policy says so), every verifier reads the public key.
 */
import { GetPublicKeyCommand, SignCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { AuditKey } from '../../application/ports';

/** DER (SPKI) to PEM text, as `openssl` and node:crypto read it. */
export function spkiPem(der: Uint8Array): string {
  const base64 = Buffer.from(der).toString('base64').replace(/.{1,64}/g, '$&\n');
  return `-----BEGIN PUBLIC KEY-----\n${base64}-----END PUBLIC KEY-----\n`;
}

export class KmsAuditKey implements AuditKey {
  private publicKey: Promise<string> | null = null;

  /** `keyId`: the key's ARN (an alias ARN works for Sign, but the ARN is what checkpoints name). */
  constructor(private readonly kms: KMSClient, private readonly keyId: string, readonly canSign: boolean) {}

  async identity(): Promise<{ algorithm: 'ECDSA_SHA_256'; keyId: string }> {
    return { algorithm: 'ECDSA_SHA_256', keyId: this.keyId };
  }

  async publicKeyPem(): Promise<string> {
    this.publicKey ??= this.kms.send(new GetPublicKeyCommand({ KeyId: this.keyId })).then((answer) => {
      if (!answer.PublicKey) throw new Error(`KMS returned no public key for ${this.keyId}`);
      if (answer.KeySpec !== 'ECC_NIST_P256') throw new Error(`the audit key ${this.keyId} is ${answer.KeySpec ?? 'unknown'}; create it as ECC_NIST_P256 with usage SIGN_VERIFY`);
      return spkiPem(answer.PublicKey);
    });
    // A failed read is not cached: the next call asks again.
    this.publicKey.catch(() => { this.publicKey = null; });
    return this.publicKey;
  }

  /** KMS signs the SHA-256 digest (MessageType DIGEST), which verifies as ECDSA-SHA256 over the text itself. */
  async sign(_text: string, digestHex: string): Promise<string> {
    if (!this.canSign) throw new Error('this function is not the audit checkpoint writer: it may not sign with the audit key');
    const answer = await this.kms.send(new SignCommand({
      KeyId: this.keyId,
      Message: Buffer.from(digestHex, 'hex'),
      MessageType: 'DIGEST',
      SigningAlgorithm: 'ECDSA_SHA_256',
    }));
    if (!answer.Signature) throw new Error(`KMS returned no signature for ${this.keyId}`);
    return Buffer.from(answer.Signature).toString('base64');
  }
}
